// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/NvmeController.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "vp/core/Payload.hpp"

namespace vp::ssd {

using namespace vp::nvme;

namespace {
constexpr uint32_t kHostPage = 4096;  // CAP.MPSMIN = MPSMAX = 0

void put16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }
void put32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
void put64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
void put_str(uint8_t* p, const std::string& s, size_t n) {  // space padded, as Identify wants
  std::memset(p, ' ', n);
  std::memcpy(p, s.data(), std::min(n, s.size()));
}
}  // namespace

void NvmeController::declare_params(const ParamScope& r) {
  r.integer("max_io_queues", 64, "I/O submission and completion queues the controller supports")
      .range(1, 1023);
  r.integer("max_queue_entries", 4096, "largest queue the controller accepts (CAP.MQES + 1)")
      .range(2, 65536);
  r.integer("dstrd", 0, "doorbell stride: doorbells are (4 << dstrd) bytes apart (CAP.DSTRD)")
      .range(0, 8);
  r.integer("max_inflight", 256, "commands the controller holds between fetch and completion")
      .range(1, 65536);
  r.integer("mdts", 5, "maximum data transfer size, as a power of two of 4 KiB pages (Identify MDTS)")
      .range(1, 10);
  r.size("lba_size", "4KiB", "logical block size of namespace 1").range(512, 65536);
  r.time("ready_time", "10us", "time from CC.EN changing to CSTS.RDY following it");
  r.time("admin_time", "2us", "controller time to execute one admin command");
  r.string("model", "FlashVP ULL Z-SSD", "model number reported by Identify");
  r.string("serial", "FVP0000000001", "serial number reported by Identify");
  r.integer("fetch_engines", 16,
            "command fetch reads the controller keeps in flight; each arbitration grant is one read")
      .range(1, 1024);
  r.integer("fetch_batch", 8,
            "most commands one fetch read takes from an SQ (bounded by the arbitration burst)")
      .range(1, 64);
  r.integer("arbitration_burst", 0,
            "Arbitration Burst at reset, as the AB field: 2^AB commands per turn, 7 = no limit (also Identify RAB)")
      .range(0, 7);
  r.integer("flashshare.drain_count", 8,
            "FlashShare arbitration (CC.AMS = 111b): a throughput SQ holding more than this many commands is drained")
      .at_least(1);
  r.time("flashshare.drain_age", "200us",
         "FlashShare arbitration: a throughput SQ whose oldest command waited longer than this is drained");
  r.choice("buffer_status_field", "none", {"none", "dw0", "sq_head"},
           "completion field carrying the firmware's write-buffer status (FastDrain overrides sq_head; dw0 is "
           "reserved for Read/Write, so it leaves SQ flow control intact)");
  r.choice("buffer_status_force", "firmware", {"firmware", "full", "drained", "between"},
           "what-if knob for host-side FastDrain studies: report this write-buffer state in every successful I/O "
           "completion instead of the firmware's (full 100%, between 50%, drained 0% occupancy), until a buffered "
           "firmware reports real status");
  r.rule([](const ScopedConfig& c) {
    if (!c.is("buffer_status_force", "firmware") &&
        c.is("buffer_status_field", "none"))
      c.fail({"buffer_status_force", "buffer_status_field"},
             "a forced buffer status needs a completion field to go in");
    uint64_t lba = c.get_size("lba_size");
    if ((lba & (lba - 1)) != 0) c.fail("lba_size", "must be a power of two");
    uint64_t doorbells = 2 * uint64_t(c.get_int("max_io_queues") + 1) * (4u << c.get_int("dstrd"));
    if (DOORBELL_BASE + doorbells > MSIX_TABLE)
      c.fail({"dstrd", "max_io_queues"},
             fmt::format("{} queue pairs with a {}-byte stride do not fit BAR0's doorbell area",
                         c.get_int("max_io_queues") + 1, 4u << c.get_int("dstrd")));
  });
}

namespace {
pcie::PciFunctionShape function_shape(const ScopedConfig& c, const ScopedConfig& pci, const pcie::LinkTiming& link) {
  pcie::PciFunctionShape s = pcie::PciConfigSpace::shape_from(pci);
  s.bar0_size = BAR0_SIZE;
  s.msix_vectors = static_cast<uint32_t>(c.get_int("max_io_queues")) + 1;  // one per queue pair
  s.msix_table_offset = MSIX_TABLE;
  s.msix_pba_offset = MSIX_PBA;
  s.max_payload_supported = link.max_payload;
  s.link_speed = link.generation;
  s.link_width = link.lanes;
  return s;
}
}  // namespace

NvmeController::NvmeController(sc_core::sc_module_name name, Services& svc, const pcie::LinkTiming& link,
                               const std::string& scope, const std::string& pci_scope)
    : PciFunction(name, pcie::PciConfigSpace::identity_from(ScopedConfig(svc.cfg, pci_scope)),
                  function_shape(ScopedConfig(svc.cfg, scope), ScopedConfig(svc.cfg, pci_scope), link),
                  StatGroup(svc.stats, scope)),
      fw("fw"),
      dma_fn_([this](tlm::tlm_command cmd, uint64_t addr, uint8_t* p, uint32_t len, Tick& delay) {
        return dma_access(cmd, addr, p, len, delay);
      }),
      svc_(svc),
      cfg_(svc.cfg, scope),
      stats_(svc.stats, scope),
      irq_(eq_, signals_, stats_),
      arb_(static_cast<uint16_t>(cfg_.get_int("max_io_queues"))),
      max_queues_(static_cast<uint32_t>(cfg_.get_int("max_io_queues"))),
      max_entries_(static_cast<uint32_t>(cfg_.get_int("max_queue_entries"))),
      dstrd_(static_cast<uint32_t>(cfg_.get_int("dstrd"))),
      mdts_(static_cast<uint32_t>(cfg_.get_int("mdts"))),
      lba_size_(static_cast<uint32_t>(cfg_.get_size("lba_size"))),
      fetch_engines_(static_cast<uint32_t>(cfg_.get_int("fetch_engines"))),
      fetch_batch_(static_cast<uint32_t>(cfg_.get_int("fetch_batch"))),
      ready_time_(cfg_.get_time("ready_time")),
      admin_time_(cfg_.get_time("admin_time")),
      drain_age_(cfg_.get_time("flashshare.drain_age")),
      drain_count_(static_cast<uint32_t>(cfg_.get_int("flashshare.drain_count"))),
      model_(cfg_.get_string("model")),
      serial_(cfg_.get_string("serial")),
      buffer_status_field_(cfg_.get_enum<StatusField>(
          "buffer_status_field",
          {{"none", StatusField::None}, {"dw0", StatusField::Dw0}, {"sq_head", StatusField::SqHead}})),
      forced_status_(cfg_.get_enum<uint32_t>("buffer_status_force",
                                                {{"firmware", 0},
                                                 {"full", buffer_status(BUF_FULL, 100)},
                                                 {"between", buffer_status(BUF_BETWEEN, 50)},
                                                 {"drained", buffer_status(BUF_DRAINED, 0)}})),
      sqs_(max_queues_ + 1),
      cqs_(max_queues_ + 1),
      slots_(static_cast<size_t>(cfg_.get_int("max_inflight"))),
      sq_occupancy_(max_queues_ + 1, 0),
      io_cmds_(stats_.counter("io_commands", "commands", "I/O commands completed")),
      admin_cmds_(stats_.counter("admin_commands", "commands", "admin commands completed")),
      errors_(stats_.counter("error_completions", "commands", "errors logged: commands completed with an error status, bad doorbell writes, keep alive expiry")),
      doorbells_(stats_.counter("doorbell_writes", "writes", "doorbell register writes")),
      bytes_read_(stats_.counter("bytes_read", "bytes", "bytes read by the host")),
      bytes_written_(stats_.counter("bytes_written", "bytes", "bytes written by the host")),
      read_cmds_(stats_.counter("read_commands", "commands", "Read commands accepted")),
      write_cmds_(stats_.counter("write_commands", "commands", "Write commands accepted")),
      fetch_reads_(stats_.counter("fetch_reads", "reads", "command fetch reads (one per arbitration grant)")),
      events_(stats_.counter("async_events", "events", "asynchronous events reported")) {
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    slots_[i].hc.slot = i;
    slots_[i].hc.client = this;
    free_slots_.push_back(static_cast<uint32_t>(slots_.size()) - 1 - i);
  }
  shutdown_flush_.op = IoOp::Flush;
  shutdown_flush_.client = this;
  shutdown_flush_.slot = kShutdownSlot;
  reset_queues();
  if (svc.waves.enabled()) {
    for (uint32_t q = 0; q <= std::min<uint32_t>(max_queues_, 8); ++q)
      svc.waves.trace(sq_occupancy_[q], fmt::format("nvme_sq{}_occupancy", q), "nvme queues");
    svc.waves.trace(doorbell_writes_, "nvme_doorbell_writes", "nvme queues");
    svc.waves.trace(messages_sent_, "nvme_interrupts_sent", "nvme queues");
  }
}

