// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/sched/HostCore.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "vp/core/Calendar.hpp"
#include "vp/core/RequestLog.hpp"
#include "vp/core/SimControl.hpp"
#include "vp/host/driver/AcceleratorDriver.hpp"
#include "vp/host/block/BlkMqQueue.hpp"
#include "vp/host/workload/FioJobRunner.hpp"
#include "vp/host/driver/NvmeDriver.hpp"
#include "vp/host/workload/Workload.hpp"

namespace vp::host {

void HostCore::declare_params(const ParamScope& r) {
  // FlashShare (sec. 5.2): ISR plus context switch take more than 6 us.
  r.integer("cores", 4, "host CPU cores, each with its own NVMe I/O queue pair").range(1, 256);
  r.time("core.submit_cost", "1.5us", "CPU time to submit one I/O (syscall, blk-mq, NVMe driver)");
  r.time("core.isr_cost", "2.5us", "CPU time of entering and leaving the MSI-X interrupt handler");
  r.time("core.complete_cost", "0.5us", "CPU time per completion reaped in the interrupt handler");
  r.time("core.ctx_switch_cost", "3.5us", "context switch to a thread blocked waiting for completions");
  // FlashShare Table 2: 2 GHz ARM cores. With the IPC this turns an
  // application's instructions between I/Os (thinktime_insts, app=) into core time.
  // One pass of blk_poll over a CQ: a few loads and a branch.
  r.time("core.poll_cost", "100ns",
         "CPU time of one check of a polled completion queue (the granularity at which polling sees an entry)");
  CompletionMode::declare_params(r);  // hybrid's and dedcore's keys
  r.rule([](const ScopedConfig& c) {
    if (c.get_time("core.poll_cost") == 0) c.fail("core.poll_cost", "must be above 0");
  });
  r.freq("core.clock", "2GHz", "host core clock, for jobs' compute given in instructions (thinktime_insts, app=)");
  r.real("core.ipc", 1.0, "instructions per cycle of the host cores' compute (thinktime_insts, app=)")
      .range(0.01, 16);
  CoreScheduler::declare_params(r.sub("sched"));
}

CoreCosts HostCore::costs_from(const ScopedConfig& c) {
  return {c.get_time("core.submit_cost"), c.get_time("core.isr_cost"), c.get_time("core.complete_cost"),
          c.get_time("core.ctx_switch_cost"), c.get_time("core.poll_cost")};
}


HostCore::Stats::Stats(const StatGroup& stats, const StatGroup& host_stats)
    : isrs(host_stats.total("isr_runs", "interrupts", "interrupt handler invocations")),
      interrupts(stats.counter("interrupts", "interrupts",
                               "interrupt handler invocations on this core")),
      ctx_switches(host_stats.total("context_switches", "switches",
                                    "context switches: to a woken thread, or between threads on a core")),
      cache_penalty_ps(host_stats.total("sched.cache_penalty_ps", "ps",
                                        "core time of context switches' cache-pollution penalty, all cores")),
      preemptions(host_stats.total("sched.preemptions", "switches",
                                   "runnable threads taken off a core (slice over, or a waking thread preempts)")),
      migrations(host_stats.total("sched.migrations", "threads",
                                  "waking threads moved to another core (host.sched.migration)")),
      background_runs(host_stats.total("sched.background_runs", "runs",
                                       "pieces of background work run (host.sched.background_rate)")),
      polls(host_stats.total("polls", "checks", "checks of polled completion queues (poll_cost each)")),
      hybrid_sleeps(host_stats.total("hybrid_sleeps", "sleeps", "hybrid polling sleeps before polling")),
      hybrid_sleep_ps(host_stats.total("hybrid_sleep_ps", "ps", "time slept by hybrid polling, all cores")),
      irqs_avoided(host_stats.total("interrupts_avoided", "completions",
                                    "completions reaped by polling (no interrupt raised for them)")) {}

HostCore::HostCore(sc_core::sc_module_name name, Services& svc, unsigned id, const CoreRole& role,
                   BlockDevices& devs, InterruptRouting& irqs, Workload& wl,
                   const std::string& scope)
    : sc_module(name),
      irq("irq"),
      svc_(svc),
      cfg_(svc.cfg, scope),
      host_stats_(svc.stats, scope),
      stats_(host_stats_.group(fmt::format("core{}", id))),
      id_(id),
      devs_(devs),
      irqs_(irqs),
      wl_(wl),
      cost_(costs_from(cfg_)),
      sched_(cfg_.sub("sched"), static_cast<unsigned>(cfg_.get_int("cores")), cost_.ctx_switch, id,
             wl.runners_on(id)),
      placement_(static_cast<unsigned>(cfg_.get_int("cores")), static_cast<unsigned>(cfg_.get_int("sched.llc_cores"))),
      migration_(cfg_.get_bool("sched.migration")),
      bg_rate_(cfg_.get_real("sched.background_rate") / 1e12),
      bg_cost_(cfg_.get_time("sched.background_cost")),
      bg_rng_(Rng::derive(svc.seed, 0x6b776f726b657200ull + id)),
      insts_per_ps_(cfg_.get_freq("core.clock") * cfg_.get_real("core.ipc") / 1e12),
      completion_(CompletionMode::make(role.completion, cfg_, devs)),
      dedicated_(role.polling_core),
      st_(stats_, host_stats_),
      cpu_(stats_, host_stats_, svc.waves, [this](Tick d) { sched_.ran(d); }) {
  irq.bind(*this);
  cost_.submit += completion_->lock_handoff();  // dedcore: each submission takes the queue's lock from the polling core
  poll_period_ = cost_.poll;
  Calendar::get().spawn(sc_module::name(), [this] { run(); });
}

void HostCore::set_accelerator(AcceleratorDriver* a) {
  accel_ = a;
  completion_->set_accelerator(a);
  // A thread spinning on the accelerator reads its register across PCIe.
  if (accel_ && accel_->polled()) poll_period_ = accel_->poll_check_cost();
}

bool HostCore::polled_ready() const {
  for (size_t d = 0; d < devs_.nvme_count(); ++d)
    if (devs_.nvme(static_cast<unsigned>(d)).driver->poll_ready(id_)) return true;
  return accel_ && accel_->poll_ready(id_);
}

void HostCore::interrupt(uint32_t vector) {
  pending_.push_back(vector);
  Calendar::get().notify(wake_);
}

HostCore& HostCore::core_of(const FioJobRunner& j) {
  return peers_ && j.core() != id_ ? *(*peers_)[j.core()] : *this;
}

void HostCore::hand(IoRequest& r, unsigned from) {
  HostThread& t = *sched_.of(*r.job);
  if (r.polled && t.polled) --t.polled;
  t.done.push_back(&r);
  news(t, from);
}

void HostCore::hand_cached(IoRequest& r, unsigned from) {
  HostThread& t = *sched_.of(*r.job);
  t.cache_done.push_back(&r);
  news(t, from);
}

void HostCore::hand_synced(FioJobRunner& j, unsigned from) {
  HostThread& t = *sched_.of(j);
  t.synced = true;
  news(t, from);
}

void HostCore::hand_flush(FioJobRunner& j, IoRequest& flush, unsigned from) {
  HostThread& t = *sched_.of(j);
  t.flushes.push_back(&flush);
  news(t, from);
}

// News for a thread that was blocked wakes it: with migration it is placed
// now, in the waker's context, as try_to_wake_up does.
void HostCore::news(HostThread& t, unsigned from) {
  if (migration_ && t.blocked && !t.placed) {
    t.placed = true;
    if (migrate(t, from)) return;
  }
  ++remote_;
  Calendar::get().notify(wake_);
}

void HostCore::submit_flush(IoRequest& io) {
  io.offloaded = false;
  submit_io(io, cost_.submit);
}

void HostCore::submit_io(IoRequest& io, Tick path) {
  if (devs_.is_md(io.dev)) return submit_md(io, path);
  CpuTime k;
  k.kernel = io.offloaded ? accel_->submit_cost() : path + blk(io).submit_cost(io, id_);
  cpu_.busy(k);
  io.clock.mark(Stage::HostSubmit, now_ps());
  if (io.offloaded)
    accel_->submit(io, id_);
  else
    blk(io).submit(io, id_, now_ps());
}

// md's work when a member I/O completes (raid5: the parity and the writes
// after the reads, writes that waited for stripe heads) is this core's.
IoRequest* HostCore::md_fan_in(IoRequest& member) {
  MdRaid::Next next;
  IoRequest* r = devs_.md().fan_in(member, next);
  if (next.submit.empty() && !next.cpu) return r;
  submit_members(next.submit, next.cpu, 0, nullptr);  // md's read phase counts in host_submit
  return r;
}

void HostCore::submit_md(IoRequest& io, Tick path) {
  MdRaid& md = devs_.md();
  // A copy: while this core is busy another one may split an I/O of its own.
  Tick parity = 0;
  const std::vector<IoRequest*> parts = md.split(io, parity);
  submit_members(parts, path + parity, md.bio_cost(), &io);
}

void HostCore::submit_members(const std::vector<IoRequest*>& parts, Tick cpu, Tick per_part, IoRequest* array_io) {
  CpuTime k;
  k.kernel = cpu;
  for (IoRequest* p : parts) k.kernel += per_part + blk(*p).submit_cost(*p, id_);
  cpu_.busy(k);
  const Tick now = now_ps();
  if (array_io) array_io->clock.mark(Stage::HostSubmit, now);
  for (IoRequest* p : parts) {
    p->clock.mark(Stage::HostSubmit, now);
    blk(*p).submit(*p, id_, now);
  }
}

Tick HostCore::insts_time(uint64_t insts) const {
  return round_ps(double(insts) / insts_per_ps_);
}

Tick HostCore::run_user(Tick d, Tick limit) {
  Tick ran = cpu_.busy_until(std::min(d, limit - now_ps()), d, &CpuTime::user, wake_ | wl_.group_started());
  sched_.ran(ran);
  return ran;
}

void HostCore::service_interrupts() {
  Tick t = now_ps();
  CpuTime c;
  done_.clear();
  while (!pending_.empty()) {
    uint32_t v = pending_.front();
    pending_.pop_front();
    ++st_.isrs;
    ++st_.interrupts;
    size_t before = done_.size();
    Tick entered = now_ps();
    irqs_.dispatch(v, done_);
    t += cpu_.stall_since(entered, &CpuTime::irq);  // the handler's uncached reads held the core
    t += cost_.isr;
    c.irq += cost_.isr;
    reaped(before, t, c.kernel);
  }
  finish(c);
}

void HostCore::reaped(size_t from, Tick& t, Tick& cat) {
  for (size_t i = from; i < done_.size(); ++i) {
    IoRequest& r = *done_[i];
    t += cost_.complete;
    cat += cost_.complete;
    // every I/O a merged command carried shares its device half
    join_device_half(r, *devs_.nvme(r.dev).tracker, r.offloaded ? Stage::Accel : Stage::SqWait);
    r.clock.mark(Stage::Interrupt, t);
  }
}

void HostCore::finish(CpuTime c) {
  Tick now = now_ps();
  for (IoRequest* r : done_) {
    const BlockDevices::Nvme& dev = devs_.nvme(r->dev);
    if (DeviceHalf* d = dev.tracker->device(r->sqid, r->cid)) d->valid = false;
    if (!r->merged && !r->offloaded) dev.blk->completed(dev.driver->hw_queue_of(r->sqid), now);  // one tag per command
  }
  cpu_.busy(c);
  Tick end = now_ps();
  cw_ = {};
  for (IoRequest* piece : done_) {
    if (pc_) pc_->observe_status(piece->result, end, cw_);
    IoRequest* r = blk(*piece).fan_in(*piece);  // a split I/O completes with its last piece
    if (r && devs_.has_md() && devs_.md().carries(*r)) r = md_fan_in(*r);  // an array's, with its last member I/O
    if (!r) continue;
    if (r->cache)
      deliver(*r, end);
    else
      core_of(*r->job).hand(*r, id_);
  }
  if (!cw_.runs.empty() || !cw_.done.empty() || !cw_.synced.empty() || !cw_.flushes.empty() || cw_.cpu) {
    PageCache::Work w = std::move(cw_);
    cache_work(w);
  }
}

// A hardware-queue run of kblockd dispatch: kblockd's worker is switched
// in and out; a run in the submitter's context (a plug flush) is not.
void HostCore::run_hw_queue(BlkMqQueue& blk) {
  BlkMqQueue::Run r = blk.next_run(id_, now_ps());
  CpuTime c;
  c.kernel = r.cpu;
  if (r.kblockd) c.ctxsw = 2 * cost_.ctx_switch;
  cpu_.busy(c);
  blk.end_run(r, now_ps());
}

void HostCore::blk_run_queued() {
  if (cpu_.idle() || (dedicated_ && cpu_.spinning())) Calendar::get().notify(wake_);  // a busy core takes it at its next scheduling point
}

void HostCore::cache_work(PageCache::Work& w) {
  CpuTime c;
  c.kernel = w.cpu;
  cpu_.busy(c);
  for (auto& run : w.runs) {  // one run of pages: built once, merged by blk-mq under the plug
    devs_.start_plug(0, id_);  // the page cache is on /dev/nvme0n1
    bool first = true;
    for (IoRequest* io : run) {
      io->offloaded = accel_ && accel_->takes(*io);
      submit_io(*io, first ? cost_.submit : 0);
      first = false;
    }
    devs_.finish_plug(0, id_, now_ps());
  }
  for (IoRequest* r : w.done) {
    r->cache_ready = now_ps();  // the page cache lets it go: its cache_wait ends (take_news)
    core_of(*r->job).hand_cached(*r, id_);
  }
  for (FioJobRunner* j : w.synced) core_of(*j).hand_synced(*j, id_);
  for (auto [j, io] : w.flushes) core_of(*j).hand_flush(*j, *io, id_);
}

// A completed I/O to its owner: the page cache (its device reads and
// write-back) or the job that issued it.
void HostCore::deliver(IoRequest& r, Tick end) {
  r.clock.mark(Stage::Wakeup, end);
  if (svc_.requests) log_request(*svc_.requests, r, end);
  if (Timeline* t = svc_.waves.timeline())
    timeline_request(*t, r, end, t->find_thread(Waves::signal_name(stats_.scope(), "busy")));
  r.commands.clear();  // the I/O may be reused unsplit
  if (r.cache)
    pc_->completed(r, end, cw_);
  else
    r.job->complete(r, end);
}

// ---------------------------------------------------------------- threads

bool HostCore::runnable(HostThread& t, Tick now) {
  if (t.has_news() || t.compute_left) return true;
  FioJobRunner& j = *t.job;
  if (j.wants_sync() && (!j.buffered() || (pc_ && pc_->active()))) return true;
  if (j.can_issue(now)) return true;
  return t.polled > 0 && t.sleep_until <= now;  // spinning for its polled I/O
}

void HostCore::scan(Tick now) {
  runnable_.clear();
  std::vector<HostThread*> waking;
  for (const auto& p : sched_.threads()) {
    HostThread& t = *p;
    bool r = runnable(t, now);
    if (r && t.blocked && migration_ && !t.placed) {
      waking.push_back(&t);  // a timer woke it: placed below, once this core's load is known
      continue;
    }
    if (r && t.blocked) sched_.woken(t);
    if (r) t.placed = false;
    t.blocked = !r;
    if (r) runnable_.push_back(&t);
  }
  idle_ = runnable_.empty();  // at a scheduling point: idle unless another thread wants the core
  for (HostThread* t : waking) {
    if (migrate(*t, id_)) continue;
    sched_.woken(*t);
    t->blocked = false;
    runnable_.push_back(t);
  }
}

CoreLoad HostCore::load() const {
  return {idle_ && !background_ && !dedicated_, static_cast<unsigned>(runnable_.size())};
}

// Linux places a thread when it wakes (select_task_rq_fair). A thread
// spinning for polled I/O never sleeps, and its I/O is on this core's
// polled CQ: it stays.
bool HostCore::migrate(HostThread& t, unsigned waker) {
  if (t.polled || !peers_) return false;
  loads_.clear();
  for (const HostCore* c : *peers_) loads_.push_back(c->load());
  if ((*peers_)[waker]->dedicated_) waker = id_;  // dedcore's polling core runs no threads
  unsigned to = placement_.place(id_, waker, loads_, t.job->spec().cpus_allowed);
  if (to == id_ || (*peers_)[to]->dedicated_) return false;
  HostCore& dest = *(*peers_)[to];
  t.placed = true;
  t.job->move_to(to);
  dest.sched_.adopt(sched_.release(t));
  dest.idle_ = false;  // claimed: the next waking thread looks elsewhere
  ++dest.remote_;
  Calendar::get().notify(dest.wake_);
  ++st_.migrations;
  return true;
}

// Exponential gaps of mean 1 / background_rate (1 - u is in (0, 1]).
Tick HostCore::background_gap() {
  return std::max<Tick>(1, static_cast<Tick>(std::llround(-std::log(1.0 - bg_rng_.unit()) / bg_rate_)));
}

// Background work preempts whatever runs (a kworker woken with a sleeper's
// credit), as kernel time; meanwhile the core is not idle to wake-ups.
void HostCore::background(Tick now) {
  if (bg_next_ == kNever) return;
  while (bg_next_ <= now) {
    ++st_.background_runs;
    bg_next_ += background_gap();
    background_ = true;
    // Interrupts preempt it; a thread they wake finds this core busy.
    for (Tick left = bg_cost_; left;) {
      left -= cpu_.busy_until(left, left, &CpuTime::kernel, wake_);
      if (!pending_.empty()) service_interrupts();
    }
    background_ = false;
    now = now_ps();
  }
}

Tick HostCore::next_timer(Tick now) {
  Tick next = bg_next_ > now ? bg_next_ : kNever;
  for (const auto& p : sched_.threads()) {
    const HostThread& t = *p;
    if (t.sleep_until > now) next = std::min(next, t.sleep_until);
    Tick n = t.job->next_issue_time(now);
    if (n > now) next = std::min(next, n);
  }
  if (pc_ && id_ == 0) next = std::min(next, pc_->flusher_next());  // the periodic write-back
  return next;
}

// The thread takes in what happened while it was off the core (or, when it
// is on it, what the interrupt that preempted it brought).
bool HostCore::take_news(HostThread& t) {
  if (!t.has_news()) return false;
  if (const Tick lines = completion_->lines_per_completion(); lines && !t.done.empty()) {  // the polling core's lines come over
    CpuTime k;
    k.kernel = Tick(t.done.size()) * lines;
    cpu_.busy(k);
  }
  Tick now = now_ps();
  for (IoRequest* r : t.done) deliver(*r, now);
  // A buffered I/O (its device reads and write-backs are the page cache's
  // own requests, with records of their own): host_submit, the thread on
  // its core in PageCache::access and submitting what it started, was marked
  // by issue(); then cache_wait, up to when the page cache handed it back
  // (cache_work: its pages read in, the dirty throttle lifted, on whatever
  // core completed the device I/O, the copy a throttled write does there
  // included); then wakeup, until the thread takes it here. A hit or an
  // unthrottled write waits for nothing: no cache_wait. The cache may have
  // let it go while its thread was still submitting: no cache_wait either.
  for (IoRequest* r : t.cache_done) {
    if (r->cache_ready > r->clock.last) r->clock.mark(Stage::CacheWait, r->cache_ready);
    r->clock.mark(Stage::Wakeup, now);
    t.job->complete(*r, now);
  }
  if (t.synced) t.job->synced(now);
  // blkdev_issue_flush runs in the fsyncing thread once its write-back is done.
  std::vector<IoRequest*> flushes;
  flushes.swap(t.flushes);
  t.done.clear();
  t.cache_done.clear();
  t.synced = false;
  for (IoRequest* f : flushes) submit_flush(*f);
  wl_.job_progress(devs_);
  return true;
}

void HostCore::compute(HostThread& t) {
  Tick now = now_ps();
  Tick limit = std::min(next_timer(now), sched_.slice_end(runnable_.size()));
  t.compute_left -= run_user(t.compute_left, limit);
  if (!t.compute_left) after_compute(t);
}

void HostCore::after_compute(HostThread& t) {
  if (t.after == HostThread::After::Request) t.job->computed();
  if (t.after == HostThread::After::Spin) t.job->spun(now_ps());
  t.after = HostThread::After::None;
  wl_.job_progress(devs_);  // the compute after a job's last I/O may be what it was waiting for
}

void HostCore::step(HostThread& t) {
  if (take_news(t)) return;
  if (t.compute_left) {
    compute(t);
    return;
  }
  FioJobRunner& j = *t.job;
  // A polled completion that landed while the core did something else is
  // reaped by the thread's next check, before it issues more.
  if (t.polled && polled_ready()) {
    ++st_.polls;
    CpuTime c;
    c.poll = poll_period_;
    cpu_.busy(c);
    reap_polled();
    return;
  }
  Tick now = now_ps();
  if (j.wants_sync() && !j.buffered()) {  // blkdev_fsync: a Flush, when the device has a volatile cache
    if (IoRequest* flush = j.start_direct_sync(now)) submit_flush(*flush);
    return;
  }
  if (pc_ && pc_->active() && j.wants_sync()) {
    j.sync_started();
    PageCache::Work w;
    pc_->fsync(j, id_, now, w);
    cache_work(w);
    return;
  }
  if (j.can_issue(now)) {
    issue(t);
    return;
  }
  poll(t);
}

void HostCore::issue(HostThread& t) {
  FioJobRunner& j = *t.job;
  if (uint64_t insts = j.request_compute()) {  // an online worker's compute, before the request's I/Os
    t.compute_left = insts_time(insts);
    t.after = HostThread::After::Request;
    j.compute_started();
    if (!t.compute_left) after_compute(t);
    return;
  }
  // io_submit plugs batches above AIO_PLUG_THRESHOLD (2) requests.
  unsigned batch = j.submit_batch();
  bool buffered = pc_ && j.buffered();
  bool plug = batch > 2 && !buffered && !j.has_trims();  // fio commits what it queued before a trim
  const unsigned dev = j.device();
  if (plug) devs_.start_plug(dev, id_);
  unsigned n = 0;
  do {
    IoRequest& r = j.issue(now_ps());
    if (buffered && !r.trim) {  // the page cache: done now, or when its pages are in / the writer may go on
      PageCache::Work w;
      pc_->access(r, id_, now_ps(), w);
      cache_work(w);  // the copy and lookup, the device reads it started: the thread's CPU time
      r.clock.mark(Stage::HostSubmit, now_ps());
      continue;
    }
    r.offloaded = accel_ && accel_->takes(r);
    r.polled = !r.trim && completion_->polled(j, r);  // BLKDISCARD waits on an interrupt-driven queue
    if (r.polled) ++t.polled;
    submit_io(r, cost_.submit);
  } while (++n < batch && j.can_issue(now_ps()));
  if (plug) devs_.finish_plug(dev, id_, now_ps());
  if (j.spins()) {  // the job's compute after its I/Os, once per I/O issued
    t.compute_left = n * (j.spin_ps() + insts_time(j.spin_insts(now_ps())));
    t.after = HostThread::After::Spin;
    j.compute_started();
    if (!t.compute_left) after_compute(t);
  }
}

// ---------------------------------------------------------------- polling

void HostCore::spun(Tick origin) {
  Tick el = now_ps() - origin;
  uint64_t checks = std::max<uint64_t>(1, (el + poll_period_ - 1) / poll_period_);
  st_.polls += checks;
  CpuTime c;
  c.poll = checks * poll_period_ - el;  // the check under way when the entry landed runs to its end
  cpu_.busy(c);
}

// The thread spins on its core's polled CQ until an entry lands, something
// else needs the core (an interrupt, news for a thread, a timer, the end of
// its slice), or, hybrid, it first sleeps.
void HostCore::poll(HostThread& t) {
  Tick now = now_ps();
  if (Tick s = completion_->nap(t)) {  // asleep: not runnable until the timer; switched back in when it fires
    ++st_.hybrid_sleeps;
    st_.hybrid_sleep_ps += s;
    t.sleep_until = now + s;
    return;
  }
  Tick limit = std::min(next_timer(now), sched_.slice_end(runnable_.size()));
  Tick origin = now;
  remote_ = 0;
  cpu_.set_spinning(true);  // busy in the waveform too
  EventList landed = devs_.nvme(0).driver->memory_written() | wake_ | wl_.group_started();  // one host memory
  if (accel_ && accel_->polled()) landed |= accel_->status_changed();
  for (;;) {
    if (polled_ready() || !pending_.empty() || remote_) break;
    now = now_ps();
    if (limit != kNever && limit <= now) break;
    if (limit == kNever)
      Calendar::get().wait(landed);
    else
      Calendar::get().wait_for(limit - now, landed);
  }
  cpu_.account_to(now_ps());
  cpu_.set_spinning(false);
  spun(origin);
  if (polled_ready()) reap_polled();
}

void HostCore::reap_polled() {
  done_.clear();
  for (size_t d = 0; d < devs_.nvme_count(); ++d) devs_.nvme(static_cast<unsigned>(d)).driver->poll(id_, done_);
  Tick entered = now_ps();
  if (accel_ && accel_->polled()) accel_->poll(id_, done_);  // reads of its register: the core stalls
  cpu_.stall_since(entered, &CpuTime::poll);
  Tick t = now_ps();
  CpuTime c;
  reaped(0, t, c.kernel);
  for (IoRequest* r : done_) {
    if (!r->merged) ++st_.irqs_avoided;
    completion_->reaped_polled(t - r->issued);  // issue to reaped, as Linux's poll statistics time a request
  }
  for (const auto& th : sched_.threads()) th->slept = false;
  finish(c);
}

void HostCore::run_dedicated() {
  if (!wl_.runners_on(id_).empty())
    sim_abort(fmt::format("core {} is host.core.poll_core (dedcore completion) and runs no jobs: place them on "
                          "other cores (cpus_allowed)",
                          id_));
  if (!sim_abort_message().empty()) Calendar::get().halt();  // the run is stopping
  const unsigned n = static_cast<unsigned>(peers_ ? peers_->size() : 1);
  Tick origin = now_ps();
  for (;;) {
    ++wakeups_;
    if (!pending_.empty()) {  // core 0's admin vector
      service_interrupts();
      origin = now_ps();
      continue;
    }
    if (BlkMqQueue* q = devs_.run_pending(id_)) {  // a queue whose home is this core (kblockd dispatch)
      run_hw_queue(*q);
      origin = now_ps();
      continue;
    }
    bool any = false;
    for (size_t d = 0; d < devs_.nvme_count() && !any; ++d)
      for (unsigned k = 0; k < n && !any; ++k) any = devs_.nvme(static_cast<unsigned>(d)).driver->poll_ready(k);
    if (!any) {
      cpu_.set_spinning(true);
      Calendar::get().wait(devs_.nvme(0).driver->memory_written() | wake_);
      cpu_.account_to(now_ps());
      cpu_.set_spinning(false);
      continue;
    }
    spun(origin);
    done_.clear();
    for (size_t d = 0; d < devs_.nvme_count(); ++d)
      for (unsigned k = 0; k < n; ++k) devs_.nvme(static_cast<unsigned>(d)).driver->poll(k, done_);
    Tick t = now_ps();
    CpuTime c;
    reaped(0, t, c.poll);  // reaping is part of the polling loop: all of this core's time is poll
    // Each completion's lines go over to the general cores, and the queue's lock comes back.
    c.poll += Tick(done_.size()) * (completion_->lines_per_completion() + completion_->lock_handoff());
    for (IoRequest* r : done_)
      if (!r->merged) ++st_.irqs_avoided;
    finish(c);
    origin = now_ps();
  }
}

void HostCore::run() {
  bool begun = false;
  for (;;) {
    ++wakeups_;
    if (!pending_.empty()) {  // interrupts first, whatever runs (admin completions arrive before the driver is ready)
      service_interrupts();
      continue;
    }
    remote_ = 0;
    if (!devs_.ready()) {
      cpu_.idle_until(wake_ | devs_.not_ready().ready_event());
      continue;
    }
    if (!begun && id_ == 0) {
      if (pc_) pc_->begin(*devs_.nvme(0).driver, wl_.buffered());
      wl_.begin(devs_);
    }
    if (!begun && bg_rate_ > 0 && !dedicated_) bg_next_ = now_ps() + background_gap();
    begun = true;
    if (dedicated_) run_dedicated();
    if (BlkMqQueue* q = devs_.run_pending(id_)) {  // blk-mq's runs (kblockd dispatch) ahead of the threads
      run_hw_queue(*q);
      continue;
    }
    Tick now = now_ps();
    if (bg_next_ <= now) {
      background(now);
      continue;
    }
    if (pc_ && pc_->active() && id_ == 0 && pc_->flusher_due(now)) {  // write-back ahead of the threads
      PageCache::Work w;
      pc_->flusher_run(now, w);
      cache_work(w);
      continue;
    }
    scan(now);
    uint64_t preempted = sched_.preemptions();
    HostThread* t = sched_.choose(runnable_, now);
    st_.preemptions += sched_.preemptions() - preempted;
    if (t) {
      idle_ = false;
      CoreScheduler::SwitchCost sw = sched_.switch_to(*t, now);
      if (sw.direct + sw.penalty) {
        CpuTime c;
        c.ctxsw = sw.direct + sw.penalty;
        cpu_.busy(c);
        ++st_.ctx_switches;
        st_.cache_penalty_ps += sw.penalty;
        continue;  // interrupts that came meanwhile first; the thread keeps the core
      }
      step(*t);
      continue;
    }
    sched_.idle();
    idle_ = true;
    wl_.job_progress(devs_);
    // An interrupt or news for a thread that came while this core was busy
    // above found no wait to end: look again instead of sleeping on it.
    if (!pending_.empty() || remote_) continue;
    Tick next = next_timer(now);
    if (next == kNever || next <= now)
      cpu_.idle_until(wake_ | wl_.group_started());
    else
      cpu_.idle_until(next - now, wake_ | wl_.group_started());
  }
}

}  // namespace vp::host
