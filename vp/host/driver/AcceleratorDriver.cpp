// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/driver/AcceleratorDriver.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "vp/core/Calendar.hpp"
#include "vp/accel/AccelRegs.hpp"
#include "vp/core/Payload.hpp"
#include "vp/core/SimControl.hpp"
#include "vp/host/hw/InterruptController.hpp"

namespace vp::host {

namespace regs = accel::regs;

namespace {
constexpr uint32_t kPage = 4096, kSegBytes = regs::SEG_BYTES, kMaxSegs = regs::kMaxSegs;
}  // namespace

void AcceleratorDriver::declare_params(const ParamScope& r) {
  // The paper gives no figure; Fig 15b shows the block layer's time gone
  // under XLER. Our choice: syscall entry, the attribute check, the segment
  // list and eight posted register writes, about a third of the default
  // submission path (host.core.submit_cost, 1.5 us, with blk-mq and the
  // NVMe driver).
  r.time("submit_cost", "0.5us",
         "CPU time to hand a bio to the I/O-stack accelerator (host.nvme.completion = xler): syscall, attribute "
         "check, segment list and register writes; replaces host.core.submit_cost and blk-mq's costs for it");
  r.choice("completion", "interrupt", {"interrupt", "poll"},
           "how a bio handed to the accelerator completes: interrupt (the accelerator's MSI-X per bio, the paper's "
           "design) or poll (no interrupt; the submitting thread spins on its queue's completion register)");
  // One uncached read across a PCIe Gen3 x4 link, 300 ns each way: about 0.61 us.
  r.time("poll_check_cost", "700ns",
         "host.accel.completion = poll: CPU time of one check of the accelerator's completion register (an "
         "uncached read across PCIe; the granularity at which the spin sees a completion)");
  r.rule([](const ScopedConfig& c) {
    if (c.get_time("poll_check_cost") == 0) c.fail("poll_check_cost", "must be above 0");
  });
}

uint32_t AcceleratorDriver::entries_from(const ScopedConfig& nvme) {
  return static_cast<uint32_t>(std::min<int64_t>(nvme.get_int("queue_depth"), regs::kMaxEntries));
}

AcceleratorDriver::AcceleratorDriver(sc_core::sc_module_name name, Services& svc, InterruptRouting& irqs,
                                     HostMemoryAllocator& memory, NvmeDriver& nvme, uint64_t config, uint64_t bar0,
                                     const std::string& scope)
    : sc_module(name),
      bus("bus"),
      svc_(svc),
      irqs_(irqs),
      memory_(memory),
      nvme_(nvme),
      config_(config),
      bar0_(bar0),
      submit_cost_(ScopedConfig(svc.cfg, scope).get_time("submit_cost")),
      poll_check_(ScopedConfig(svc.cfg, scope).get_time("poll_check_cost")),
      polled_(ScopedConfig(svc.cfg, scope).is("completion", "poll")),
      entries_(entries_from(ScopedConfig(svc.cfg, NvmeDriver::kScope))),
      bios_(StatGroup(svc.stats, scope).counter("bios", "bios", "bios handed to the accelerator")),
      normal_path_(StatGroup(svc.stats, scope).counter(
          "normal_path", "bios",
          "latency-critical bios left to blk-mq: more than one command's worth for the accelerator, flushes or discards")),
      held_(StatGroup(svc.stats, scope).counter("held", "bios", "bios that waited for a free tag of their queue")),
      done_reads_(StatGroup(svc.stats, scope).counter("done_reads", "reads",
                                                      "reads of the accelerator's completion registers")) {
  nvme.stack(*this);
}

void AcceleratorDriver::reserve_memory(const ScopedConfig& nvme, unsigned cores, HostMemoryAllocator& memory) {
  memory.alloc_many("accelerator segment lists", cores, uint64_t(entries_from(nvme)) * kMaxSegs * kSegBytes);
}

void AcceleratorDriver::fail(const std::string& what) {
  sim_abort("I/O-stack accelerator driver: " + what);
  Calendar::get().halt();  // the run is stopping
}

uint64_t AcceleratorDriver::read(uint64_t addr, unsigned len) {
  uint64_t v = 0;
  prepare(gp_, tlm::TLM_READ_COMMAND, addr, reinterpret_cast<uint8_t*>(&v), len);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  bus->b_transport(gp_, d);
  if (!gp_.is_response_ok()) sim_abort(fmt::format("accelerator driver: bus error at address {:#x}", addr));
  Calendar::get().wait_for(d.value());
  nvme_.land_due();  // what the register reports done has its data in memory
  return v;
}

void AcceleratorDriver::write(uint64_t addr, uint64_t v, unsigned len, bool non_posted) {
  prepare(gp_, tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<uint8_t*>(&v), len);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  bus->b_transport(gp_, d);
  if (!gp_.is_response_ok()) sim_abort(fmt::format("accelerator driver: bus error at address {:#x}", addr));
  if (non_posted) Calendar::get().wait_for(d.value());
}

// ---------------------------------------------------------------- bring-up

// As the PCI core enables a function: class check, BAR0 sized and placed,
// memory decoding and bus mastering, MSI-X with vector k routed to core k.
void AcceleratorDriver::pci_enable() {
  auto cfg = [this](uint32_t off, unsigned len) { return static_cast<uint32_t>(read(config_ + off, len)); };
  auto set = [this](uint32_t off, uint32_t v, unsigned len) { write(config_ + off, v, len, true); };
  if ((cfg(0x00, 4) & 0xFFFF) == 0xFFFF) fail("no PCI function answers at the accelerator's configuration address");
  if (uint32_t cls = cfg(0x08, 4) >> 8; cls >> 16 != 0x12)
    fail(fmt::format("PCI function has class {:06x}, not a processing accelerator (12xxxx)", cls));
  set(0x10, 0xFFFFFFFFu, 4);
  set(0x14, 0xFFFFFFFFu, 4);
  uint64_t size = ~((cfg(0x10, 4) | uint64_t(cfg(0x14, 4)) << 32) & ~0xFull) + 1;
  if (size < regs::queue_window(regs::kMaxQueues))
    fail(fmt::format("BAR0 of {} bytes cannot hold the accelerator's registers and queue windows", size));
  set(0x10, static_cast<uint32_t>(bar0_) | 0x4, 4);
  set(0x14, static_cast<uint32_t>(bar0_ >> 32), 4);
  uint32_t msix = 0;
  for (uint32_t p = cfg(0x34, 1) & 0xFC, hops = 0; p && hops < 48; ++hops) {
    uint32_t hdr = cfg(p, 2);
    if ((hdr & 0xFF) == 0x11) msix = p;
    p = (hdr >> 8) & 0xFC;
  }
  const auto cores = static_cast<uint32_t>(q_.size());
  if (!msix || (cfg(msix + 2, 2) & 0x7FF) + 1 < cores) fail("the accelerator has no MSI-X vector per core");
  uint32_t table = cfg(msix + 4, 4);
  if ((table & 7) != 0) fail("the accelerator's MSI-X table is not in BAR0");
  irq_base_ = irqs_.allocate(cores, 1, *this, name());
  set(0x04, (cfg(0x04, 2) | 0x6u) | 0x400u, 2);
  set(msix + 2, 0x8000, 2);
  for (uint32_t k = 0; k < cores; ++k) {
    uint64_t e = bar0_ + (table & ~7u) + k * nvme::MSIX_ENTRY_SIZE;
    write(e, InterruptController::msi_address(k), 8);
    write(e + 8, irq_base_ + k, 4);
    write(e + 12, 0, 4);
  }
}

void AcceleratorDriver::bring_up(NvmeDriver& nvme, uint16_t first_sq, uint16_t first_cq) {
  const unsigned cores = nvme.cores();
  if (cores > regs::kMaxQueues) fail(fmt::format("{} cores, but the accelerator has {} queues", cores, regs::kMaxQueues));
  q_.resize(cores);
  pci_enable();
  const ControllerInfo& info = nvme.info();
  lba_size_ = info.lba_size;
  uint32_t lba_shift = 0;
  while ((1u << lba_shift) < lba_size_) ++lba_shift;
  // One command's worth: the drive's largest transfer, and a PRP list slot.
  max_segs_ = kMaxSegs;
  max_bytes_ = regs::kMaxPrpEntries * kPage;
  if (info.max_transfer) max_bytes_ = std::min(max_bytes_, info.max_transfer);
  write(bar0_ + regs::LBA_SHIFT, lba_shift, 8);
  write(bar0_ + regs::MAX_TRANSFER, max_bytes_, 8);
  write(bar0_ + regs::NSID, 1, 8);
  for (unsigned k = 0; k < cores; ++k) {
    Queue& q = q_[k];
    const auto cqid = static_cast<uint16_t>(first_cq + k);
    q.sqid = static_cast<uint16_t>(first_sq + k);
    const uint64_t win = bar0_ + regs::queue_window(k);
    nvme::Sqe c = nvme::Sqe::make(nvme::ADMIN_CREATE_CQ, 0);
    c.prp1 = win + regs::CQ_OFFSET;
    c.cdw10 = cqid | ((entries_ - 1) << 16);
    c.cdw11 = 1;  // physically contiguous, no interrupts: the accelerator sees each entry land
    if (nvme::Cqe r = nvme.admin(c); r.status())
      fail(fmt::format("Create I/O Completion Queue {} in the accelerator's BAR failed (status {:#x})", cqid,
                       r.status()));
    c = nvme::Sqe::make(nvme::ADMIN_CREATE_SQ, 0);
    c.prp1 = win;
    c.cdw10 = q.sqid | ((entries_ - 1) << 16);
    c.cdw11 = 1 | 1u << 1 | uint32_t(cqid) << 16;  // QPRIO high: latency-critical, as select_isr's poll queues
    if (nvme::Cqe r = nvme.admin(c); r.status())
      fail(fmt::format("Create I/O Submission Queue {} in the accelerator's BAR failed (status {:#x})", q.sqid,
                       r.status()));
    write(bar0_ + regs::QSEL, k, 8);
    write(bar0_ + regs::Q_SQ_DOORBELL, nvme.sq_doorbell_address(q.sqid), 8);
    write(bar0_ + regs::Q_CQ_DOORBELL, nvme.cq_doorbell_address(cqid), 8);
    write(bar0_ + regs::Q_ENTRIES, entries_, 8);
    write(bar0_ + regs::Q_VECTOR, polled_ ? regs::Q_NO_VECTOR : k, 8);
    write(bar0_ + regs::Q_ENABLE, 1, 8);
    try {
      q.segs = memory_.alloc("accelerator segment lists", uint64_t(entries_) * kMaxSegs * kSegBytes);
    } catch (const HostMemoryError& e) {
      fail(fmt::format("host.dram.size is too small for the accelerator's segment lists ({})", e.what()));
    }
    q.by_tag.assign(entries_, nullptr);
    for (uint32_t t = entries_; t-- > 0;) q.free_tags.push_back(t);
  }
  // The queues are on once the last write lands: read back behind them.
  read(bar0_ + regs::Q_ENABLE, 8);
  if (polled_ && !waiting_)
    fail("host.accel.completion = poll needs the accelerator's status view (watch_status), which this platform "
         "does not give");
  ready_ = true;
}

// ---------------------------------------------------------------- I/O

bool AcceleratorDriver::takes(const IoRequest& r) {
  if (!ready_ || r.attr == 0 || r.raw) return false;
  bool fits = !r.flush && !r.trim && !r.fua && r.bytes > 0 && r.bytes <= max_bytes_ && r.buf_addr % 4 == 0 &&
              (r.buf_addr + r.bytes - 1) / kPage - r.buf_addr / kPage + 1 <= max_segs_;
  if (!fits) ++normal_path_;
  return fits;
}

void AcceleratorDriver::submit(IoRequest& r, unsigned core) {
  Queue& q = q_[core];
  ++bios_;
  if (q.free_tags.empty()) {
    ++held_;
    q.held.push_back(&r);
    return;
  }
  uint32_t tag = q.free_tags.back();
  q.free_tags.pop_back();
  send(r, core, tag);
}

void AcceleratorDriver::send(IoRequest& r, unsigned core, uint32_t tag) {
  Queue& q = q_[core];
  q.by_tag[tag] = &r;
  // bi_io_vec: the piece up to the first page boundary, then page by page.
  uint64_t list = q.segs + uint64_t(tag) * kMaxSegs * kSegBytes;
  uint8_t* p = nvme_.host_ptr(list);
  uint32_t n = 0;
  for (uint64_t a = r.buf_addr, end = r.buf_addr + r.bytes; a < end; ++n) {
    uint64_t next = std::min(end, (a / kPage + 1) * kPage);
    uint32_t len = static_cast<uint32_t>(next - a);
    std::memcpy(p + n * kSegBytes, &a, 8);
    std::memcpy(p + n * kSegBytes + 8, &len, 4);
    std::memset(p + n * kSegBytes + 12, 0, 4);
    a = next;
  }
  r.clock.mark(Stage::DriverQueue, now_ps());
  write(bar0_ + regs::BIO_OP, r.write ? 1 : 0, 8);
  write(bar0_ + regs::BIO_SLBA, r.lba, 8);
  write(bar0_ + regs::BIO_BYTES, r.bytes, 8);
  write(bar0_ + regs::BIO_SEGS, list, 8);
  write(bar0_ + regs::BIO_NSEG, n, 8);
  write(bar0_ + regs::BIO_TAG, uint64_t(core) << 16 | tag, 8);
  write(bar0_ + regs::BIO_QUEUE, core, 8);
  write(bar0_ + regs::BIO_GO, 1, 8);
}

void AcceleratorDriver::handle_irq(uint32_t vector, std::vector<IoRequest*>& done) {
  if (vector < q_.size()) reap(vector, done);
}

void AcceleratorDriver::reap(unsigned vector, std::vector<IoRequest*>& done) {
  Queue& q = q_[vector];
  uint16_t last_slot = 0xFFFF;
  uint64_t serial = 0;
  for (;;) {
    uint64_t v = read(bar0_ + regs::DONE_Q(vector), 8);
    ++done_reads_;
    if (!(v & regs::DONE_VALID)) break;
    uint32_t tag = regs::done_tag(v) & 0xFFFF;
    IoRequest* r = (regs::done_tag(v) >> 16) == vector && tag < q.by_tag.size() ? q.by_tag[tag] : nullptr;
    if (!r) {
      sim_abort(fmt::format("accelerator driver: completion for unknown tag {:#x} on queue {}", regs::done_tag(v),
                            vector));
      return;
    }
    q.by_tag[tag] = nullptr;
    q.free_tags.push_back(tag);
    // The bios one command carried come back together: one serial for them.
    uint16_t slot = regs::done_slot(v);
    if (slot != last_slot) serial = svc_.tracker.issue(q.sqid, slot);
    last_slot = slot;
    r->sqid = q.sqid;
    r->cid = slot;
    r->command = serial;
    r->status = regs::done_status(v);
    done.push_back(r);
    if (!(v & regs::DONE_MORE)) break;
  }
  while (!q.held.empty() && !q.free_tags.empty()) {
    IoRequest* r = q.held.front();
    q.held.pop_front();
    uint32_t tag = q.free_tags.back();
    q.free_tags.pop_back();
    send(*r, vector, tag);
  }
}

}  // namespace vp::host