uint64_t NvmeController::namespace_lbas() const { return fw->capacity_bytes() / lba_size_; }

void NvmeController::device_reset(pcie::PciConfigSpace::Reset) {
  reset_queues();
  cc_ = csts_ = aqa_ = 0;
  asq_ = acq_ = 0;
}

void NvmeController::config_changed(pcie::PciConfigSpace::Change c) {
  using C = pcie::PciConfigSpace::Change;
  if (c == C::FunctionLevelReset) {
    reset_queues();
    cc_ = csts_ = 0;
    return;
  }
  irq_.config_changed();
  if (irq_.pin_based()) irq_.cq_level(cq_entries_outstanding(), 0);  // the pin now follows the CQs
  if (c == C::Command) fetch();  // bus mastering may just have been granted
}

// ---------------------------------------------------------------- registers

// The MSI-X table and PBA are the function's (PciFunction serves them);
// the rest of the table's range and beyond reads 0.
uint64_t NvmeController::bar_read(uint32_t off, unsigned len) {
  uint64_t v = 0;
  uint64_t cap = uint64_t(max_entries_ - 1)   // MQES
                 | (1ull << 16)               // CQR: queues must be physically contiguous
                 | CAP_AMS_WRR | CAP_AMS_VENDOR  // WRR with urgent class; vendor specific = FlashShare
                 | (20ull << 24)              // TO: 10 s
                 | (uint64_t(dstrd_) << 32)   // DSTRD
                 | (1ull << 37);              // CSS: NVM command set; MPSMIN = MPSMAX = 0 (4 KiB)
  switch (off) {
    case CAP: v = cap; break;
    case CAP + 4: v = cap >> 32; break;
    case VS: v = 0x00010400; break;  // 1.4
    case INTMS: case INTMC: v = irq_.mask(); break;
    case CC: v = cc_; break;
    case CSTS: v = csts_; break;
    case AQA: v = aqa_; break;
    case ASQ: v = asq_; break;
    case ASQ + 4: v = asq_ >> 32; break;
    case ACQ: v = acq_; break;
    case ACQ + 4: v = acq_ >> 32; break;
    default: v = 0; break;  // reserved, and doorbells (write only) read as zero
  }
  return len == 4 ? (v & 0xFFFFFFFFu) : v;
}

void NvmeController::bar_write(uint32_t off, uint64_t v, unsigned len) {
  if (off >= DOORBELL_BASE && off < MSIX_TABLE) {
    doorbell(off, static_cast<uint32_t>(v));
    return;
  }
  auto lo = static_cast<uint32_t>(v);
  switch (off) {
    case INTMS: irq_.mask_set(lo); break;
    case INTMC: irq_.mask_clear(lo); break;
    case CC: {
      bool was = cc_ & CC_EN, now = lo & CC_EN;
      uint32_t old_shn = cc_shn(cc_);
      // While enabled, only EN and SHN change; the rest was fixed at enable.
      cc_ = was && now ? (cc_ & ~(CC_EN | (3u << 14))) | (lo & (CC_EN | (3u << 14))) : lo & 0x00FFFFF1u;
      if (was != now) set_enable(now);
      if (now && cc_shn(cc_) != 0 && old_shn == 0) shutdown();
      break;
    }
    case AQA: aqa_ = lo & 0x0FFF0FFFu; break;
    case ASQ: asq_ = (len == 8 ? v : (asq_ & ~0xFFFFFFFFull) | lo) & ~0xFFFull; break;
    case ASQ + 4: asq_ = (asq_ & 0xFFFFFFFFull) | (uint64_t(lo) << 32); break;
    case ACQ: acq_ = (len == 8 ? v : (acq_ & ~0xFFFFFFFFull) | lo) & ~0xFFFull; break;
    case ACQ + 4: acq_ = (acq_ & 0xFFFFFFFFull) | (uint64_t(lo) << 32); break;
    default: break;  // read-only or reserved: writes are ignored
  }
}

void NvmeController::set_enable(bool en) {
  if (!en) {
    reset_queues();
    eq_.after(ready_time_, [this] { csts_ &= ~CSTS_RDY; });
    return;
  }
  // A controller that cannot run with what the host programmed reports fatal status.
  uint32_t asqs = (aqa_ & 0xFFF) + 1, acqs = ((aqa_ >> 16) & 0xFFF) + 1;
  bool ok = asq_ != 0 && acq_ != 0 && asqs >= 2 && acqs >= 2 && asqs <= max_entries_ && acqs <= max_entries_ &&
            cc_mps(cc_) == 0 && cc_css(cc_) == 0 && ArbiterConfig::mode_from_ams(cc_ams(cc_)).has_value();
  eq_.after(ready_time_, [this, ok, asqs, acqs] {
    if (!(cc_ & CC_EN)) return;  // disabled again before it became ready
    if (!ok) {
      csts_ |= CSTS_CFS;
      return;
    }
    sqs_[0] = SubQueue{true, asq_, asqs, 0, 0, 0, 0};
    cqs_[0] = CompQueue{};
    cqs_[0].valid = true;
    cqs_[0].base = acq_;
    cqs_[0].size = acqs;
    cqs_[0].ien = true;
    configure_arbiter();
    csts_ |= CSTS_RDY;
  });
}

// A controller reset (CC.EN to 0, or a function level reset): queues are
// deleted, commands in flight are forgotten, features return to defaults.
void NvmeController::reset_queues() {
  ++generation_;  // completions of commands from before the reset are dropped
  // Slots no firmware answer will free: held event requests and
  // completions waiting for room in a CQ.
  for (uint32_t s : aer_slots_) free_slot(s);
  for (auto& q : cqs_)
    for (uint32_t s : q.waiting)
      if (!slots_[s].aborted) free_slot(s);
  for (auto& q : sqs_) q = SubQueue{};
  for (auto& q : cqs_) q = CompQueue{};
  std::fill(sq_occupancy_.begin(), sq_occupancy_.end(), 0);
  waiting_ = 0;
  nsq_alloc_ = ncq_alloc_ = 0;
  csts_ &= ~(CSTS_CFS | 0xCu);
  feat_ = Features{};
  feat_.arbitration = static_cast<uint32_t>(cfg_.get_int("arbitration_burst"));
  // The cache is on by default (once the firmware is bound).
  feat_.write_cache = fw.size() && fw->volatile_write_cache();
  if (feat_.write_cache) fw->set_write_cache(true);
  arb_.reset();
  irq_.reset();
  aer_slots_.clear();
  aer_events_.clear();
  error_events_masked_ = false;
  ++keep_alive_gen_;
  shutting_down_ = shutdown_flushing_ = false;
}

