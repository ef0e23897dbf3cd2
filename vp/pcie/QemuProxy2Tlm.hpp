// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Bridge from QEMU's multi-process PCI proxy (`-device x-pci-proxy-dev,fd=N`
// in Debian's QEMU 7.2) to TLM: FlashVP stands where QEMU's remote process
// would, serving one PCI function to a guest.
//   QEMU -> config_out : configuration reads and writes (answered at once)
//   QEMU -> mmio_out   : BAR0 reads and writes (answered at once)
//   dma_in <- device   : DMA into guest RAM (the memfd regions QEMU shares)
//                        and interrupt messages, handed to an interrupt route
// Wire format (QEMU hw/remote/mpqemu-link): a 16-byte header (int32
// command, pad, uint64 payload size), at most 192 bytes of payload, file
// descriptors as SCM_RIGHTS. Register accesses block QEMU's vCPU until the
// RET comes back, so they are answered while simulated time stands still;
// writes then take effect in the model at their arrival time.
//
// Interrupts. The device's MSI-X messages (writes to the x86 MSI window)
// are matched to their MSI-X table entry (the bridge watches the guest
// program the table through BAR0) and INTx assert messages (at
// intx_address) count as vector 0; each goes to `raise_irq(vector)`.
//
// The INTx route (set_intx_route): QEMU hands over an eventfd pair with
// SET_IRQFD, which under KVM it registers as an irqfd with resample on the
// line INTA routes to. The bridge keeps the level the device signals
// (assert/deassert messages at kIntxAddress); a rising edge writes the
// interrupt eventfd, KVM lowers the line at the guest's EOI and signals the
// resample eventfd, and the bridge raises the line again if the level is
// still asserted. The guest would pick MSI-X or MSI if the function had
// them, which this path cannot deliver; the function's own parameters
// (ssd.pci.msi, ssd.pci.msix) leave them out, the bridge only transports.
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Services.hpp"

namespace vp::pcie {

class QemuProxy2Tlm : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<QemuProxy2Tlm> config_out, mmio_out;
  tlm_utils::simple_target_socket<QemuProxy2Tlm> dma_in;

  // The x86 MSI address window, and where the device sends INTx messages.
  static constexpr uint64_t kMsiBase = 0xFEE00000ull, kMsiSize = 0x100000, kIntxAddress = 0xFEF00000ull;

  QemuProxy2Tlm(sc_core::sc_module_name name, Services& svc, int fd, uint64_t bar0_size);
  ~QemuProxy2Tlm() override;

  std::function<void(uint32_t vector)> raise_irq;
  // Another function served beside this one (its own proxy device): device
  // accesses to its BAR, as the guest placed it, go to it peer to peer
  // instead of to guest RAM.
  void add_peer(QemuProxy2Tlm& peer) { peers_.push_back(&peer); }
  int socket_fd() const { return fd_; }
  std::function<void()> reset_device;  // QEMU reset the machine: conventional reset of the function

  // Before serving: INTx through QEMU's irqfd pair instead of raise_irq.
  void set_intx_route(bool on) { intx_route_ = on; }
  bool intx_route() const { return intx_route_; }
  bool has_irqfd() const { return irqfd_ >= 0; }

  // Serves every message that arrives within `timeout_ms` (0: only those
  // already there, -1: wait for at least one). False once QEMU has closed
  // the connection.
  bool serve(int timeout_ms);

  struct Counts {
    uint64_t config = 0, bar_reads = 0, bar_writes = 0, sysmem_syncs = 0, resets = 0, irqs = 0, dma_errors = 0;
    // Wall-clock costs: serving register accesses (message in to answer
    // out), and from raising an interrupt to the guest's next CQ head
    // doorbell (delivery, the guest's handler, the reaping).
    double access_wall_s = 0, irq_to_doorbell_wall_s = 0;
    uint64_t irq_round_trips = 0;
    // INTx route: eventfd pairs received, line raises (edges and re-raises),
    // resample signals, and those that found the level still asserted.
    uint64_t irqfd_sets = 0, irqfd_writes = 0, resamples = 0, rearms = 0;
  };
  const Counts& counts() const { return n_; }
  uint64_t messages() const { return n_.config + n_.bar_reads + n_.bar_writes + n_.sysmem_syncs + n_.resets; }
  uint64_t events() const { return eq_.fired(); }

 private:
  struct Region {
    uint64_t gpa, size;
    uint8_t* ptr;
    int fd;
  };
  bool handle_one();
  void set_irqfd(const std::vector<int>& fds);
  void close_irqfd();
  void resample();
  void raise_line();
  void reply(uint64_t value);
  void sync_sysmem(const uint8_t* payload, const std::vector<int>& fds);
  uint32_t config_access(bool write, uint32_t addr, uint32_t value, unsigned len);
  uint64_t bar_access(bool write, uint64_t addr, uint64_t value, unsigned len);
  void locate_msix();
  void dma(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // Whether [addr, addr + len) is in this function's BAR0 (known once the
  // guest has accessed it); a peer's access to it, through mmio_out.
  bool claims(uint64_t addr, uint32_t len) const;
  void peer_access(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  uint8_t* guest(uint64_t gpa, uint32_t len);
  void interrupt(uint64_t addr, uint32_t data);
  void unmap_all();

  Services& svc_;
  int fd_;
  uint64_t bar0_size_;
  uint64_t bar0_base_ = 0;
  bool bar0_known_ = false;
  std::vector<QemuProxy2Tlm*> peers_;
  EventQueue eq_;
  std::vector<Region> ram_;
  tlm::tlm_generic_payload gp_;
  Counts n_;
  // MSI-X table as the guest programmed it (address, data per entry).
  bool msix_known_ = false;
  uint32_t msix_table_ = 0, msix_entries_ = 0;
  std::vector<std::pair<uint64_t, uint32_t>> msix_;
  // INTx route: QEMU's eventfd pair and the level the device signals.
  bool intx_route_ = false, intx_level_ = false;
  int irqfd_ = -1, resamplefd_ = -1;
  double irq_raised_at_ = -1;  // wall time of the oldest interrupt not yet answered by a CQ head doorbell
};

}  // namespace vp::pcie
