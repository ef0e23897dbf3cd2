// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The server side of QEMU's ivshmem protocol (docs/specs/ivshmem-spec in
// QEMU), serving exactly one `ivshmem-doorbell` device: FlashVP's route for
// device interrupts into a guest when QEMU's proxied PCI device cannot
// deliver any (TCG). On connection the client gets the protocol version (0),
// its id, the shared memory (a memfd) and one eventfd per vector; writing
// an eventfd makes QEMU raise that MSI-X vector of the ivshmem device.
//
// The shared memory carries which of the SSD's interrupt vectors are
// pending (the guest module sw/guest/irqfwd reads and clears them, then
// runs the SSD driver's handlers):
//   offset 0:  u32 magic 0x49505646 ("FVPI"), u32 version 1
//   offset 64: u64 pending[8]; bit i = the SSD's vector i (MSI-X table
//              index; 0 for INTx)
//   offset 128: u64 pending[8]; bit i = the I/O-stack accelerator's vector i
//              (when vp-qemu serves it beside the SSD)
//   offset 128 + 64 k (k >= 1): u64 pending[8]; bit i = vector i of NVMe
//              drive k (the k-th proxied NVMe function, in the order QEMU
//              places them) when vp-qemu serves several drives
#include <cstdint>
#include <string>

namespace vp::pcie {

class IvshmemServer {
 public:
  static constexpr uint32_t kMagic = 0x49505646, kVersion = 1, kPendingOffset = 64, kVectorsTracked = 512;
  // Which function's pending words: the first drive's, the accelerator's,
  // drive k's (k >= 1).
  enum class Function : uint32_t { Ssd = 0, Accelerator = 1 };
  static uint32_t drive_region(unsigned k) { return k == 0 ? 0 : k + 1; }
  static constexpr uint64_t kShmSize = 1 << 20;  // a power of two, as the device's BAR2 must be

  // Creates the shared memory and listens on `socket_path` (removed first if it exists).
  explicit IvshmemServer(const std::string& socket_path);
  ~IvshmemServer();
  IvshmemServer(const IvshmemServer&) = delete;
  IvshmemServer& operator=(const IvshmemServer&) = delete;

  // Waits up to `timeout_ms` for QEMU to connect and sends it its setup.
  // False on timeout; throws std::runtime_error on a socket error.
  bool accept_client(int timeout_ms);
  bool connected() const { return client_ >= 0; }
  // Marks vector `v` of function `f` (or of the function whose pending
  // words are region `region`, 64 bytes each from offset 64) pending and
  // rings the doorbell.
  void raise(uint32_t v, Function f = Function::Ssd) { raise_in(v, static_cast<uint32_t>(f)); }
  void raise_in(uint32_t v, uint32_t region);
  uint64_t raised() const { return raised_; }
  const std::string& path() const { return path_; }

 private:
  void send_msg(int64_t value, int fd);

  std::string path_;
  int listen_ = -1, client_ = -1, shm_ = -1, vector_fd_ = -1;
  uint8_t* mem_ = nullptr;
  uint64_t raised_ = 0;
};

}  // namespace vp::pcie