void NvmeController::configure_arbiter() {
  ArbiterConfig a;
  a.mode = *ArbiterConfig::mode_from_ams(cc_ams(cc_));
  a.set_arbitration_feature(feat_.arbitration);
  a.drain_count = drain_count_;
  a.drain_age = drain_age_;
  arb_.configure(a);
}

// Shutdown notification: stop fetching, let what was fetched finish, flush
// the firmware's volatile state, then report SHST = complete.
void NvmeController::shutdown() {
  csts_ = (csts_ & ~0xCu) | (SHST_OCCURRING << 2);
  shutting_down_ = true;
  shutdown_when_idle();
}

void NvmeController::shutdown_when_idle() {
  if (!shutting_down_ || shutdown_flushing_ || flush_in_firmware_ ||
      free_slots_.size() < slots_.size() - aer_slots_.size() || fetches_ > 0)
    return;
  shutdown_flushing_ = flush_in_firmware_ = true;
  shutdown_flush_.generation = generation_;
  fw->submit(shutdown_flush_);
}

void NvmeController::doorbell(uint32_t off, uint32_t v) {
  ++doorbells_;
  ++doorbell_writes_;
  if (!(csts_ & CSTS_RDY) || (csts_ & CSTS_CFS)) return;  // a disabled controller ignores doorbells
  uint32_t idx = (off - DOORBELL_BASE) / (4u << dstrd_);
  uint32_t qid = idx / 2;
  bool sq_side = idx % 2 == 0;
  if ((off - DOORBELL_BASE) % (4u << dstrd_) != 0 || qid > max_queues_ ||
      !(sq_side ? sqs_[qid].valid : cqs_[qid].valid))
    return doorbell_error(qid, AER_INVALID_DOORBELL);
  if (sq_side) {
    SubQueue& q = sqs_[qid];
    if (v >= q.size) return doorbell_error(qid, AER_INVALID_DOORBELL_VALUE);
    uint32_t added = (v + q.size - q.tail) % q.size;
    q.tail = v;
    if (added == 0) return;
    waiting_ += added;
    sq_occupancy_[qid] += added;
    arb_.submitted(static_cast<uint16_t>(qid), added, now_ps());
    fetch();
  } else {
    CompQueue& q = cqs_[qid];
    // The head may only move over entries the controller posted.
    uint32_t posted = (q.tail + q.size - q.head) % q.size, moved = (v + q.size - q.head) % q.size;
    if (v >= q.size || moved > posted) return doorbell_error(qid, AER_INVALID_DOORBELL_VALUE);
    q.head = v;
    while (!q.waiting.empty() && (q.tail + 1) % q.size != q.head) {
      uint32_t s = q.waiting.front();
      q.waiting.pop_front();
      post(s, 0);
    }
    if (irq_.pin_based()) irq_.cq_level(cq_entries_outstanding(), 0);  // only the pin needs the level
  }
}

// A bad doorbell write: an entry in the Error Information log (no command:
// CID FFFFh, status 0) and the asynchronous event pointing to it.
void NvmeController::doorbell_error(uint32_t qid, uint8_t info) {
  log_error(static_cast<uint16_t>(std::min<uint32_t>(qid, 0xFFFF)), 0xFFFF, 0, 0, 0);
  raise_event(AER_ERROR, info, LOG_ERROR);
}

void NvmeController::log_error(uint16_t sqid, uint16_t cid, uint16_t st, uint64_t lba, uint32_t nsid) {
  ++errors_;
  error_log_.push_front({errors_.value, sqid, cid, st, lba, nsid});
  if (error_log_.size() > ERROR_LOG_ENTRIES) error_log_.pop_back();
}

bool NvmeController::cq_entries_outstanding() const {
  for (const auto& q : cqs_)
    if (q.valid && q.ien && q.head != q.tail) return true;
  return false;
}

// ---------------------------------------------------------------- fetch

// Each arbitration grant becomes one read of up to `count` consecutive
// entries (two when the run wraps around the end of the queue).
void NvmeController::fetch() {
  while (waiting_ > 0 && fetches_ < fetch_engines_ && !free_slots_.empty() && (csts_ & CSTS_RDY) &&
         !(csts_ & CSTS_CFS) && !shutting_down_ && pci_.bus_master()) {
    auto g = arb_.next(now_ps(), std::min<uint32_t>(fetch_batch_, static_cast<uint32_t>(free_slots_.size())));
    if (!g) break;
    SubQueue& sq = sqs_[g->qid];
    Tick start = now_ps(), delay = 0;
    uint32_t first = sq.head + sq.fetching;
    bool ok = true;
    uint32_t got = 0;
    std::vector<uint32_t> taken;
    taken.reserve(g->count);
    while (got < g->count && ok) {  // up to two reads: to the end of the queue, then from its start
      uint32_t pos = (first + got) % sq.size;
      uint32_t run = std::min(g->count - got, sq.size - pos);
      std::vector<Sqe> buf(run);
      Tick d = 0;
      ok = dma_access(tlm::TLM_READ_COMMAND, sq.base + uint64_t(pos) * sizeof(Sqe),
                      reinterpret_cast<uint8_t*>(buf.data()), run * sizeof(Sqe), d);
      delay = std::max(delay, d);
      for (uint32_t i = 0; i < run && ok; ++i) {
        uint32_t s = free_slots_.back();
        free_slots_.pop_back();
        Slot& sl = slots_[s];
        sl.busy = true;
        sl.aborted = false;
        sl.fetched = start;
        sl.sqe = buf[i];
        sl.sqid = g->qid;
        sl.generation = generation_;
        sl.status = 0;
        sl.dw0 = 0;
        sl.rec = svc_.tracker.device(g->qid, sl.sqe.cid());
        if (sl.rec) {
          sl.rec->clock.start(start);
          sl.rec->valid = true;
        }
        taken.push_back(s);
      }
      got += run;
    }
    ++fetch_reads_;
    if (!ok) {  // the SQ memory is unreachable: nothing sensible can be completed
      csts_ |= CSTS_CFS;
      for (uint32_t s : taken) {
        slots_[s].busy = false;
        free_slots_.push_back(s);
      }
      return;
    }
    sq.fetching += g->count;
    ++fetches_;
    uint16_t qid = g->qid;
    uint64_t gen = generation_;
    eq_.at(start + delay, [this, taken = std::move(taken), qid, gen] {
      --fetches_;
      if (gen == generation_ && sqs_[qid].valid) {
        SubQueue& q = sqs_[qid];
        auto n = static_cast<uint32_t>(taken.size());
        q.head = (q.head + n) % q.size;
        q.fetching -= n;
        sq_occupancy_[qid] -= n;
        waiting_ -= n;
      }
      for (uint32_t s : taken) on_fetched(s, qid);
      fetch();
    });
  }
  // FlashShare: an age guard may fire before anything else wakes the controller.
  Tick t = waiting_ > 0 ? arb_.next_guard_deadline() : SqArbiter::kNoDeadline;
  if (t != SqArbiter::kNoDeadline && t > now_ps() && (guard_wakeup_ <= now_ps() || t < guard_wakeup_)) {
    guard_wakeup_ = t;
    eq_.at(t, [this] { fetch(); });
  }
}

