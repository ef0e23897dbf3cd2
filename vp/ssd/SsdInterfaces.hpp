// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The interfaces between the layers inside the SSD, bound through
// sc_port/sc_export: controller -> firmware -> FTL -> flash. Requests travel
// by reference; completion comes back through a client callback.
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/Units.hpp"
#include "vp/flash/FlashTypes.hpp"

namespace vp::ssd {

enum class IoOp : uint8_t { Read, Write, Flush, Trim };

struct FtlRequest;
struct FtlClient {
  virtual void ftl_done(FtlRequest& r) = 0;
  virtual ~FtlClient() = default;
};

// A run of logical pages (the FTL's mapping unit is one flash page).
struct FtlRequest {
  IoOp op = IoOp::Read;
  uint64_t lpn = 0;
  uint32_t pages = 0;
  uint8_t* data = nullptr;  // pages * page_size bytes (none for a trim)
  // A write the layer above needs drained fast (FastDrain's foreground
  // eviction): the latency-aware allocator gives it LSB pages.
  bool urgent = false;
  // From the host command, for the cache layer: the workload attribute,
  // force unit access, and FastDrain's victimization hint; `result` goes
  // back into the command's completion (the write buffer's status).
  uint8_t attr = 0;
  bool fua = false, victim = false;
  uint32_t victim_pages = 0, result = 0;
  FtlClient* client = nullptr;
  void* owner = nullptr;    // the client's own reference
  // Owned by the FTL while the request is in flight.
  std::vector<flash::FlashTransaction> txns;
  uint32_t outstanding = 0;
  uint32_t map_misses = 0;  // translation pages still being read
};

// The media's wear as firmware reports it (NVMe SMART / Health log).
struct MediaHealth {
  double mean_erase_count = 0;
  uint32_t min_erase_count = 0, max_erase_count = 0;
  uint32_t endurance = 1;           // rated program/erase cycles
  uint64_t unsafe_shutdowns = 0;    // power losses recovered from
};

struct IFtl : virtual sc_core::sc_interface {
  virtual void submit(FtlRequest& r) = 0;
  virtual uint64_t logical_pages() const = 0;
  virtual uint32_t page_size() const = 0;
  virtual MediaHealth health() const = 0;
  // A volatile write cache in this layer or below (NVMe VWC), and the
  // host's switch for it (Set Features 06h).
  virtual bool volatile_write_cache() const { return false; }
  virtual void set_write_cache(bool) {}
  // Writes complete once in this layer's DRAM (volatile or protected by
  // the drive's hold-up power), not on flash.
  virtual bool buffers_writes() const { return volatile_write_cache(); }
  // Every page of [lpn, lpn + pages) is in this layer's DRAM, so a read of
  // them would hit: what DeepFlash's NVMQ looks up in the shared cache
  // metadata before it sends a read to CACHE or straight to TRANS.
  virtual bool cached(uint64_t /*lpn*/, uint32_t /*pages*/) const { return false; }
  // A hint with no simulated effect: [lpn, lpn + pages) will be submitted
  // soon, so the simulator may start loading the host memory its mapping
  // lookup touches (a random read of a large drive misses the CPU cache).
  virtual void prefetch(uint64_t /*lpn*/, uint32_t /*pages*/) const {}
  // The second hint for a write, a stage later (prefetch came first): the
  // simulator may look up the pages' current places and start loading the
  // records an overwrite updates.
  virtual void prefetch_overwrite(uint64_t /*lpn*/, uint32_t /*pages*/) const {}
};

// What a drive with power-loss protection writes to flash from its DRAM
// when the host's power fails, while its capacitors hold it up.
struct IPowerDrain : virtual sc_core::sc_interface {
  // Writes every buffered page to the FTL, and later writes straight
  // through; `drained` is called once nothing buffered is left unwritten.
  virtual void drain(std::function<void()> drained) = 0;
  // The logical pages whose newest data is not on flash yet.
  virtual std::vector<uint64_t> undrained_pages() const = 0;
};

// The SSD's embedded DRAM as its users see it (SsdDram): the NVMe
// controller's data staging, the FTL's mapping table and the cache layer
// each reserve a region at elaboration and pay for every access.
struct ISsdDram : virtual sc_core::sc_interface {
  // A region of `bytes` for `what`, sized by the parameters `keys` (named
  // with the DRAM's size in the error when it is too small); returns its
  // base address.
  virtual uint64_t reserve(uint64_t bytes, const std::string& what, const std::vector<std::string>& keys = {}) = 0;
  // When an access of `bytes` at `addr` that is ready at `now` is done: it
  // waits for the DRAM bus (first come first served), then pays the row hit
  // or miss of its bank and the burst transfer, refresh folded in.
  virtual Tick access(uint64_t addr, uint64_t bytes, bool write, Tick now) = 0;
};

// A host command as the controller hands it to firmware, after the NVMe
// fields were checked and, for writes, the data was fetched.
struct HostCommand;
struct FirmwareClient {
  virtual void firmware_issued(HostCommand& c) = 0;  // firmware finished its tasks, media work starts
  virtual void firmware_done(HostCommand& c) = 0;    // data ready (read) or stored (write)
  virtual ~FirmwareClient() = default;
};

struct HostCommand {
  IoOp op = IoOp::Read;
  uint64_t byte_offset = 0;
  uint32_t bytes = 0;
  uint8_t* data = nullptr;
  uint16_t sqid = 0;
  // Command dwords 2-3 as the host wrote them (Linux's rsvd2): where a
  // patched driver passes hints. The controller decodes FlashShare's
  // workload attribute from CDW2 bits 7:0 into `attr`, and FastDrain's
  // page-victimization tag of a Write (CDW2 bit 8) into `victim`, with the
  // dirty pages of the victimization event (CDW3) in `victim_pages`.
  uint32_t cdw2 = 0, cdw3 = 0;
  uint8_t attr = 0;
  bool victim = false;
  uint32_t victim_pages = 0;
  bool fua = false;  // force unit access: durable before completion even with a volatile cache
  // What the firmware returns to the host in the completion (FastDrain's
  // write-buffer status, nvme::buffer_status()); the controller puts it in
  // the field ssd.nvme.buffer_status_field names.
  uint32_t result = 0;
  FirmwareClient* client = nullptr;
  uint32_t slot = 0;
  FtlRequest ftl;
};

struct IFirmware : virtual sc_core::sc_interface {
  virtual void submit(HostCommand& c) = 0;
  // A hint with no simulated effect: `c` is decoded and will be submitted
  // once its data is fetched (IFtl::prefetch).
  virtual void prefetch(const HostCommand& /*c*/) const {}
  virtual uint64_t capacity_bytes() const = 0;
  virtual uint32_t mapping_unit() const = 0;  // transfers must be multiples of this
  virtual MediaHealth health() const = 0;
  // A volatile write cache (NVMe VWC): present, and enabled or not by the host.
  virtual bool volatile_write_cache() const = 0;
  virtual void set_write_cache(bool enabled) = 0;
};

}  // namespace vp::ssd
