// SPDX-License-Identifier: BSD-3-Clause
#include "vp/accel/IoAccelerator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "vp/nvme/NvmeSpec.hpp"

namespace vp::accel {

using namespace regs;

void IoAccelerator::declare_params(const ParamScope& r, const ParamScope& pci) {
  // The paper gives no timing. Basis: an FPGA-class design at 250 MHz, the
  // user clock of a PCIe Gen3 x8 hard block (Xilinx UltraScale+), with a
  // 64-bit datapath: a 64-byte command is 8 beats, one PRP entry one beat;
  // the CAM compares every slot at once and encodes the match in 2 cycles.
  r.freq("clock", "250MHz", "the accelerator's logic clock; the step costs below are in its cycles");
  r.integer("register_cycles", 1, "latching a bio's registers on the go write").range(0, 1 << 20);
  r.integer("cam_cycles", 2, "one search of an SQ's LBA CAM (every slot compared at once)").range(0, 1 << 20);
  r.integer("merge_cycles", 4, "merging a bio into a slot's command (CDW12 and PRP2 rewritten), barrier held")
      .range(0, 1 << 20);
  r.integer("compose_cycles", 8, "composing a 64-byte NVMe command at the SQ tail (8 beats of 64 bits)")
      .range(0, 1 << 20);
  r.integer("prp_entry_cycles", 1, "writing one PRP list entry").range(0, 1 << 20);
  r.integer("poll_cycles", 2, "the CQ logic noticing a completion entry's phase tag once it lands").range(0, 1 << 20);
  r.choice("irq_per", "bio", {"bio", "command"},
           "MSI-X messages to the host: one per completed bio, or one per completed command (the bios it carried)");
  pcie::PciIdentity id;
  id.vendor_id = regs::VENDOR_ID;
  id.device_id = regs::DEVICE_ID;
  id.revision = 0x01;
  id.subsystem_vendor_id = regs::VENDOR_ID;
  id.subsystem_id = 0x0007;
  id.class_code = regs::CLASS_CODE;
  pcie::PciConfigSpace::declare_params(pci, id);
}

namespace {
pcie::PciIdentity accel_identity(const ScopedConfig& pci) {
  pcie::PciIdentity base;
  base.class_code = regs::CLASS_CODE;
  return pcie::PciConfigSpace::identity_from(pci, base);
}

pcie::PciFunctionShape accel_shape(const ScopedConfig& pci, const pcie::LinkTiming& link) {
  pcie::PciFunctionShape s = pcie::PciConfigSpace::shape_from(pci);
  s.bar0_size = BAR0_SIZE;
  s.msix_vectors = kMaxQueues + 1;
  s.max_payload_supported = link.max_payload;
  s.link_speed = link.generation;
  s.link_width = link.lanes;
  return s;
}

Tick cycles(const ScopedConfig& c, const char* key) {
  return static_cast<Tick>(std::llround(double(c.get_int(key)) * 1e12 / c.get_freq("clock")));
}
}  // namespace

IoAccelerator::Stats::Stats(const StatGroup& stats)
    : bios(stats.counter("bios", "bios", "bios the driver handed to the accelerator")),
      commands(stats.counter("commands", "commands", "NVMe commands composed")),
      merges(stats.counter("merges", "bios", "bios merged into a command not yet fetched")),
      cam_hits(stats.counter("cam_hits", "searches", "CAM searches that found an adjacent unfetched command")),
      barrier_waits(stats.counter("barrier_waits", "fetches", "SSD fetches that waited for a merge (the barrier)")),
      barrier_wait_ps(stats.counter("barrier_wait_ps", "ps", "time fetches waited, summed")),
      polls(stats.counter("polls", "entries", "completion entries the CQ logic detected")),
      irqs(stats.counter("interrupts", "messages", "MSI-X messages raised to the host")),
      hazard_waits(stats.counter("hazard_waits", "bios", "bios held behind an overlapping command not completed")),
      full_waits(stats.counter("full_waits", "bios", "bios held for room in a full SQ or for the tail slot's command to complete")),
      errors(stats.counter("errors", "bios", "bios refused (bad queue, segments or size)")) {}

IoAccelerator::IoAccelerator(sc_core::sc_module_name name, Services& svc, const pcie::LinkTiming& link,
                             const std::string& scope, const std::string& pci_scope)
    : PciFunction(name, accel_identity(ScopedConfig(svc.cfg, pci_scope)),
                  accel_shape(ScopedConfig(svc.cfg, pci_scope), link), StatGroup(svc.stats, scope)),
      cfg_(svc.cfg, scope),
      stats_(svc.stats, scope),
      t_register_(cycles(cfg_, "register_cycles")),
      t_cam_(cycles(cfg_, "cam_cycles")),
      t_merge_(cycles(cfg_, "merge_cycles")),
      t_compose_(cycles(cfg_, "compose_cycles")),
      t_prp_entry_(cycles(cfg_, "prp_entry_cycles")),
      t_poll_(cycles(cfg_, "poll_cycles")),
      irq_per_bio_(cfg_.is("irq_per", "bio")),
      q_(kMaxQueues),
      st_(stats_) {
  stats_.section("accel", "the accelerator: segment lists, merges, its queues and interrupts", [this] { return summary(); });
  if (svc.waves.enabled()) {
    svc.waves.trace(cam_valid_, Waves::signal_name(scope, "cam_valid"), Waves::group_name(scope));
    svc.waves.trace(barrier_merge_, Waves::signal_name(scope, "barrier_merge"), Waves::group_name(scope));
  }
}

void IoAccelerator::count_valid() {
  cam_valid_ = 0;
  for (const Queue& q : q_) cam_valid_ += q.on ? q.cam.valid() : 0;
}

nlohmann::json IoAccelerator::summary() const {
  return {{"bios", st_.bios.value},
          {"commands", st_.commands.value},
          {"merges", st_.merges.value},
          {"cam_hits", st_.cam_hits.value},
          {"barrier_waits", st_.barrier_waits.value},
          {"barrier_wait_us", double(st_.barrier_wait_ps.value) / 1e6},
          {"polls", st_.polls.value},
          {"interrupts", st_.irqs.value},
          {"hazard_waits", st_.hazard_waits.value},
          {"full_waits", st_.full_waits.value},
          {"errors", st_.errors.value}};
}

// ---------------------------------------------------------------- registers

uint64_t IoAccelerator::bar_read(uint32_t off, unsigned) {
  const Queue& q = q_[qsel_];
  switch (off) {
    case DONE: return pop_done(oldest_done());
    case IN_FLIGHT: return in_flight_;
    case QSEL: return qsel_;
    case Q_SQ_DOORBELL: return q.sq_doorbell;
    case Q_CQ_DOORBELL: return q.cq_doorbell;
    case Q_ENTRIES: return q.entries;
    case Q_VECTOR: return q.vector;
    case Q_ENABLE: return q.on;
    case LBA_SHIFT: return lba_shift_;
    case MAX_TRANSFER: return max_transfer_;
    case NSID: return nsid_;
    default:
      if (off >= DONE_Q_BASE && off < DONE_Q(kMaxQueues) && off % 8 == 0) return pop_done((off - DONE_Q_BASE) / 8);
      return 0;
  }
}

uint32_t IoAccelerator::oldest_done() const {
  uint32_t best = 0;
  for (uint32_t i = 1; i < kMaxQueues; ++i)
    if (!q_[i].done.empty() && (q_[best].done.empty() || q_[i].done.front().first < q_[best].done.front().first))
      best = i;
  return best;
}

uint64_t IoAccelerator::pop_done(uint32_t qid) {
  auto& d = q_[qid].done;
  if (d.empty()) return 0;
  uint64_t v = d.front().second;
  d.pop_front();
  return v | (d.empty() ? 0 : DONE_MORE);
}

void IoAccelerator::bar_write(uint32_t off, uint64_t v, unsigned) {
  switch (off) {
    case BIO_OP: latch_.write = v == 1; return;
    case BIO_SLBA: latch_.slba = v; return;
    case BIO_BYTES: latch_.bytes = static_cast<uint32_t>(v); return;
    case BIO_SEGS: latch_.segs_addr = v; return;
    case BIO_NSEG: latch_.nseg = static_cast<uint32_t>(v); return;
    case BIO_TAG: latch_.tag = static_cast<uint32_t>(v); return;
    case BIO_QUEUE: latch_.queue = static_cast<uint32_t>(v); return;
    case BIO_GO:
      in_.push_back(latch());
      ++st_.bios;
      ++in_flight_;
      if (!working_) {
        working_ = true;
        eq_.after(0, [this] { next(); });
      }
      return;
    case QSEL: qsel_ = static_cast<uint32_t>(std::min<uint64_t>(v, kMaxQueues - 1)); return;
    case LBA_SHIFT: lba_shift_ = static_cast<uint32_t>(std::clamp<uint64_t>(v, 9, 16)); return;
    case MAX_TRANSFER: max_transfer_ = static_cast<uint32_t>(v); return;
    case NSID: nsid_ = static_cast<uint32_t>(v); return;
    default: queue_register(off, v);
  }
}

void IoAccelerator::queue_register(uint32_t off, uint64_t v) {
  Queue& q = q_[qsel_];
  switch (off) {
    case Q_SQ_DOORBELL: q.sq_doorbell = v; break;
    case Q_CQ_DOORBELL: q.cq_doorbell = v; break;
    case Q_ENTRIES:
      if (!q.on) q.entries = static_cast<uint32_t>(std::clamp<uint64_t>(v, 2, kMaxEntries));
      break;
    case Q_VECTOR: q.vector = static_cast<uint16_t>(v == Q_NO_VECTOR ? Q_NO_VECTOR : std::min<uint64_t>(v, kMaxQueues)); break;
    case Q_ENABLE:
      if (v & 1) {
        if (q.on || q.entries < 2) break;
        q.on = true;
        q.tail = q.head = q.cq_head = 0;
        q.phase = true;
        q.cam = SqCam(q.entries);
        q.sq.assign(size_t(q.entries) * 64, 0);
        q.cq.assign(size_t(q.entries) * 16, 0);
        q.prp.assign(size_t(q.entries) * kMaxPrpEntries, 0);
        q.held.clear();
        q.barrier_until = 0;
      } else {
        q.on = false;
      }
      break;
    default: break;
  }
}

void IoAccelerator::device_reset(pcie::PciConfigSpace::Reset) {
  q_.assign(kMaxQueues, Queue{});
  qsel_ = 0;
  in_.clear();
  in_flight_ = 0;
}

// ---------------------------------------------------------------- the merge logic

IoAccelerator::Pending IoAccelerator::latch() {
  Pending p{latch_, {}, 0, false};
  const Bio& b = p.bio;
  Tick d = t_register_;
  std::vector<uint8_t> raw(size_t(b.nseg) * SEG_BYTES);
  p.bad = b.nseg == 0 || b.nseg > kMaxSegs ||
          !dma_access(tlm::TLM_READ_COMMAND, b.segs_addr, raw.data(), static_cast<uint32_t>(raw.size()), d);
  for (uint32_t i = 0; i < b.nseg && !p.bad; ++i) {
    BioSeg s;
    std::memcpy(&s.addr, &raw[i * SEG_BYTES], 8);
    std::memcpy(&s.len, &raw[i * SEG_BYTES + 8], 4);
    p.segs.push_back(s);
  }
  p.ready = now_ps() + d;
  return p;
}

void IoAccelerator::next() {
  if (in_.empty()) {
    working_ = false;
    return;
  }
  Pending p = std::move(in_.front());
  in_.pop_front();
  eq_.at(p.ready, [this, p = std::move(p)]() mutable { place(std::move(p)); });
}

// The PRP rule: the data may start anywhere dword aligned, a segment that is
// followed by another ends on a page boundary, one that follows another
// starts on one.
bool IoAccelerator::segments_ok(const std::vector<BioSeg>& segs, uint32_t bytes) const {
  uint64_t sum = 0;
  for (size_t i = 0; i < segs.size(); ++i) {
    const BioSeg& s = segs[i];
    if (s.len == 0 || (i == 0 && s.addr % 4) || (i > 0 && s.addr % kPage) ||
        (i + 1 < segs.size() && (s.addr + s.len) % kPage))
      return false;
    sum += s.len;
  }
  return sum == bytes && bytes > 0 && bytes % (1u << lba_shift_) == 0 && bytes <= max_transfer_ &&
         pages(segs) - 1 <= kMaxPrpEntries;
}

uint32_t IoAccelerator::pages(const std::vector<BioSeg>& segs) const {
  uint32_t n = 0;
  for (const BioSeg& s : segs) n += static_cast<uint32_t>((s.addr + s.len - 1) / kPage - s.addr / kPage + 1);
  return n;
}

void IoAccelerator::place(Pending p) {
  const Bio& b = p.bio;
  if (p.bad || b.queue >= kMaxQueues || !q_[b.queue].on || !segments_ok(p.segs, b.bytes)) {
    ++st_.errors;
    finish_bio(b.queue < kMaxQueues ? b.queue : 0, b.tag, nvme::status(nvme::SCT_GENERIC, nvme::SC_INVALID_FIELD, true),
               0);
    return next();
  }
  Queue& q = q_[b.queue];
  uint32_t nlb = b.bytes >> lba_shift_;
  if (q.cam.overlaps(b.slba, nlb)) {  // one buffer per LBA: wait for that command
    ++st_.hazard_waits;
    q.held.push_back(std::move(p));
    return eq_.after(t_cam_, [this] { next(); });
  }
  SqCam::Hit hit = q.cam.adjacent(b.write, b.slba, nlb, q.head);
  if (hit.slot >= 0) {
    ++st_.cam_hits;
    auto slot = static_cast<uint32_t>(hit.slot);
    SqCam::Entry& e = q.cam.at(slot);
    std::vector<BioSeg> joined = hit.front ? p.segs : e.segs;
    const std::vector<BioSeg>& rest = hit.front ? e.segs : p.segs;
    joined.insert(joined.end(), rest.begin(), rest.end());
    uint32_t total = (e.nlb + nlb) << lba_shift_;
    if (segments_ok(joined, total)) {
      ++st_.merges;
      e.segs = std::move(joined);
      e.nlb += nlb;
      if (hit.front) {
        e.slba = b.slba;
        e.tags.insert(e.tags.begin(), b.tag);
      } else {
        e.tags.push_back(b.tag);
      }
      write_sqe(q, slot);
      // The SQ is the merge logic's until the command is rewritten.
      Tick hold = t_cam_ + t_merge_ + pages(p.segs) * t_prp_entry_;
      q.barrier_until = std::max(q.barrier_until, now_ps() + hold);
      barrier_merge_ = true;
      barrier_release_ = std::max(barrier_release_, now_ps() + hold);
      eq_.after(hold, [this] {
        if (now_ps() >= barrier_release_) barrier_merge_ = false;
      });
      return eq_.after(hold, [this] { next(); });
    }
  }
  // Full, or the tail slot's command fetched and not completed: its id is still the SSD's.
  if ((q.tail + 1) % q.entries == q.head || q.cam.at(q.tail).busy) {
    ++st_.full_waits;
    q.held.push_back(std::move(p));
    return eq_.after(t_cam_, [this] { next(); });
  }
  uint32_t slot = q.tail;
  SqCam::Entry& e = q.cam.at(slot);
  e = SqCam::Entry{true, true, b.write, b.slba, nlb, std::move(p.segs), {b.tag}};
  write_sqe(q, slot);
  q.tail = (q.tail + 1) % q.entries;
  ++st_.commands;
  count_valid();
  Tick t = t_cam_ + t_compose_ + (pages(e.segs) - 1) * t_prp_entry_;
  uint32_t qid = b.queue;
  eq_.after(t, [this, qid] {
    ring(q_[qid].sq_doorbell, q_[qid].tail);
    next();
  });
}

uint32_t IoAccelerator::build_prps(Queue& q, uint32_t slot, const std::vector<BioSeg>& segs, uint64_t& prp1,
                                   uint64_t& prp2) {
  std::vector<uint64_t> more;  // the pages after the first
  for (size_t i = 0; i < segs.size(); ++i)
    for (uint64_t a = segs[i].addr / kPage * kPage; a < segs[i].addr + segs[i].len; a += kPage)
      if (i > 0 || a != segs[0].addr / kPage * kPage) more.push_back(a);
  prp1 = segs[0].addr;
  prp2 = 0;
  if (more.size() == 1) prp2 = more[0];
  if (more.size() > 1) {
    std::copy(more.begin(), more.end(), q.prp.begin() + size_t(slot) * kMaxPrpEntries);
    uint32_t qid = static_cast<uint32_t>(&q - q_.data());
    prp2 = pci_.bar0_address() + queue_window(qid) + PRP_OFFSET + uint64_t(slot) * PRP_SLOT;
  }
  return static_cast<uint32_t>(more.size());
}

void IoAccelerator::write_sqe(Queue& q, uint32_t slot) {
  const SqCam::Entry& e = q.cam.at(slot);
  nvme::Sqe c = nvme::Sqe::make(e.write ? nvme::IO_WRITE : nvme::IO_READ, static_cast<uint16_t>(slot));
  c.nsid = nsid_;
  c.cdw2 = 1;  // FlashShare's workload attribute: the accelerator serves latency-critical bios
  build_prps(q, slot, e.segs, c.prp1, c.prp2);
  c.cdw10 = static_cast<uint32_t>(e.slba);
  c.cdw11 = static_cast<uint32_t>(e.slba >> 32);
  c.cdw12 = e.nlb - 1;
  std::memcpy(&q.sq[size_t(slot) * 64], &c, 64);
}

void IoAccelerator::ring(uint64_t doorbell, uint32_t value) {
  Tick d = 0;
  dma_access(tlm::TLM_WRITE_COMMAND, doorbell, reinterpret_cast<uint8_t*>(&value), 4, d);  // peer to peer
}

// ---------------------------------------------------------------- the SSD's side of the window

bool IoAccelerator::in_memory(uint64_t off, unsigned len) const {
  if (off < QUEUE_WINDOW) return false;
  uint64_t rel = (off - QUEUE_WINDOW) % QUEUE_STRIDE;
  return (off - QUEUE_WINDOW) / QUEUE_STRIDE < kMaxQueues && rel + len <= QUEUE_STRIDE;
}

void IoAccelerator::memory_read(uint64_t off, uint8_t* p, unsigned len, sc_core::sc_time& delay) {
  std::memset(p, 0, len);
  Queue& q = q_[(off - QUEUE_WINDOW) / QUEUE_STRIDE];
  uint64_t rel = (off - QUEUE_WINDOW) % QUEUE_STRIDE;
  auto copy = [&](const void* src, size_t size, uint64_t at) {
    if (at < size) std::memcpy(p, static_cast<const uint8_t*>(src) + at, std::min<size_t>(len, size - at));
  };
  if (rel < CQ_OFFSET) {  // the SSD fetches commands: the barrier, then the status bits clear
    Tick now = now_ps(), arrive = now + delay.value();
    if (q.barrier_until > arrive) {
      ++st_.barrier_waits;
      st_.barrier_wait_ps += q.barrier_until - arrive;
      delay = to_sc(q.barrier_until - now);
    }
    copy(q.sq.data(), q.sq.size(), rel);
    if (q.entries) q.cam.fetched(static_cast<uint32_t>(rel / 64) % q.entries, len / 64);
    count_valid();
  } else if (rel < PRP_OFFSET) {
    copy(q.cq.data(), q.cq.size(), rel - CQ_OFFSET);
  } else {
    copy(q.prp.data(), q.prp.size() * 8, rel - PRP_OFFSET);
  }
}

void IoAccelerator::memory_write(uint64_t off, const uint8_t* p, unsigned len) {
  uint32_t qid = static_cast<uint32_t>((off - QUEUE_WINDOW) / QUEUE_STRIDE);
  uint64_t rel = (off - QUEUE_WINDOW) % QUEUE_STRIDE;
  if (rel < CQ_OFFSET || rel >= PRP_OFFSET || rel - CQ_OFFSET + len > q_[qid].cq.size()) return;  // only the SSD's completions
  if (write_arrival() > now_ps()) {
    // A host read landed the entry ahead of its arrival: the CQ logic sees it
    // when it arrives, after the data the SSD sent before it.
    std::vector<uint8_t> bytes(p, p + len);
    eq_.at(write_arrival(), [this, qid, at = rel - CQ_OFFSET, bytes = std::move(bytes)] {
      cq_landed(qid, at, bytes.data(), static_cast<unsigned>(bytes.size()));
    });
    return;
  }
  cq_landed(qid, rel - CQ_OFFSET, p, len);
}

void IoAccelerator::cq_landed(uint32_t qid, uint64_t at, const uint8_t* p, unsigned len) {
  Queue& q = q_[qid];
  if (at + len > q.cq.size()) return;  // the queue was reset meanwhile
  std::memcpy(&q.cq[at], p, len);
  if (!q.reaping) {
    q.reaping = true;
    eq_.after(t_poll_, [this, qid] { reap(qid); });
  }
}

void IoAccelerator::reap(uint32_t qid) {
  Queue& q = q_[qid];
  q.reaping = false;
  bool any = false;
  for (;;) {
    nvme::Cqe e;
    std::memcpy(&e, &q.cq[size_t(q.cq_head) * 16], 16);
    if (e.phase() != q.phase) break;
    any = true;
    ++st_.polls;
    if (e.cid < q.entries) {
      SqCam::Entry& en = q.cam.at(e.cid);
      for (uint32_t tag : en.tags) finish_bio(qid, tag, e.status(), e.cid);
      if (!irq_per_bio_ && !en.tags.empty() && q.vector != Q_NO_VECTOR) {
        signals_.signal(q.vector, 0);
        ++st_.irqs;
      }
      en = SqCam::Entry{};
    }
    q.head = e.sq_head % q.entries;
    if (++q.cq_head == q.entries) {
      q.cq_head = 0;
      q.phase = !q.phase;
    }
  }
  if (!any) return;
  ring(q.cq_doorbell, q.cq_head);
  retry_held(q);
}

void IoAccelerator::finish_bio(uint32_t qid, uint32_t tag, uint16_t status, uint16_t slot) {
  q_[qid].done.emplace_back(done_serial_++,
                            DONE_VALID | uint64_t(slot & 0x7FFF) << 47 | uint64_t(status & 0x7FFF) << 32 | tag);
  --in_flight_;
  Calendar::get().notify(done_changed_);
  if (irq_per_bio_ && q_[qid].vector != Q_NO_VECTOR) {
    signals_.signal(q_[qid].vector, 0);
    ++st_.irqs;
  }
}

void IoAccelerator::retry_held(Queue& q) {
  if (q.held.empty()) return;
  // Ahead of bios not yet looked at, in the order they came.
  while (!q.held.empty()) {
    in_.push_front(std::move(q.held.back()));
    q.held.pop_back();
  }
  if (!working_) {
    working_ = true;
    eq_.after(0, [this] { next(); });
  }
}

}  // namespace vp::accel