void NvmeController::on_fetched(uint32_t s, uint16_t sqid) {
  Slot& sl = slots_[s];
  if (sl.generation != generation_ || !sqs_[sqid].valid) return release(s);
  if (sl.rec) sl.rec->clock.mark(Stage::Fetch, now_ps());
  if (sl.sqid == 0) {
    eq_.after(admin_time_, [this, s] { execute_admin(s); });
  } else {
    sl.io_counted = true;
    io_busy(true);
    execute_io(s);
  }
}

// ---------------------------------------------------------------- I/O commands

void NvmeController::execute_io(uint32_t s) {
  Slot& sl = slots_[s];
  const Sqe& c = sl.sqe;
  uint8_t op = c.opcode();
  if (op != IO_READ && op != IO_WRITE && op != IO_FLUSH && op != IO_WRITE_ZEROES && op != IO_DSM && op != IO_COMPARE)
    return complete(s, status(SCT_GENERIC, SC_INVALID_OPCODE, true));
  if (op == IO_FLUSH) {
    if (c.nsid != 1 && c.nsid != 0xFFFFFFFFu) return complete(s, status(SCT_GENERIC, SC_INVALID_NAMESPACE, true));
  } else if (c.nsid != 1) {
    return complete(s, status(SCT_GENERIC, SC_INVALID_NAMESPACE, true));
  }
  if ((c.cdw0 >> 8 & 3) != 0 || c.psdt() != 0)  // fused operations and SGLs are not supported
    return complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  HostCommand& hc = sl.hc;
  hc.sqid = sl.sqid;
  hc.cdw2 = c.cdw2;
  hc.cdw3 = c.cdw3;
  hc.attr = c.attr();  // FlashShare's workload attribute (rsvd2)
  hc.victim = c.victim();  // FastDrain's page-victimization tag
  hc.victim_pages = c.victim_pages();
  hc.fua = (op == IO_WRITE || op == IO_READ) && (c.cdw12 & RW_FUA);
  hc.result = 0;
  if (sl.rec) sl.rec->attr = hc.attr;
  sl.steps.clear();
  sl.step = 0;
  sl.compare = op == IO_COMPARE;
  if (op == IO_DSM) return execute_dsm(s);
  if (op == IO_WRITE_ZEROES) return execute_write_zeroes(s);
  if (op == IO_FLUSH) {
    hc.op = IoOp::Flush;
    hc.bytes = 0;
    hc.byte_offset = 0;
    hc.data = nullptr;
    fw->submit(hc);
    return;
  }
  uint64_t slba = c.slba(), nlb = c.nlb();
  if (slba + nlb > namespace_lbas() || slba + nlb < slba)
    return complete(s, status(SCT_GENERIC, SC_LBA_OUT_OF_RANGE, true));
  uint64_t bytes = nlb * lba_size_;
  if (bytes > (uint64_t(kHostPage) << mdts_)) return complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  Tick delay = 0;
  uint16_t st = walk_prps(sl, static_cast<uint32_t>(bytes), delay);
  if (st != 0) return complete(s, st, delay);
  if (sl.buf.size() < bytes) sl.buf.resize(bytes);  // buffers grow to the largest transfer seen
  hc.op = op == IO_WRITE ? IoOp::Write : IoOp::Read;  // a Compare reads the media first
  ++(op == IO_WRITE ? write_cmds_ : read_cmds_);  // SMART counts a Compare as a host read
  hc.byte_offset = slba * lba_size_;
  hc.bytes = static_cast<uint32_t>(bytes);
  hc.data = sl.buf.data();
  ++io_cmds_;
  if (hc.op == IoOp::Write) {
    bytes_written_ += bytes;
    if (!move_data(sl, false, hc.bytes, delay))
      return complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
    // The fetched data lands in the staging buffer before firmware sees the command.
    Tick staged = stage(s, hc.bytes, true, now_ps() + delay);
    eq_.at(staged, [this, s] {
      Slot& w = slots_[s];
      if (w.generation != generation_) return release(s);
      if (w.rec) w.rec->clock.mark(Stage::DataDma, now_ps());
      fw->submit(w.hc);
    });
  } else {
    bytes_read_ += bytes;
    if (delay == 0) return fw->submit(hc);
    eq_.after(delay, [this, s] { fw->submit(slots_[s].hc); });  // PRP list fetched first
  }
}

// Dataset Management: the range list comes by DMA; with the deallocate
// attribute every range is trimmed in the FTL, the others are hints only.
void NvmeController::execute_dsm(uint32_t s) {
  Slot& sl = slots_[s];
  const Sqe& c = sl.sqe;
  uint32_t ranges = (c.cdw10 & 0xFF) + 1, bytes = ranges * DSM_RANGE_SIZE;
  Tick delay = 0;
  uint16_t st = walk_prps(sl, bytes, delay);
  if (st != 0) return complete(s, st, delay);
  if (sl.buf.size() < bytes) sl.buf.resize(bytes);
  if (!move_data(sl, false, bytes, delay)) return complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
  ++io_cmds_;
  // The FTL takes at most 1 GiB per request; a range is split below that.
  const uint64_t piece = (uint64_t(1) << 30) / lba_size_ * lba_size_;
  for (uint32_t r = 0; r < ranges; ++r) {
    const uint8_t* d = sl.buf.data() + r * DSM_RANGE_SIZE;
    uint32_t nlb;
    uint64_t slba;
    std::memcpy(&nlb, d + 4, 4);
    std::memcpy(&slba, d + 8, 8);
    if (nlb == 0) continue;
    if (slba + nlb > namespace_lbas() || slba + nlb < slba)
      return complete(s, status(SCT_GENERIC, SC_LBA_OUT_OF_RANGE, true), delay);
    if (!(c.cdw11 & DSM_AD)) continue;
    for (uint64_t off = slba * lba_size_, end = (slba + nlb) * lba_size_; off < end; off += piece)
      sl.steps.push_back({IoOp::Trim, off, static_cast<uint32_t>(std::min(piece, end - off))});
  }
  if (sl.steps.empty()) return complete(s, 0, delay);
  eq_.after(delay, [this, s] {
    if (slots_[s].generation != generation_) return release(s);
    run_step(s);
  });
}

// Write Zeroes: zeros written like data (durable, unlike a deallocation),
// in MDTS-sized requests; nothing crosses PCIe.
void NvmeController::execute_write_zeroes(uint32_t s) {
  Slot& sl = slots_[s];
  const Sqe& c = sl.sqe;
  uint64_t slba = c.slba(), nlb = c.nlb();
  if (slba + nlb > namespace_lbas() || slba + nlb < slba)
    return complete(s, status(SCT_GENERIC, SC_LBA_OUT_OF_RANGE, true));
  ++io_cmds_;
  const uint64_t piece = uint64_t(kHostPage) << mdts_;
  uint64_t end = (slba + nlb) * lba_size_;
  for (uint64_t off = slba * lba_size_; off < end; off += piece)
    sl.steps.push_back({IoOp::Write, off, static_cast<uint32_t>(std::min(piece, end - off))});
  sl.buf.assign(std::max<size_t>(sl.buf.size(), std::min(piece, end - slba * lba_size_)), 0);
  run_step(s);
}

void NvmeController::run_step(uint32_t s) {
  Slot& sl = slots_[s];
  const Step& st = sl.steps[sl.step];
  sl.hc.op = st.op;
  sl.hc.byte_offset = st.offset;
  sl.hc.bytes = st.bytes;
  sl.hc.data = st.op == IoOp::Write ? sl.buf.data() : nullptr;
  if (st.op == IoOp::Write) bytes_written_ += st.bytes;
  fw->submit(sl.hc);
}

