// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/block/BlkMqQueue.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "vp/host/block/DeadlineScheduler.hpp"
#include "vp/host/block/IoParts.hpp"
#include "vp/host/block/NoneScheduler.hpp"

namespace vp::host {

namespace {
constexpr uint64_t kPage = 4096;                // the PRP page (CC.MPS = 4 KiB)
constexpr uint32_t kNoMdtsLimit = 4096u << 10;  // Linux's NVME_MAX_KB_SZ when MDTS is 0
}  // namespace

void BlkMqQueue::declare_params(const ParamScope& r) {
  r.choice("scheduler", "none", {"none", "deadline"},
           "I/O scheduler of every hardware queue: none (software queues, first in first out) or mq-deadline");
  r.choice("bypass", "off", {"off", "on"},
           "FlashShare: requests with a non-zero workload attribute skip plug, merging and scheduler (with the "
           "same-LBA hazard rule)");
  r.choice("rw_isolation", "off", {"off", "on"},
           "read/write queue isolation (IMCOM'17): reads use only the read hardware queues, writes only the "
           "write ones");
  r.real("read_queue_ratio", 0.75,
         "with rw_isolation: fraction of the hardware queues that serve reads (0.75 = RQ:WQ 3:1), rounded, at "
         "least one queue of each kind")
      .range(0.0, 1.0);
  r.time("insert_cost", "100ns",
         "CPU time to allocate and insert a request into a plug, software queue or scheduler (on top of "
         "host.core.submit_cost)");
  r.time("merge_search_cost", "25ns",
         "CPU time per queued request examined by the merge search or the FlashShare hazard scan");
  r.choice("dispatch", "inline", {"inline", "kblockd"},
           "who runs a hardware queue: inline (where it becomes runnable, no CPU time of its own) or kblockd "
           "(Linux 4.9: one dispatcher at a time, deferred runs are kernel work behind the running thread)");
  r.boolean("direct_issue", true,
            "with dispatch=kblockd: a submission to an idle hardware queue is issued in the submitter's context and a "
            "plug flush runs the queue there (Linux 4.9's sync path); off: every run is kblockd's, as FlashShare "
            "describes blk-mq holding requests in its software queues");
  r.time("run_cost", "1us",
         "with dispatch=kblockd: CPU time of one hardware-queue run (locking, collecting the software queues)");
  r.time("dispatch_cost", "0.5us",
         "with dispatch=kblockd: CPU time per request blk-mq hands to the driver (its share of queue_rq)");
  r.integer("max_segments", 128, "application I/Os (PRP segments) one merged command may carry")
      .range(1, 1024);
  r.rule([](const ScopedConfig& c) {
    double f = c.get_real("read_queue_ratio");
    if (f <= 0.0 || f >= 1.0) c.fail("read_queue_ratio", "must lie strictly between 0 and 1");
  });
  DeadlineScheduler::declare_params(r.sub("deadline"));
}

BlkMqQueue::Stats::Stats(const StatGroup& s)
    : back_merges(s.counter("back_merges", "merges", "I/Os appended to a queued request")),
      front_merges(s.counter("front_merges", "merges", "I/Os prepended to a queued request")),
      plug_merges(s.counter("plug_merges", "merges", "of the merges, those made in a plug")),
      plug_flushes(s.counter("plug_flushes", "flushes", "plugs flushed to the queues")),
      dispatches(s.counter("dispatches", "commands", "requests issued to the driver (one command each)")),
      tag_waits(s.counter("tag_waits", "requests", "requests queued while their hardware queue had no tag")),
      bypassed(s.counter("bypassed", "requests", "FlashShare: requests that bypassed the queues")),
      hazard_ordered(s.counter("hazard_ordered", "requests",
                               "FlashShare: queued requests issued ahead of an overlapping bypassing one")),
      hazard_merged(s.counter("hazard_merged", "requests",
                              "FlashShare: queued contiguous requests merged into a bypassing one")),
      splits(s.counter("splits", "I/Os", "I/Os larger than the largest transfer, split into pieces")),
      split_pieces(s.counter("split_pieces", "I/Os", "pieces the split I/Os became")),
      kblockd_runs(s.counter("kblockd_runs", "runs", "hardware-queue runs by kblockd (dispatch=kblockd)")),
      sync_runs(s.counter("sync_runs", "runs",
                          "hardware-queue runs in the submitter's context at a plug flush (dispatch=kblockd)")) {}

BlkMqQueue::BlkMqQueue(const ScopedConfig& cfg, const StatGroup& s, BlkMqDriver& drv, unsigned cores,
                       unsigned hw_queues)
    : drv_(drv),
      cost_{cfg.get_time("insert_cost"), cfg.get_time("merge_search_cost")},
      deadline_(cfg.is("scheduler", "deadline")),
      bypass_(cfg.get_switch("bypass")),
      isolate_(cfg.get_switch("rw_isolation") && hw_queues >= 2),
      kblockd_(cfg.is("dispatch", "kblockd")),
      direct_(cfg.get_bool("direct_issue")),
      run_cost_(cfg.get_time("run_cost")),
      dispatch_cost_(cfg.get_time("dispatch_cost")),
      runs_(cores),
      max_segments_(static_cast<uint32_t>(cfg.get_int("max_segments"))),
      hw_(hw_queues),
      plugs_(cores),
      st_(s) {
  uint32_t tags = drv.queue_tags();
  for (auto& h : hw_) {
    h.free_tags = tags;
    if (deadline_)
      h.sched = std::make_unique<DeadlineScheduler>(DeadlineScheduler::params_from(cfg.sub("deadline")), s.group("deadline"));
    else
      h.sched = std::make_unique<NoneScheduler>();
  }
  if (isolate_) {
    auto n = static_cast<long>(hw_queues);
    read_queues_ = static_cast<unsigned>(
        std::clamp(std::lround(double(n) * cfg.get_real("read_queue_ratio")), 1L, n - 1));
  }
  for (unsigned c = cores; c-- > 0;)  // the lowest core mapped to a queue is its home
    for (bool write : {false, true}) hw_[hwq_for(c, write)].home = c;
}

BlkMqQueue::~BlkMqQueue() = default;

unsigned BlkMqQueue::hwq_for(unsigned core, bool write) const {
  auto n = hw_queues();
  if (!isolate_) return core % n;
  return write ? read_queues_ + core % (n - read_queues_) : core % read_queues_;
}

// A polled request stays on its own core's queue, whose poll queue pair that
// core spins on (Linux's separate map of poll hardware queues): isolation
// splits only the interrupt-driven ones.
unsigned BlkMqQueue::hwq_for(const IoRequest& io, unsigned core) const {
  return io.polled ? core % hw_queues() : hwq_for(core, io.write);
}

size_t BlkMqQueue::waiting(unsigned hwq) const { return hw_[hwq].dispatch.size() + hw_[hwq].sched->size(); }

uint32_t BlkMqQueue::max_bytes() const {
  uint32_t t = drv_.max_transfer();
  return t ? t : kNoMdtsLimit;
}

uint32_t BlkMqQueue::piece_bytes(const IoRequest& io) const {
  uint32_t block = io.nlb ? io.bytes / io.nlb : 1;
  return std::max(block, max_bytes() / block * block);
}

// ---------------------------------------------------------------- splitting

// As Linux's bio split: pieces of the largest transfer from the start of the
// I/O, the last one the rest, each carrying its part of the same buffer.
void BlkMqQueue::split(IoRequest& io, unsigned core, Tick now) {
  ++st_.splits;
  Split* sp;
  if (free_splits_.empty()) {
    sp = &split_pool_.emplace_back();
  } else {
    sp = free_splits_.back();
    free_splits_.pop_back();
  }
  *sp = Split{};
  sp->parent = &io;
  uint32_t step = piece_bytes(io), block = io.bytes / io.nlb;
  for (uint32_t off = 0; off < io.bytes; off += step) {
    IoRequest* p;
    if (free_pieces_.empty()) {
      p = &piece_pool_.emplace_back();
    } else {
      p = free_pieces_.back();
      free_pieces_.pop_back();
    }
    *p = io;  // owner, slot, direction, attribute, polling, issue time and stage clock so far
    p->bytes = std::min(step, io.bytes - off);
    p->lba = io.lba + off / block;
    p->nlb = p->bytes / block;
    p->buf_addr = io.buf_addr + off;
    p->buf = io.buf ? io.buf + off : nullptr;
    sp->pieces.push_back(p);
    split_of_[p] = sp;
  }
  sp->left = static_cast<unsigned>(sp->pieces.size());
  st_.split_pieces += sp->left;
  for (IoRequest* p : sp->pieces) submit(*p, core, now);  // none completes before all are submitted
}

IoRequest* BlkMqQueue::fan_in(IoRequest& r) {
  auto it = split_of_.find(&r);
  if (it == split_of_.end()) return &r;
  Split* sp = it->second;
  if (r.status && !sp->status) sp->status = r.status;  // an error beats success; the first error stands
  if (--sp->left > 0) return nullptr;
  IoRequest& app = *sp->parent;
  complete_from_parts(app, r, sp->status, sp->pieces);
  for (IoRequest* p : sp->pieces) {
    split_of_.erase(p);
    free_pieces_.push_back(p);
  }
  free_splits_.push_back(sp);
  return &app;
}

// ---------------------------------------------------------------- merging

// Can a command end with data ending at `a_end` and go on with data starting
// at `b_start`? Linux's virt boundary for NVMe: no gap inside a PRP page.
static bool no_gap(uint64_t a_end, uint64_t b_start) { return a_end % kPage == 0 && b_start % kPage == 0; }

bool BlkMqQueue::can_join(const BlkRequest& a, const IoRequest& first_of_b, uint32_t b_bytes,
                          uint32_t b_segs) const {
  return uint64_t(a.bytes) + b_bytes <= max_bytes() && a.segments + b_segs <= max_segments_ &&
         no_gap(a.tail->buf_addr + a.tail->bytes, first_of_b.buf_addr);
}

bool BlkMqQueue::can_merge(const BlkRequest& rq, const IoRequest& io, bool& front) const {
  // Linux merges no requests whose REQ_FUA differs; a discard here is one
  // DSM range of its own (fio's trims are synchronous, one at a time).
  if (io.flush || io.trim || io.raw || rq.head->flush || rq.head->trim || rq.write != io.write || rq.attr != io.attr ||
      rq.head->fua != io.fua)
    return false;
  if (rq.end() == io.lba && can_join(rq, io, io.bytes, 1)) {
    front = false;
    return true;
  }
  if (io.lba + io.nlb == rq.lba && uint64_t(rq.bytes) + io.bytes <= max_bytes() &&
      rq.segments + 1 <= max_segments_ && no_gap(io.buf_addr + io.bytes, rq.head->buf_addr)) {
    front = true;
    return true;
  }
  return false;
}

BlkMqQueue::Merge BlkMqQueue::find_merge(const IoRequest& io, unsigned core) const {
  Merge m;
  for (BlkRequest* rq : hw_[hwq_for(io, core)].sched->merge_candidates(io, core)) {
    ++m.examined;
    if (can_merge(*rq, io, m.front)) {
      m.rq = rq;
      break;
    }
  }
  return m;
}

void BlkMqQueue::merge(BlkRequest* rq, IoRequest& io, bool front) {
  if (front) {
    io.next_in_cmd = rq->head;
    rq->head->merged = true;
    rq->head = &io;
    rq->lba = io.lba;
    ++st_.front_merges;
  } else {
    rq->tail->next_in_cmd = &io;
    rq->tail = &io;
    io.merged = true;
    ++st_.back_merges;
  }
  rq->nlb += io.nlb;
  rq->bytes += io.bytes;
  ++rq->segments;
}

// ---------------------------------------------------------------- requests

BlkRequest* BlkMqQueue::make(IoRequest& io, unsigned core) {
  BlkRequest* rq;
  if (free_.empty()) {
    rq = &pool_.emplace_back();
  } else {
    rq = free_.back();
    free_.pop_back();
  }
  *rq = BlkRequest{};
  rq->head = rq->tail = &io;
  rq->write = io.write;
  rq->lba = io.lba;
  rq->nlb = io.nlb;
  rq->bytes = io.bytes;
  rq->segments = 1;
  rq->attr = io.attr;
  rq->core = core;
  rq->hwq = hwq_for(io, core);
  rq->seq = seq_++;
  return rq;
}

void BlkMqQueue::release(BlkRequest* rq) { free_.push_back(rq); }

void BlkMqQueue::issue(BlkRequest* rq, Tick now) {
  HwQueue& q = hw_[rq->hwq];
  --q.free_tags;
  for (IoRequest* io = rq->head; io; io = io->next_in_cmd) io->clock.mark(Stage::BlkMq, now);
  IoRequest* head = rq->head;
  head->attr = rq->attr;  // the command's attribute (a hazard merge may join attributes)
  unsigned h = rq->hwq;
  ++st_.dispatches;
  release(rq);
  drv_.issue(*head, h);
}

BlkRequest* BlkMqQueue::next_to_dispatch(HwQueue& q, Tick now) {
  if (q.free_tags == 0) return nullptr;
  if (q.dispatch.empty()) return q.sched->dispatch(now);
  BlkRequest* rq = q.dispatch.front();
  q.dispatch.pop_front();
  return rq;
}

void BlkMqQueue::run(unsigned h, Tick now) {
  while (BlkRequest* rq = next_to_dispatch(hw_[h], now)) issue(rq, now);
}

// With kblockd dispatch the submitter runs the queue itself unless another
// run has it (that run, or the one its end asks for, takes this request);
// page-cache write-back is asynchronous (not REQ_SYNC) and left to kblockd.
void BlkMqQueue::insert(BlkRequest* rq, Tick now, unsigned core) {
  HwQueue& q = hw_[rq->hwq];
  if (q.free_tags == 0) ++st_.tag_waits;
  q.sched->insert(rq, now);
  if (!kblockd_) return run(rq->hwq, now);
  bool async = !direct_ || (rq->write && rq->head->cache);
  request_run(rq->hwq, async ? q.home : core, async);
}

void BlkMqQueue::request_run(unsigned h, unsigned core, bool by_kblockd) {
  HwQueue& q = hw_[h];
  if (q.queued || q.running) return;  // that run, or the one its end asks for, takes these too
  q.queued = true;
  runs_[core].push_back({h, by_kblockd, 0, {}});
  if (on_run_queued) on_run_queued(core);
}

BlkMqQueue::Run BlkMqQueue::next_run(unsigned core, Tick now) {
  Run r = std::move(runs_[core].front());
  runs_[core].pop_front();
  HwQueue& q = hw_[r.hwq];
  q.queued = false;
  q.running = true;
  ++(r.kblockd ? st_.kblockd_runs : st_.sync_runs);
  while (BlkRequest* rq = next_to_dispatch(q, now)) {
    --q.free_tags;  // held from now: the run owns them
    r.taken.push_back(rq);
  }
  r.cpu = run_cost_ + Tick(r.taken.size()) * dispatch_cost_;
  return r;
}

void BlkMqQueue::end_run(Run& r, Tick now) {
  HwQueue& q = hw_[r.hwq];
  for (BlkRequest* rq : r.taken) {
    ++q.free_tags;  // issue() takes it back
    issue(rq, now);
  }
  q.running = false;
  if ((!q.dispatch.empty() || !q.sched->empty()) && q.free_tags > 0) request_run(r.hwq, q.home, true);
}

void BlkMqQueue::send_or_hold(BlkRequest* rq, Tick now) {
  HwQueue& q = hw_[rq->hwq];
  if (q.free_tags > 0 && q.dispatch.empty() && !q.running) {
    issue(rq, now);
  } else {
    ++st_.tag_waits;
    q.dispatch.push_back(rq);
    if (kblockd_ && q.free_tags > 0) request_run(rq->hwq, q.home, true);
  }
}

// ---------------------------------------------------------------- submission

Tick BlkMqQueue::submit_cost(const IoRequest& io, unsigned core) const {
  if (splits(io)) {  // each piece as if it met the queues as they are now
    uint32_t step = piece_bytes(io), block = io.bytes / io.nlb;
    Tick t = 0;
    for (uint32_t off = 0; off < io.bytes; off += step) {
      IoRequest p = io;
      p.bytes = std::min(step, io.bytes - off);
      p.lba = io.lba + off / block;
      p.nlb = p.bytes / block;
      p.buf_addr = io.buf_addr + off;
      t += submit_cost(p, core);
    }
    return t;
  }
  if (bypasses(io)) {
    size_t examined = plugs_[core].requests.size();
    for (const auto& h : hw_) examined += h.sched->size();
    return Tick(examined) * cost_.merge_search + (kblockd_ ? dispatch_cost_ : 0);  // issued in the submitter's context
  }
  const Plug& p = plugs_[core];
  if (p.active) {
    bool front;
    BlkRequest* last = p.last();
    if (!last) return cost_.insert;
    return cost_.merge_search + (can_merge(*last, io, front) ? 0 : cost_.insert);
  }
  const HwQueue& q = hw_[hwq_for(io, core)];
  if (goes_straight(q)) return kblockd_ ? dispatch_cost_ : 0;  // kblockd: dispatched in the submitter's context
  Merge m = find_merge(io, core);
  return Tick(m.examined) * cost_.merge_search + (m.rq ? 0 : cost_.insert);
}

void BlkMqQueue::submit(IoRequest& io, unsigned core, Tick now) {
  io.next_in_cmd = nullptr;
  io.merged = false;
  if (splits(io)) return split(io, core, now);
  if (bypasses(io)) return bypass(io, core, now);
  Plug& p = plugs_[core];
  if (p.active) {
    bool front;
    if (BlkRequest* last = p.last(); last && can_merge(*last, io, front)) {
      merge(last, io, front);
      ++st_.plug_merges;
      return;
    }
    if (p.full()) {
      ++st_.plug_flushes;
      std::vector<BlkRequest*> batch;
      batch.swap(p.requests);
      for (BlkRequest* rq : batch) insert(rq, now, core);
    }
    p.requests.push_back(make(io, core));
    return;
  }
  HwQueue& q = hw_[hwq_for(io, core)];
  if (goes_straight(q)) return issue(make(io, core), now);
  Merge m = find_merge(io, core);
  if (m.rq) {
    merge(m.rq, io, m.front);
    q.sched->merged(m.rq, m.front);
    return;
  }
  insert(make(io, core), now, core);
}

void BlkMqQueue::start_plug(unsigned core) { plugs_[core].active = true; }

void BlkMqQueue::finish_plug(unsigned core, Tick now) {
  Plug& p = plugs_[core];
  p.active = false;
  if (p.requests.empty()) return;
  ++st_.plug_flushes;
  std::vector<BlkRequest*> batch;
  batch.swap(p.requests);
  for (BlkRequest* rq : batch) insert(rq, now, core);  // blk_mq_flush_plug_list
}

void BlkMqQueue::completed(unsigned hwq, Tick now) {
  HwQueue& q = hw_[hwq];
  ++q.free_tags;
  if (!kblockd_) return run(hwq, now);
  if (!q.running && (!q.dispatch.empty() || !q.sched->empty())) request_run(hwq, q.home, true);
}

// ---------------------------------------------------------------- FlashShare bypass

// A latency-critical request skips the queues (FlashShare sec. 3.3): queued
// requests it overlaps go first (hazards), contiguous ones it can carry join
// it. One function (about 65 lines) because both decisions are taken on the
// queues as they were before anything moved.
void BlkMqQueue::bypass(IoRequest& io, unsigned core, Tick now) {
  ++st_.bypassed;
  BlkRequest* rq = make(io, core);
  struct Queued {
    BlkRequest* rq;
    IoScheduler* sched;  // nullptr: in the submitter's plug
  };
  std::vector<Queued> all;
  for (BlkRequest* r : plugs_[core].requests) all.push_back({r, nullptr});
  for (auto& h : hw_)
    for (BlkRequest* r : h.sched->queued()) all.push_back({r, h.sched.get()});
  auto hazard = [](const BlkRequest& a, uint64_t lba, uint32_t nlb, bool write) {
    return a.overlaps(lba, nlb) && (a.write || write);
  };
  // Decided on the queues as they are, before anything moves.
  std::vector<Queued> ahead, joined;
  for (const Queued& q : all) {
    const BlkRequest& c = *q.rq;
    if (c.overlaps(io.lba, io.nlb)) {
      if (c.write || io.write) ahead.push_back(q);
      continue;
    }
    if (c.head->flush || c.head->trim || io.trim || c.write != io.write || (c.end() != io.lba && io.lba + io.nlb != c.lba))
      continue;
    // A neighbour in hazard with another queued request keeps its place:
    // moving it would reorder it against that one.
    bool tied = false;
    for (const Queued& o : all)
      if (o.rq != q.rq && hazard(*o.rq, c.lba, c.nlb, c.write)) tied = true;
    if (!tied) joined.push_back(q);
  }
  auto take = [&](const Queued& q) {
    if (q.sched)
      q.sched->remove(q.rq);
    else
      plugs_[core].remove(q.rq);
  };
  for (const Queued& q : joined) {
    BlkRequest& c = *q.rq;
    bool before = c.end() == io.lba;
    if (before ? rq->lba != io.lba : rq->end() != io.lba + io.nlb) continue;  // that side is taken
    if (before ? !can_join(c, *rq->head, rq->bytes, rq->segments) : !can_join(*rq, *c.head, c.bytes, c.segments))
      continue;
    take(q);
    if (before) {
      c.tail->next_in_cmd = rq->head;
      rq->head->merged = true;
      rq->head = c.head;
      rq->lba = c.lba;
    } else {
      rq->tail->next_in_cmd = c.head;
      c.head->merged = true;
      rq->tail = c.tail;
    }
    rq->nlb += c.nlb;
    rq->bytes += c.bytes;
    rq->segments += c.segments;
    release(&c);
    ++st_.hazard_merged;
  }
  std::sort(ahead.begin(), ahead.end(), [](const Queued& a, const Queued& b) { return a.rq->seq < b.rq->seq; });
  for (const Queued& q : ahead) {
    take(q);
    ++st_.hazard_ordered;
    send_or_hold(q.rq, now);
  }
  send_or_hold(rq, now);
}

}  // namespace vp::host
