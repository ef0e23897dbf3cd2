// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/nvme/NvmeController.hpp"

#include "vp/ssd/nvme/NvmeAdminCommands.hpp"
#include "vp/ssd/nvme/NvmeIoCommands.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "vp/core/Payload.hpp"

namespace vp::ssd {

using namespace vp::nvme;

namespace {
constexpr uint32_t kHostPage = 4096;  // CAP.MPSMIN = MPSMAX = 0

}  // namespace

void NvmeController::declare_params(const ParamScope& r) {
  r.integer("max_io_queues", 64, "I/O submission and completion queues the controller supports")
      .range(1, 1023);
  r.integer("max_queue_entries", 4096, "largest queue the controller accepts (CAP.MQES + 1)")
      .range(2, 65536);
  r.integer("dstrd", 0, "doorbell stride: doorbells are (4 << dstrd) bytes apart (CAP.DSTRD)")
      .range(0, 8);
  // The controller's command table. 256 is our choice (the papers give no
  // figure); a freed slot goes to the SQ arbitration picks, so the table
  // decides which queue waits only when the host keeps more commands out.
  r.integer("max_outstanding", 256,
            "commands the controller holds at once, fetched and not yet completed (its command table); "
            "arbitration decides which SQ a freed slot serves")
      .range(1, 65536);
  r.integer("mdts", 5, "maximum data transfer size, as a power of two of 4 KiB pages (Identify MDTS)")
      .range(1, 10);
  r.size("lba_size", "4KiB", "logical block size of namespace 1").range(512, 65536);
  // CAP.TO counts 500 ms units in 8 bits: a host gives up after 127.5 s.
  r.time("ready_time", "10us",
         "time from CC.EN changing to CSTS.RDY following it (CAP.TO reports it, in 500 ms units, at least 10 s)")
      .range(0, 255.0 * 500 * double(MS));
  r.time("admin_time", "2us", "controller time to execute one admin command");
  r.string("model", "FlashVP ULL Z-SSD", "model number reported by Identify");
  r.string("serial", "FVP0000000001", "serial number reported by Identify");
  r.integer("fetch_engines", 16,
            "command fetch reads the controller keeps in flight; each arbitration grant is one read")
      .range(1, 1024);
  r.integer("fetch_batch", 8,
            "most commands one fetch read takes from an SQ (bounded by the arbitration burst)")
      .range(1, 64);
  // IMCOM'17 sec. 2: "R_1 has to wait for the completion of W_{k+1}" ahead
  // of it in its queue. NVMe does not require it; off by default.
  r.boolean("in_order_fetch", false,
            "an SQ's commands behind a write wait in their slots until it finishes, and the SQ is not fetched "
            "meanwhile (head-of-line blocking per SQ, as IMCOM'17 describes); other SQs go on");
  // Two keep the link busy while the first's last bytes are in flight (the
  // link and root complex's 300 ns one way, against 1.1 us for 4 KiB on gen3 x4).
  r.integer("dma_engines", 2,
            "data transfers the DMA engine has on the link at once per direction when it orders them by the "
            "workload attribute (ssd.priority.dma); without ordering each transfer goes as its data is ready")
      .range(1, 256);
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

NvmeController::Stats::Stats(const StatGroup& stats)
    : io_cmds(stats.counter("io_commands", "commands", "I/O commands completed")),
      admin_cmds(stats.counter("admin_commands", "commands", "admin commands completed")),
      errors(stats.counter("error_completions", "commands", "errors logged: commands completed with an error status, bad doorbell writes, keep alive expiry")),
      doorbells(stats.counter("doorbell_writes", "writes", "doorbell register writes")),
      bytes_read(stats.counter("bytes_read", "bytes", "bytes read by the host")),
      bytes_written(stats.counter("bytes_written", "bytes", "bytes written by the host")),
      read_cmds(stats.counter("read_commands", "commands", "Read commands accepted")),
      write_cmds(stats.counter("write_commands", "commands", "Write commands accepted")),
      fetch_reads(stats.counter("fetch_reads", "reads", "command fetch reads (one per arbitration grant)")),
      events(stats.counter("async_events", "events", "asynchronous events reported")),
      hol_stall_ps(stats.counter("hol_stall_ps", "ps",
                                 "time SQs were held behind a write of their own (in-order fetch), summed over SQs")),
      outstanding_max(stats.counter("outstanding_max", "commands",
                                    "most commands held at once, fetched and not yet completed")),
      dma_waits(stats.counter("dma_waits", "transfers",
                              "data transfers that waited for the DMA engine (latency-first DMA only)")),
      dma_wait_ps(stats.counter("dma_wait_ps", "ps", "time data transfers waited for the DMA engine, summed")) {}

NvmeController::NvmeController(sc_core::sc_module_name name, Services& svc, const pcie::LinkTiming& link,
                               const std::string& scope, const std::string& pci_scope)
    : PciFunction(name, pcie::PciConfigSpace::identity_from(ScopedConfig(svc.cfg, pci_scope)),
                  function_shape(ScopedConfig(svc.cfg, scope), ScopedConfig(svc.cfg, pci_scope), link),
                  StatGroup(svc.stats, scope)),
      fw("fw"),
      admin_(std::make_unique<NvmeAdminCommands>(*this)),
      io_(std::make_unique<NvmeIoCommands>(*this)),
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
      in_order_fetch_(cfg_.get_bool("in_order_fetch")),
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
      slots_(static_cast<size_t>(cfg_.get_int("max_outstanding"))),
      sq_occupancy_(max_queues_ + 1, 0),
      cq_occupancy_(max_queues_ + 1, 0),
      st_(stats_),
      outstanding_(st_.outstanding_max),
      hol_ps_(max_queues_ + 1, 0),
      held_since_(max_queues_ + 1, 0) {
  stats_.section("nvme", "commands held by the controller, head-of-line stalls per SQ, data DMA waits", [this] { return summary(now_ps()); });
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    slots_[i].hc.slot = i;
    slots_[i].hc.client = this;
    free_slots_.push_back(static_cast<uint32_t>(slots_.size()) - 1 - i);
  }
  shutdown_flush_.op = IoOp::Flush;
  shutdown_flush_.client = this;
  shutdown_flush_.slot = kShutdownSlot;
  reset_queues();
}

NvmeController::~NvmeController() = default;

void NvmeController::trace_signals() {
  Waves& w = svc_.waves;
  if (!w.enabled()) return;
  // <drive>.nvme.sq<q>.occupancy, .cq<q>.occupancy: each queue the host
  // may create is in the VCD from the start (SystemC takes no signal once
  // the run has begun), and shown from when it is created.
  const std::string& scope = cfg_.scope();
  const std::string group = Waves::group_name(scope) + " queues";
  for (uint32_t q = 0; q <= max_queues_ && q < traced_queues_; ++q) {
    w.trace_dormant(sq_occupancy_[q], Waves::signal_name(scope, fmt::format("sq{}.occupancy", q)), group,
                    Waves::Count::Level, Waves::Shelf::Queues);
    w.trace_dormant(cq_occupancy_[q], Waves::signal_name(scope, fmt::format("cq{}.occupancy", q)), group,
                    Waves::Count::Level, Waves::Shelf::Queues);
  }
  w.trace(doorbell_writes_, Waves::signal_name(scope, "doorbell_writes"), group, Waves::Count::Total,
          Waves::Shelf::Queues);
  w.trace(messages_sent_, Waves::signal_name(scope, "interrupts_sent"), group, Waves::Count::Total,
          Waves::Shelf::Queues);
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

// CAP.TO: how long a host waits for CSTS.RDY, in 500 ms units; 10 s as
// before unless the ready time needs more.
uint64_t NvmeController::cap_timeout() const {
  const Tick unit = 500 * MS;
  return std::max<uint64_t>(20, (ready_time_ + unit - 1) / unit);
}

// The MSI-X table and PBA are the function's (PciFunction serves them);
// the rest of the table's range and beyond reads 0.
uint64_t NvmeController::bar_read(uint32_t off, unsigned len) {
  uint64_t v = 0;
  uint64_t cap = uint64_t(max_entries_ - 1)   // MQES
                 | (1ull << 16)               // CQR: queues must be physically contiguous
                 | CAP_AMS_WRR | CAP_AMS_VENDOR  // WRR with urgent class; vendor specific = FlashShare
                 | (cap_timeout() << 24)      // TO
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
    sqs_[0] = SubQueue{true, asq_, asqs, 0, 0, 0, 0, 0, {}};
    cqs_[0] = CompQueue{};
    cqs_[0].valid = true;
    cqs_[0].base = acq_;
    cqs_[0].size = acqs;
    cqs_[0].ien = true;
    svc_.waves.show(sq_occupancy_[0]);  // the admin queues exist from here
    svc_.waves.show(cq_occupancy_[0]);
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
  for (auto& q : sqs_)
    for (uint32_t s : q.parked) free_slot(s);  // fetched, never started
  for (auto& q : sqs_) q = SubQueue{};
  for (auto& q : cqs_) q = CompQueue{};
  std::fill(sq_occupancy_.begin(), sq_occupancy_.end(), 0);
  std::fill(cq_occupancy_.begin(), cq_occupancy_.end(), 0);
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
  ++st_.doorbells;
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
    cq_occupancy_[qid] = (q.tail + q.size - q.head) % q.size;
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
  ++st_.errors;
  error_log_.push_front({st_.errors.value, sqid, cid, st, lba, nsid});
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
bool NvmeController::can_fetch() const {
  return waiting_ > 0 && fetches_ < fetch_engines_ && !free_slots_.empty() && (csts_ & CSTS_RDY) &&
         !(csts_ & CSTS_CFS) && !shutting_down_ && pci_.bus_master();
}

void NvmeController::fetch() {
  while (can_fetch()) {
    auto g = arb_.next(now_ps(), std::min<uint32_t>(fetch_batch_, static_cast<uint32_t>(free_slots_.size())));
    if (!g) break;
    Tick start = now_ps(), delay = 0;
    std::vector<uint32_t> taken;
    if (!spare_lists_.empty()) {  // a finished fetch's storage: no allocation
      taken = std::move(spare_lists_.back());
      spare_lists_.pop_back();
      taken.clear();
    }
    bool ok = read_entries(g->qid, g->count, start, delay, taken);
    ++st_.fetch_reads;
    if (!ok) {  // the SQ memory is unreachable: nothing sensible can be completed
      csts_ |= CSTS_CFS;
      for (uint32_t s : taken) {
        slots_[s].busy = false;
        free_slots_.push_back(s);
      }
      outstanding_.set(slots_.size() - free_slots_.size(), now_ps());
      return;
    }
    sqs_[g->qid].fetching += g->count;
    ++fetches_;
    uint16_t qid = g->qid;
    uint64_t gen = generation_;
    eq_.at(start + delay, [this, taken = std::move(taken), qid, gen]() mutable {
      fetch_read_done(taken, qid, gen);
      spare_lists_.push_back(std::move(taken));
    });
  }
  arm_guard();
}

// Up to two reads: to the end of the queue, then from its start. Each entry
// read takes a slot; `delay` becomes when the later read ends.
bool NvmeController::read_entries(uint16_t qid, uint32_t count, Tick start, Tick& delay,
                                  std::vector<uint32_t>& taken) {
  SubQueue& sq = sqs_[qid];
  uint32_t first = sq.head + sq.fetching;
  bool ok = true;
  uint32_t got = 0;
  taken.reserve(count);
  while (got < count && ok) {
    uint32_t pos = (first + got) % sq.size;
    uint32_t run = std::min(count - got, sq.size - pos);
    std::vector<Sqe>& buf = sqe_buf_;
    buf.resize(run);
    Tick d = 0;
    ok = dma_access(tlm::TLM_READ_COMMAND, sq.base + uint64_t(pos) * sizeof(Sqe),
                    reinterpret_cast<uint8_t*>(buf.data()), run * sizeof(Sqe), d);
    delay = std::max(delay, d);
    for (uint32_t i = 0; i < run && ok; ++i) taken.push_back(take_slot(buf[i], qid, start));
    got += run;
  }
  return ok;
}

uint32_t NvmeController::take_slot(const Sqe& e, uint16_t qid, Tick start) {
  uint32_t s = free_slots_.back();
  free_slots_.pop_back();
  outstanding_.set(slots_.size() - free_slots_.size(), start);
  Slot& sl = slots_[s];
  sl.busy = true;
  sl.aborted = false;
  sl.fetched = start;
  sl.sqe = e;
  sl.sqid = qid;
  sl.generation = generation_;
  sl.status = 0;
  sl.dw0 = 0;
  sl.in_order_write = false;
  sl.rec = svc_.tracker.device(qid, sl.sqe.cid());
  if (sl.rec) {
    sl.rec->clock.start(start);
    sl.rec->valid = true;
  }
  return s;
}

// The entries of one fetch read arrived: the SQ head moves past them (unless
// the queue went away meanwhile) and each command starts.
void NvmeController::fetch_read_done(const std::vector<uint32_t>& taken, uint16_t qid, uint64_t gen) {
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
}

// FlashShare: an age guard may fire before anything else wakes the controller.
void NvmeController::arm_guard() {
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
    eq_.after(admin_time_, [this, s] { admin_->execute(s); });
  } else if (in_order_fetch_ && (sqs_[sqid].writes_out > 0 || !sqs_[sqid].parked.empty())) {
    sqs_[sqid].parked.push_back(s);  // behind a write of its SQ: waits for it
  } else {
    start_io(s);
  }
}

void NvmeController::start_io(uint32_t s) {
  Slot& sl = slots_[s];
  if (in_order_fetch_ && sl.sqe.opcode() == IO_WRITE) {
    sl.in_order_write = true;
    if (sqs_[sl.sqid].writes_out++ == 0) {
      arb_.hold(sl.sqid, true);
      held_since_[sl.sqid] = now_ps();
    }
  }
  sl.io_counted = true;
  io_busy(true);
  io_->execute(s);
}

// A write the commands behind it waited for finished: when it was the last
// one out, they start in order (up to the next write) and the SQ is fetched again.
void NvmeController::in_order_write_done(Slot& sl) {
  sl.in_order_write = false;
  SubQueue& q = sqs_[sl.sqid];
  if (sl.generation != generation_ || !q.valid || --q.writes_out > 0) return;
  arb_.hold(sl.sqid, false);
  hol_ps_[sl.sqid] += now_ps() - held_since_[sl.sqid];
  st_.hol_stall_ps += now_ps() - held_since_[sl.sqid];
  while (!q.parked.empty() && q.writes_out == 0) {
    uint32_t p = q.parked.front();
    q.parked.pop_front();
    start_io(p);
  }
  fetch();
}

// ---------------------------------------------------------------- I/O commands

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
  if (!sl.steps.empty() && ++sl.step < sl.steps.size()) return io_->run_step(s);
  io_->finish(s);
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
  if (sl.in_order_write) in_order_write_done(sl);
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
  cq_occupancy_[sq.cqid] = (cq.tail + cq.size - cq.head) % cq.size;
  if (cq.ien) {
    irq_.completion_posted(cq.vector, delay, sq.cqid != 0);
    if (irq_.pin_based()) irq_.cq_level(true, delay);
  }
  if (sl.sqid == 0) ++st_.admin_cmds;
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
  outstanding_.set(slots_.size() - free_slots_.size(), now_ps());
}

void NvmeController::set_latency_first_dma(bool on) {
  if (!on) {
    to_host_.reset();
    from_host_.reset();
    return;
  }
  auto engines = static_cast<uint32_t>(cfg_.get_int("dma_engines"));
  // A command deleted with its SQ, or from before a reset, has no transfer left to do.
  auto live = [this](uint32_t s) {
    const Slot& sl = slots_[s];
    if (sl.generation == generation_ && !sl.aborted) return true;
    release(s);
    return false;
  };
  to_host_ = std::make_unique<DataDmaQueue>(
      eq_, engines, [this, live](uint32_t s) { return live(s) ? io_->send_read_data(s, 0) : now_ps(); }, st_.dma_waits,
      st_.dma_wait_ps);
  from_host_ = std::make_unique<DataDmaQueue>(
      eq_, engines, [this, live](uint32_t s) { return live(s) ? io_->fetch_write_data(s, 0) : now_ps(); },
      st_.dma_waits, st_.dma_wait_ps);
}

nlohmann::json NvmeController::summary(Tick now) const {
  nlohmann::json j;
  j["outstanding"] = {{"mean", outstanding_.mean(now)}, {"max", outstanding_max()}};
  if (to_host_)
    j["dma"] = {{"waits", st_.dma_waits.value},
                {"wait_us_mean", st_.dma_waits.value ? double(st_.dma_wait_ps.value) / double(st_.dma_waits.value) / 1e6 : 0.0}};
  if (in_order_fetch_) {
    nlohmann::json per_sq = nlohmann::json::object();
    for (size_t q = 1; q < hol_ps_.size(); ++q)
      if (hol_ps_[q]) per_sq[std::to_string(q)] = double(hol_ps_[q]) / double(SEC);
    j["hol_stall_s"] = per_sq;
  }
  return j;
}

void NvmeController::release(uint32_t s) {
  free_slot(s);
  fetch();  // a freed slot may let a waiting command in
  shutdown_when_idle();
}

// ---------------------------------------------------------------- admin commands

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
    ++st_.events;
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

// ---------------------------------------------------------------- identify

void NvmeController::io_busy(bool begins) {
  if (begins && io_outstanding_++ == 0) busy_since_ = now_ps();
  if (!begins && --io_outstanding_ == 0) busy_ps_ += now_ps() - busy_since_;
}


}  // namespace vp::ssd