void NvmeController::firmware_issued(HostCommand& hc) {
  if (hc.slot == kShutdownSlot) return;
  Slot& sl = slots_[hc.slot];
  if (sl.rec) sl.rec->clock.mark(Stage::Firmware, now_ps());
}

void NvmeController::firmware_done(HostCommand& hc) {
  uint32_t s = hc.slot;
  if (s == kShutdownSlot) {  // the shutdown flush: everything is durable now
    flush_in_firmware_ = false;
    if (shutdown_flush_.generation == generation_ && shutting_down_)
      csts_ = (csts_ & ~0xCu) | (SHST_COMPLETE << 2);
    else
      shutdown_when_idle();  // a reset came in between; a newer shutdown may be waiting for this one
    return;
  }
  Slot& sl = slots_[s];
  if (sl.generation != generation_ || sl.aborted) return release(s);
  if (!sl.steps.empty() && ++sl.step < sl.steps.size()) return run_step(s);
  if (sl.rec) sl.rec->clock.mark(Stage::Flash, now_ps());
  // The media's data is written into the staging buffer; a read's is then
  // read out of it for the DMA to the host.
  Tick delay = 0;
  if (hc.op == IoOp::Read) delay = stage(s, hc.bytes, true, now_ps()) - now_ps();
  if (sl.compare) {  // fetch the host's data and compare it with the media's
    sl.media.assign(sl.buf.begin(), sl.buf.begin() + hc.bytes);
    if (!move_data(sl, false, hc.bytes, delay)) return complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
    if (sl.rec) sl.rec->clock.mark(Stage::DataDma, now_ps() + delay);
    bool same = std::equal(sl.media.begin(), sl.media.end(), sl.buf.begin());
    return complete(s, same ? 0 : status(SCT_MEDIA, SC_COMPARE_FAILURE), delay);
  }
  if (hc.op == IoOp::Read) {
    delay = stage(s, hc.bytes, false, now_ps() + delay) - now_ps();
    bool ok = move_data(sl, true, hc.bytes, delay);
    if (sl.rec) sl.rec->clock.mark(Stage::DataDma, now_ps() + delay);
    if (!ok) return complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
  }
  // The entry is posted right behind the data; the link keeps them in order.
  complete(s, 0);
}

// ---------------------------------------------------------------- PRPs and DMA

uint64_t NvmeController::staging_slot() const { return uint64_t(kHostPage) << mdts_; }

Tick NvmeController::stage(uint32_t s, uint32_t bytes, bool write, Tick ready) {
  if (dram.size() == 0) return ready;
  return dram->access(staging_base_ + uint64_t(s) * staging_slot(), bytes, write, ready);
}

uint16_t NvmeController::walk_prps(Slot& sl, uint32_t bytes, Tick& delay) {
  return sl.prps.walk(sl.sqe.prp1, sl.sqe.prp2, bytes, dma_fn_, delay);
}

bool NvmeController::move_data(Slot& sl, bool to_host, uint32_t bytes, Tick& delay) {
  return sl.prps.move(sl.buf.data(), to_host, bytes, dma_fn_, delay);
}


// ---------------------------------------------------------------- completion

// `delay`: how far in the future the controller issues the entry (after a PRP
// list read, say); writes issued earlier on the link still arrive first.
void NvmeController::complete(uint32_t s, uint16_t st, Tick delay) {
  Slot& sl = slots_[s];
  sl.status = st;
  if (st != 0) log_error(sl.sqid, sl.sqe.cid(), st, sl.sqid ? sl.sqe.slba() : 0, sl.sqe.nsid);
  if (!sqs_[sl.sqid].valid) return release(s);  // the SQ was deleted meanwhile
  CompQueue& cq = cqs_[sqs_[sl.sqid].cqid];
  if (!cq.valid) return release(s);
  if ((cq.tail + 1) % cq.size == cq.head) {  // CQ full: wait for the host to free entries
    cq.waiting.push_back(s);
    return;
  }
  post(s, delay);
}

void NvmeController::post(uint32_t s, Tick delay) {
  Slot& sl = slots_[s];
  SubQueue& sq = sqs_[sl.sqid];
  CompQueue& cq = cqs_[sq.cqid];
  Cqe e{};
  e.dw0 = sl.dw0;
  e.sq_head = static_cast<uint16_t>(sq.head);
  uint32_t reported = 0;  // the buffer status the host gets (0: none)
  if (sl.sqid != 0 && sl.status == 0) {  // the firmware's buffer status, where the configuration puts it
    uint32_t result = forced_status_ ? forced_status_ : sl.hc.result;
    if (buffer_status_field_ == StatusField::Dw0) e.dw0 = result;
    if (buffer_status_field_ == StatusField::SqHead) e.sq_head = static_cast<uint16_t>(result);
    reported = buffer_status_field_ == StatusField::None ? 0 : result;
    if (sl.rec) sl.rec->result = reported;
  }
  e.sq_id = sl.sqid;
  e.cid = sl.sqe.cid();
  e.status_phase = static_cast<uint16_t>((sl.status << 1) | (cq.phase ? 1 : 0));
  // Posted writes on one link arrive in order, so the entry lands after the data.
  Tick d = delay;
  dma_access(tlm::TLM_WRITE_COMMAND, cq.base + uint64_t(cq.tail) * sizeof(Cqe), reinterpret_cast<uint8_t*>(&e),
             sizeof e, d);
  if (sl.rec) sl.rec->clock.mark(Stage::CqPost, now_ps() + d);
  if (++cq.tail == cq.size) {
    cq.tail = 0;
    cq.phase = !cq.phase;
  }
  if (cq.ien) {
    irq_.completion_posted(cq.vector, delay, sq.cqid != 0);
    if (irq_.pin_based()) irq_.cq_level(true, delay);
  }
  if (sl.sqid == 0) ++admin_cmds_;
  if (on_command && sl.sqid != 0) {
    const Sqe& c = sl.sqe;
    // Decoded from the entry: a command failed before execution has no HostCommand.
    on_command({sl.sqid, c.cid(), sl.status, c.opcode(), c.attr(), c.slba(), (c.cdw12 & 0xFFFF) + 1, sl.fetched,
                now_ps() + d, c.victim(), c.victim_pages(), reported});
  }
  if (!sl.aborted) release(s);  // an aborted command's slot waits for the firmware
}

void NvmeController::free_slot(uint32_t s) {
  Slot& sl = slots_[s];
  if (sl.io_counted) {
    sl.io_counted = false;
    io_busy(false);
  }
  sl.busy = false;
  sl.aborted = false;
  free_slots_.push_back(s);
}

void NvmeController::release(uint32_t s) {
  free_slot(s);
  fetch();  // a freed slot may let a waiting command in
  shutdown_when_idle();
}

// ---------------------------------------------------------------- admin commands

void NvmeController::execute_admin(uint32_t s) {
  Slot& sl = slots_[s];
  if (sl.generation != generation_) return release(s);
  const Sqe& c = sl.sqe;
  Tick delay = 0;
  uint16_t st = 0;
  if ((c.cdw0 >> 8 & 3) != 0 || c.psdt() != 0) return complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  switch (c.opcode()) {
    case ADMIN_IDENTIFY: st = admin_identify(sl, delay); break;
    case ADMIN_SET_FEATURES:
    case ADMIN_GET_FEATURES: st = admin_features(sl); break;
    case ADMIN_CREATE_CQ: st = admin_create_cq(c); break;
    case ADMIN_CREATE_SQ: st = admin_create_sq(c); break;
    case ADMIN_DELETE_SQ: st = admin_delete_sq(c); break;
    case ADMIN_DELETE_CQ: st = admin_delete_cq(c); break;
    case ADMIN_GET_LOG_PAGE: st = admin_get_log_page(sl, delay); break;
    case ADMIN_ABORT: st = admin_abort(sl); break;
    case ADMIN_KEEP_ALIVE: keep_alive(); break;
    case ADMIN_FORMAT_NVM: return admin_format(s);
    case ADMIN_ASYNC_EVENT:
      if (aer_slots_.size() >= kAerLimit) {
        st = status(SCT_COMMAND_SPECIFIC, SC_AER_LIMIT);
        break;
      }
      aer_slots_.push_back(s);  // held until an event occurs
      return deliver_events();
    default: st = status(SCT_GENERIC, SC_INVALID_OPCODE, true); break;
  }
  complete(s, st, delay);
}

// ---------------------------------------------------------------- asynchronous events

// Records an event; it completes an outstanding Asynchronous Event Request
// now or when the host sends one. After an error event, further error events
// stay queued until the host reads the Error Information log (masking).
void NvmeController::raise_event(uint8_t type, uint8_t info, uint8_t log) {
  aer_events_.push_back(type | uint32_t(info) << 8 | uint32_t(log) << 16);
  if (aer_events_.size() > 64) aer_events_.pop_front();  // a host that never asks loses the oldest
  deliver_events();
}

void NvmeController::deliver_events() {
  while (!aer_slots_.empty()) {
    auto it = std::find_if(aer_events_.begin(), aer_events_.end(),
                           [this](uint32_t e) { return !((e & 7) == AER_ERROR && error_events_masked_); });
    if (it == aer_events_.end()) return;
    uint32_t s = aer_slots_.front();
    aer_slots_.pop_front();
    slots_[s].dw0 = *it;
    if ((*it & 7) == AER_ERROR) error_events_masked_ = true;
    aer_events_.erase(it);
    ++events_;
    complete(s, 0);
  }
}

// Keep Alive: with a Keep Alive Timer set (feature 0Fh), the host must send
// a Keep Alive within it (rounded up to KAS, 100 ms); otherwise the
// controller logs the expiry and stops (CSTS.CFS).
void NvmeController::keep_alive() {
  uint64_t gen = ++keep_alive_gen_;
  keep_alive_at_ = now_ps();
  if (feat_.keep_alive_ms == 0) return;
  Tick limit = Tick((feat_.keep_alive_ms + kKasMs - 1) / kKasMs * kKasMs) * MS;
  eq_.after(limit, [this, gen] {
    if (gen != keep_alive_gen_ || !(csts_ & CSTS_RDY)) return;
    log_error(0xFFFF, 0xFFFF, status(SCT_GENERIC, SC_KEEP_ALIVE_EXPIRED), 0, 0);
    csts_ |= CSTS_CFS;
  });
}

// Abort: a command still waiting in its SQ cannot be reached without
// fetching it, and one in flight is past its point of no return, so only an
// outstanding Asynchronous Event Request is aborted; otherwise DW0 bit 0
// says "not aborted", which the specification allows.
uint16_t NvmeController::admin_abort(Slot& sl) {
  const Sqe& c = sl.sqe;
  uint16_t sqid = c.cdw10 & 0xFFFF, cid = static_cast<uint16_t>(c.cdw10 >> 16);
  sl.dw0 = 1;
  if (sqid != 0) return 0;
  for (auto it = aer_slots_.begin(); it != aer_slots_.end(); ++it) {
    if (slots_[*it].sqe.cid() != cid) continue;
    uint32_t victim = *it;
    aer_slots_.erase(it);
    complete(victim, status(SCT_GENERIC, SC_ABORT_REQUESTED));
    sl.dw0 = 0;
    break;
  }
  return 0;
}

// Format NVM: one LBA format, no metadata or protection information, no
// cryptographic erase; the user data is deallocated (reads return zeros).
void NvmeController::admin_format(uint32_t s) {
  Slot& sl = slots_[s];
  const Sqe& c = sl.sqe;
  if (c.nsid != 1 && c.nsid != 0xFFFFFFFFu) return complete(s, status(SCT_GENERIC, SC_INVALID_NAMESPACE, true));
  if (fmt_lbaf(c.cdw10) != 0 || fmt_mset(c.cdw10) || fmt_pi(c.cdw10))
    return complete(s, status(SCT_COMMAND_SPECIFIC, SC_INVALID_FORMAT, true));
  if (fmt_ses(c.cdw10) > 1) return complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  sl.steps.clear();
  sl.step = 0;
  const uint64_t piece = (uint64_t(1) << 30) / lba_size_ * lba_size_, end = namespace_lbas() * lba_size_;
  for (uint64_t off = 0; off < end; off += piece)
    sl.steps.push_back({IoOp::Trim, off, static_cast<uint32_t>(std::min(piece, end - off))});
  sl.compare = false;
  sl.hc.sqid = 0;
  sl.hc.fua = false;
  if (sl.steps.empty()) return complete(s, 0);
  run_step(s);
}

// ---------------------------------------------------------------- identify

uint16_t NvmeController::admin_identify(Slot& sl, Tick& delay) {
  const Sqe& c = sl.sqe;
  uint8_t cns = c.cdw10 & 0xFF;
  if (sl.buf.size() < IDENTIFY_SIZE) sl.buf.resize(IDENTIFY_SIZE);
  uint8_t* d = sl.buf.data();
  std::memset(d, 0, IDENTIFY_SIZE);
  switch (cns) {
    case CNS_CONTROLLER: {
      // The ids in the function's configuration header.
      put16(d + idctl::VID, static_cast<uint16_t>(pci_.read(0x00, 2)));
      put16(d + idctl::SSVID, static_cast<uint16_t>(pci_.read(0x2C, 2)));
      put_str(d + idctl::SN, serial_, 20);
      put_str(d + idctl::MN, model_, 40);
      put_str(d + idctl::FR, "0.1", 8);
      d[idctl::RAB] = static_cast<uint8_t>(cfg_.get_int("arbitration_burst"));
      d[idctl::MDTS] = static_cast<uint8_t>(mdts_);
      put16(d + idctl::CNTLID, 1);
      put32(d + idctl::VER, 0x00010400);
      d[idctl::CNTRLTYPE] = 1;  // I/O controller
      put16(d + idctl::OACS, idctl::OACS_FORMAT);
      d[idctl::ACL] = kAbortLimit - 1;
      d[idctl::AERL] = kAerLimit - 1;
      d[idctl::FRMW] = 1 << 1 | 1;  // one firmware slot, read only
      d[idctl::LPA] = 1 << 2;       // Get Log Page takes offsets and 32-bit lengths
      d[idctl::ELPE] = ERROR_LOG_ENTRIES - 1;
      d[idctl::NPSS] = 0;           // one power state
      put16(d + idctl::KAS, kKasMs / 100);
      d[idctl::SQES] = 0x66;  // required and maximum entry size: 64 bytes
      d[idctl::CQES] = 0x44;  // 16 bytes
      put32(d + idctl::NN, 1);
      put16(d + idctl::ONCS, ONCS_COMPARE | ONCS_DSM | ONCS_WRITE_ZEROES);
      d[idctl::FNA] = 0;
      d[idctl::VWC] = fw->volatile_write_cache() ? 1 : 0;
      put_str(d + idctl::SUBNQN, "nqn.2026-11.io.flashvp:nvme:" + serial_, 256);
      std::memset(d + idctl::SUBNQN + 28 + serial_.size(), 0, 256 - std::min<size_t>(256, 28 + serial_.size()));
      put16(d + idctl::PSD0, kMaxPowerCw);  // power state 0: maximum power in centiwatts
      break;
    }
    case CNS_NAMESPACE: {
      if (c.nsid != 1) return status(SCT_GENERIC, SC_INVALID_NAMESPACE, true);
      uint64_t n = namespace_lbas();
      put64(d + idns::NSZE, n);
      put64(d + idns::NCAP, n);
      put64(d + idns::NUSE, n);
      d[idns::NLBAF] = 0;  // one format
      d[idns::FLBAS] = 0;
      std::memcpy(d + idns::NGUID, nguid().data(), 16);
      uint32_t lbads = 0;
      while ((1u << lbads) < lba_size_) ++lbads;
      put32(d + idns::LBAF0, lbads << 16);
      break;
    }
    case CNS_ACTIVE_NS_LIST:
      if (c.nsid >= 0xFFFFFFFEu) return status(SCT_GENERIC, SC_INVALID_NAMESPACE, true);
      if (c.nsid < 1) put32(d, 1);  // namespaces with an id above nsid
      break;
    case CNS_NS_DESCRIPTORS:
      if (c.nsid != 1) return status(SCT_GENERIC, SC_INVALID_NAMESPACE, true);
      d[0] = NIDT_NGUID;
      d[1] = 16;
      std::memcpy(d + 4, nguid().data(), 16);
      break;
    default: return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  }
  return send_to_host(sl, IDENTIFY_SIZE, delay);
}

// A namespace GUID derived from the serial number: stable across runs.
std::array<uint8_t, 16> NvmeController::nguid() const {
  std::array<uint8_t, 16> g{};
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the serial
  for (char ch : serial_) h = (h ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
  std::memcpy(g.data(), &h, 8);
  h = (h ^ 1) * 1099511628211ull;
  std::memcpy(g.data() + 8, &h, 8);
  return g;
}

uint16_t NvmeController::send_to_host(Slot& sl, uint32_t bytes, Tick& delay) {
  uint16_t st = walk_prps(sl, bytes, delay);
  if (st) return st;
  if (!move_data(sl, true, bytes, delay)) return status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR);
  return 0;
}

void NvmeController::io_busy(bool begins) {
  if (begins && io_outstanding_++ == 0) busy_since_ = now_ps();
  if (!begins && --io_outstanding_ == 0) busy_ps_ += now_ps() - busy_since_;
}

namespace {
void put128(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }  // the high half stays zero
}  // namespace

// Get Log Page: Error Information (the last 16 errors, newest first),
// SMART / Health from the controller's counters and the firmware's media
// wear, Firmware Slot. Offsets and 32-bit lengths are honoured (LPA bit 2).
uint16_t NvmeController::admin_get_log_page(Slot& sl, Tick& delay) {
  const Sqe& c = sl.sqe;
  uint8_t lid = c.cdw10 & 0xFF;
  uint64_t dwords = ((uint64_t(c.cdw11 & 0xFFFF) << 16) | (c.cdw10 >> 16)) + 1;
  uint64_t offset = c.cdw12 | (uint64_t(c.cdw13) << 32), bytes = dwords * 4;
  if (bytes > (uint64_t(kHostPage) << mdts_) || (offset & 3)) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  std::vector<uint8_t> log;
  switch (lid) {
    case LOG_ERROR: {
      log.assign(ERROR_LOG_ENTRIES * ERROR_ENTRY_SIZE, 0);
      for (size_t i = 0; i < error_log_.size(); ++i) {
        const ErrorEntry& e = error_log_[i];
        uint8_t* d = log.data() + i * ERROR_ENTRY_SIZE;
        std::memcpy(d, &e.count, 8);
        put16(d + 8, e.sqid);
        put16(d + 10, e.cid);
        put16(d + 12, static_cast<uint16_t>(e.status << 1));
        put16(d + 14, 0xFFFF);  // parameter error location: not reported
        std::memcpy(d + 16, &e.lba, 8);
        put32(d + 24, e.nsid);
      }
      break;
    }
    case LOG_SMART: {
      if (c.nsid != 0 && c.nsid != 1 && c.nsid != 0xFFFFFFFFu) return status(SCT_GENERIC, SC_INVALID_NAMESPACE, true);
      log.assign(LOG_PAGE_SIZE, 0);
      uint8_t* d = log.data();
      MediaHealth h = fw->health();
      // Temperature is not modeled: 0 (no reading). No spare is ever lost: bad blocks are not modeled.
      d[smart::AVAILABLE_SPARE] = 100;
      d[smart::SPARE_THRESHOLD] = 10;
      d[smart::PERCENT_USED] = static_cast<uint8_t>(std::min(255.0, std::floor(h.mean_erase_count * 100 / h.endurance)));
      put128(d + smart::DATA_UNITS_READ, (bytes_read_.value + 511999) / 512000);  // thousands of 512-byte units
      put128(d + smart::DATA_UNITS_WRITTEN, (bytes_written_.value + 511999) / 512000);
      put128(d + smart::HOST_READS, read_cmds_.value);
      put128(d + smart::HOST_WRITES, write_cmds_.value);
      Tick busy = busy_ps_ + (io_outstanding_ ? now_ps() - busy_since_ : 0);
      put128(d + smart::BUSY_MINUTES, busy / (60 * SEC));
      put128(d + smart::POWER_CYCLES, 1 + h.unsafe_shutdowns);
      put128(d + smart::POWER_ON_HOURS, now_ps() / (3600 * SEC));
      put128(d + smart::UNSAFE_SHUTDOWNS, h.unsafe_shutdowns);
      put128(d + smart::ERROR_ENTRIES, errors_.value);
      break;
    }
    case LOG_FW_SLOT:
      log.assign(LOG_PAGE_SIZE, 0);
      log[0] = 1;  // slot 1 active
      put_str(log.data() + 8, "0.1", 8);
      break;
    default: return status(SCT_COMMAND_SPECIFIC, SC_INVALID_LOG_PAGE, true);
  }
  if (offset >= log.size()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  bool retain = c.cdw10 & (1u << 15);  // RAE: keep the asynchronous event masked
  if (lid == LOG_ERROR && !retain && error_events_masked_) {
    error_events_masked_ = false;
    eq_.after(0, [this] { deliver_events(); });  // after this command's own completion
  }
  if (sl.buf.size() < bytes) sl.buf.resize(bytes);
  std::memset(sl.buf.data(), 0, bytes);  // past the end of the log: zeros
  std::memcpy(sl.buf.data(), log.data() + offset, std::min<uint64_t>(bytes, log.size() - offset));
  return send_to_host(sl, static_cast<uint32_t>(bytes), delay);
}

// Get / Set Features. No feature is saveable: Set with SV fails, Get of the
// saved value returns the default.
uint16_t NvmeController::admin_features(Slot& sl) {
  const Sqe& c = sl.sqe;
  uint8_t fid = c.cdw10 & 0xFF;
  if (c.opcode() == ADMIN_GET_FEATURES) {
    uint8_t sel = (c.cdw10 >> 8) & 7;
    if (sel > SEL_CAPABILITIES) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
    return feature_value(fid, sel, c.cdw11, sl.dw0);
  }
  if (c.cdw10 & SET_FEATURES_SV) return status(SCT_COMMAND_SPECIFIC, SC_FEATURE_NOT_SAVEABLE, true);
  uint32_t v = c.cdw11;
  switch (fid) {
    case FEAT_ARBITRATION:
      feat_.arbitration = v;
      if (csts_ & CSTS_RDY) configure_arbiter();
      break;
    case FEAT_POWER_MGMT:
      if ((v & 0x1F) != 0) return status(SCT_GENERIC, SC_INVALID_FIELD, true);  // NPSS = 0: only PS0
      feat_.power = v & 0xFF;
      break;
    case FEAT_VOLATILE_WC:
      if (!fw->volatile_write_cache()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      feat_.write_cache = v & 1;
      fw->set_write_cache(feat_.write_cache);
      break;
    case FEAT_NUM_QUEUES: {
      uint32_t nsqr = v & 0xFFFF, ncqr = v >> 16;
      if (nsqr == 0xFFFF || ncqr == 0xFFFF) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      for (uint32_t q = 1; q <= max_queues_; ++q)  // only before any I/O queue exists
        if (sqs_[q].valid || cqs_[q].valid) return status(SCT_GENERIC, SC_COMMAND_SEQUENCE, true);
      nsq_alloc_ = static_cast<uint16_t>(std::min(nsqr + 1, max_queues_));
      ncq_alloc_ = static_cast<uint16_t>(std::min(ncqr + 1, max_queues_));
      break;
    }
    case FEAT_IRQ_COALESCE:
      feat_.coalescing = v & 0xFFFF;
      irq_.set_coalescing(static_cast<uint8_t>(v & 0xFF), static_cast<uint8_t>((v >> 8) & 0xFF));
      break;
    case FEAT_IRQ_CONFIG: {
      uint32_t iv = v & 0xFFFF;
      if (iv >= irq_.vectors()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      if (iv == 0 && (v >> 16 & 1)) return status(SCT_GENERIC, SC_INVALID_FIELD, true);  // admin is never coalesced
      irq_.set_coalescing_disabled(static_cast<uint16_t>(iv), v >> 16 & 1);
      break;
    }
    case FEAT_ASYNC_EVENT: feat_.async_events = v & 0x3FF; break;
    case FEAT_KEEP_ALIVE:
      feat_.keep_alive_ms = v;
      keep_alive();  // a new timer starts now
      break;
    default: return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  }
  uint32_t dw0 = 0;
  feature_value(fid, SEL_CURRENT, v, dw0);
  sl.dw0 = dw0;  // Number of Queues answers what was allocated; the others echo the value
  return 0;
}

uint16_t NvmeController::feature_value(uint8_t fid, uint8_t sel, uint32_t cdw11, uint32_t& dw0) {
  bool current = sel == SEL_CURRENT;
  switch (fid) {
    case FEAT_ARBITRATION:
      dw0 = current ? feat_.arbitration : static_cast<uint32_t>(cfg_.get_int("arbitration_burst"));
      break;
    case FEAT_POWER_MGMT: dw0 = current ? feat_.power : 0; break;
    case FEAT_VOLATILE_WC:
      if (!fw->volatile_write_cache()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      dw0 = current ? feat_.write_cache : 1;
      break;
    case FEAT_NUM_QUEUES: {
      uint32_t nsq = nsq_alloc_ && current ? nsq_alloc_ : max_queues_, ncq = ncq_alloc_ && current ? ncq_alloc_ : max_queues_;
      dw0 = (nsq - 1) | ((ncq - 1) << 16);
      break;
    }
    case FEAT_IRQ_COALESCE: dw0 = current ? feat_.coalescing : 0; break;
    case FEAT_IRQ_CONFIG: {
      uint32_t iv = cdw11 & 0xFFFF;
      if (iv >= irq_.vectors()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      dw0 = iv | (current && irq_.coalescing_disabled(static_cast<uint16_t>(iv)) ? 1u << 16 : 0);
      break;
    }
    case FEAT_ASYNC_EVENT: dw0 = current ? feat_.async_events : 0; break;
    case FEAT_KEEP_ALIVE: dw0 = current ? feat_.keep_alive_ms : 0; break;
    default: return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  }
  if (sel == SEL_CAPABILITIES) dw0 = FEAT_CAP_CHANGEABLE;
  return 0;
}

uint16_t NvmeController::admin_create_cq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF, size = (c.cdw10 >> 16) + 1;
  bool pc = c.cdw11 & 1, ien = c.cdw11 & 2;
  uint32_t iv = c.cdw11 >> 16;
  uint32_t limit = ncq_alloc_ ? ncq_alloc_ : max_queues_;
  if (qid == 0 || qid > limit || cqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  if (size < 2 || size > max_entries_ || cc_iocqes(cc_) != 4)
    return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QSIZE, true);
  // With MSI-X, any table entry; with MSI or INTx the vectors the function has.
  uint32_t vectors = pci_.msix_enabled() ? irq_.vectors() : pci_.msi_enabled() ? pci_.msi_enabled_vectors() : 1;
  if (ien && iv >= vectors) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_VECTOR, true);
  if (!pc || c.prp1 == 0 || c.prp1 % kHostPage) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  CompQueue& q = cqs_[qid];
  q = CompQueue{};
  q.valid = true;
  q.base = c.prp1;
  q.size = size;
  q.ien = ien;
  q.vector = static_cast<uint16_t>(iv);
  return 0;
}

uint16_t NvmeController::admin_create_sq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF, size = (c.cdw10 >> 16) + 1;
  bool pc = c.cdw11 & 1;
  uint32_t cqid = c.cdw11 >> 16;
  uint32_t limit = nsq_alloc_ ? nsq_alloc_ : max_queues_;
  if (qid == 0 || qid > limit || sqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  if (size < 2 || size > max_entries_ || cc_iosqes(cc_) != 6)
    return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QSIZE, true);
  if (cqid == 0 || cqid > max_queues_ || !cqs_[cqid].valid) return status(SCT_COMMAND_SPECIFIC, SC_CQ_INVALID, true);
  if (!pc || c.prp1 == 0 || c.prp1 % kHostPage) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  sqs_[qid] = SubQueue{true, c.prp1, size, 0, 0, static_cast<uint16_t>(cqid), 0};
  arb_.add_queue(static_cast<uint16_t>(qid), sq_priority(c.cdw11));  // QPRIO, used by WRR and FlashShare
  return 0;
}

// Delete I/O SQ: entries not fetched are dropped; commands in flight are
// completed now with "aborted due to SQ deletion" (their firmware work is
// discarded when it returns), before this command completes.
uint16_t NvmeController::admin_delete_sq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF;
  if (qid == 0 || qid > max_queues_ || !sqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  CompQueue& cq = cqs_[sqs_[qid].cqid];
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    Slot& sl = slots_[s];
    if (!sl.busy || sl.aborted || sl.sqid != qid || sl.generation != generation_) continue;
    auto w = std::find(cq.waiting.begin(), cq.waiting.end(), s);
    if (w != cq.waiting.end()) continue;  // finished already; posted below or dropped
    sl.aborted = true;
    complete(s, status(SCT_GENERIC, SC_ABORTED_SQ_DELETION));
  }
  // Completions still waiting for room in the CQ are lost with their SQ.
  for (auto it = cq.waiting.begin(); it != cq.waiting.end();) {
    if (slots_[*it].sqid == qid) {
      uint32_t s = *it;
      it = cq.waiting.erase(it);
      if (!slots_[s].aborted) release(s);  // an aborted one is released when the firmware returns it
    } else {
      ++it;
    }
  }
  waiting_ -= sq_occupancy_[qid];
  sq_occupancy_[qid] = 0;
  sqs_[qid] = SubQueue{};
  arb_.remove_queue(static_cast<uint16_t>(qid));
  return 0;
}

uint16_t NvmeController::admin_delete_cq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF;
  if (qid == 0 || qid > max_queues_ || !cqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  for (const auto& sq : sqs_)
    if (sq.valid && sq.cqid == qid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QUEUE_DELETION, true);
  cqs_[qid] = CompQueue{};
  if (irq_.pin_based()) irq_.cq_level(cq_entries_outstanding(), 0);
  return 0;
}

}  // namespace vp::ssd
