// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A host CPU core: the threads placed on it (fio jobs, online workers) run
// under its scheduler (CoreScheduler, CFS-like: slices, wake-up preemption,
// context switches with a cache-pollution penalty), and the kernel work they
// cause runs in their context: the submission path (syscall, blk-mq, NVMe
// driver) costs submit_cost per I/O plus blk-mq's own CPU time (insertion,
// merge search); a job with iodepth_batch_submit above 2 submits its batch
// under a plug, as Linux's io_submit does. A thread's compute
// (thinktime_spin, thinktime_insts, an online worker's request) is user time
// that interrupts preempt and that other runnable threads share by slices.
// An MSI-X interrupt costs isr_cost plus complete_cost per completion reaped,
// in whatever ran; the completions go to their threads, which see them when
// they are next switched in (a blocked thread: a context switch, after the
// thread that runs if it does not preempt it). A completion reaped on
// another core (read/write queue isolation, interrupt affinity, dedcore) goes
// to the thread's own core. One calendar process per core (Calendar::spawn), woken
// by interrupts, wake-ups and timers; none per request or per software thread.
//
// Core time is accounted per category (CpuAccount), together always the simulated time:
// user (threads' compute), kernel (submission path incl. blk-mq, completion
// reaping, the page cache), irq (entering/leaving the ISR), ctxsw (context
// switches and their cache penalty), poll and idle.
//
// Buffered jobs (direct=0) go through the page cache instead of blk-mq: the
// core pays the cache's copy costs and submits the device reads it starts
// (one submit_cost per run of pages plus blk-mq's per-page costs); a job's
// fsync is carried out in its thread. Core 0 is also the page cache's
// flusher: write-back is kernel time there, ahead of the threads (the
// flusher's own thread is not scheduled).
//
// Polled completion (host.nvme.completion, FlashShare OSDI'18 sec. 3.4;
// which I/Os are polled, hybrid's sleep and dedcore's hand-over costs are
// the mode's class, vp/host/completion): a thread with polled I/O in flight and nothing to issue spins on its core's
// polled CQ (category poll) and stays runnable, so it keeps the core until
// its slice ends if others want it. Event driven: it waits for a device
// write to land in host memory, and the check that sees the entry is the
// first whole poll_cost period since it began spinning, so the checks are
// counted, not simulated. The reap costs complete_cost, with no ISR and no
// context switch. Hybrid first sleeps hybrid_sleep_fraction of the mean
// completion time of the core's earlier polled I/Os, and pays a context
// switch when the timer wakes it. With dedcore, core host.core.poll_core
// does nothing but poll every CQ (all its time is poll) and hands the
// completions to the threads' cores, which block as with interrupts.
#include <deque>
#include <memory>
#include <systemc>
#include <vector>

#include "vp/core/Event.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/host/completion/CompletionMode.hpp"
#include "vp/host/sched/CoreScheduler.hpp"
#include "vp/host/sched/CpuAccount.hpp"
#include "vp/host/hw/InterruptController.hpp"
#include "vp/host/block/BlockDevices.hpp"
#include "vp/host/block/IoRequest.hpp"
#include "vp/host/mm/PageCache.hpp"
#include "vp/host/driver/NvmeDriver.hpp"
#include "vp/host/sched/WakePlacement.hpp"
#include "vp/core/Rng.hpp"

namespace vp::host {

class AcceleratorDriver;
class BlkMqQueue;
class Workload;
class FioJobRunner;

// How a core reaps completions: the driver's mode, and whether it is
// dedcore's polling core.
struct CoreRole {
  NvmeDriver::Completion completion = NvmeDriver::Completion::Interrupt;
  bool polling_core = false;
};

struct CoreCosts {
  Tick submit, isr, complete, ctx_switch, poll;
};

class HostCore : public sc_core::sc_module, public IrqSink {
 public:
  sc_core::sc_export<IrqSink> irq;

  // The host's scope ("host"): the core count (cores), the cores' costs
  // (core.*), the scheduler (sched.*); statistics per core (core<id>.*) and
  // summed over the cores.
  static constexpr const char* kScope = "host";
  static void declare_params(const ParamScope& host);
  static CoreCosts costs_from(const ScopedConfig& host);
  // `role`: how the driver reaps completions and whether this core is the
  // polling one (the platform joins the two). `irqs`: where an interrupt's
  // vector finds its driver's handler; `devs`: the block devices the jobs
  // use, each with its driver and blk-mq queue.
  HostCore(sc_core::sc_module_name name, Services& svc, unsigned id, const CoreRole& role, BlockDevices& devs,
           InterruptRouting& irqs, Workload& wl, const std::string& scope = kScope);

  void interrupt(uint32_t vector) override;
  // All cores of the platform, indexed by id (to wake a job's core when
  // another core completed its I/O).
  void set_peers(const std::vector<HostCore*>* peers) { peers_ = peers; }
  void set_page_cache(PageCache* pc) { pc_ = pc; }
  // The I/O-stack accelerator's driver above blk-mq (host.nvme.completion = xler).
  void set_accelerator(AcceleratorDriver* a);
  // Something for this core to look at (the page cache's flusher work).
  void kick() { Calendar::get().notify(wake_); }
  // blk-mq queued a hardware-queue run here (kblockd dispatch): an idle
  // core starts it now, a busy one when its running thread's step ends.
  void blk_run_queued();
  // An I/O of a thread of this core completed (reaped here or on another
  // core): the thread sees it when it next runs.
  // `from`: the core that reaped it (the waker).
  void hand(IoRequest& r, unsigned from);
  // The page cache finished a buffered I/O of a thread here, or its fsync.
  void hand_cached(IoRequest& r, unsigned from);
  void hand_synced(FioJobRunner& j, unsigned from);
  // An fsync's write-back is done: its thread sends the Flush (volatile write cache).
  void hand_flush(FioJobRunner& j, IoRequest& flush, unsigned from);
  uint64_t wakeups() const { return wakeups_; }
  // Brings the counters up to `now` (the idle or busy stretch in progress)
  // and returns them; call when the simulation has stopped.
  CpuTime account_to(Tick now) { return cpu_.account_to(now); }
  const CoreScheduler& scheduler() const { return sched_; }
  // Core time of `insts` instructions at host.core.clock x host.core.ipc.
  Tick insts_time(uint64_t insts) const;

 private:
  void run();
  void scan(Tick now);  // which threads are runnable (runnable_), noting wake-ups
  void news(HostThread& t, unsigned from);  // something for `t` came from core `from`
  // host.sched.migration: the core a waking thread of this core runs on,
  // woken from core `waker`; moves it there when it is another.
  bool migrate(HostThread& t, unsigned waker);
  CoreLoad load() const;  // as WakePlacement sees this core
  void background(Tick now);  // host.sched.background_rate's work, when due
  Tick background_gap();
  bool runnable(HostThread& t, Tick now);
  Tick next_timer(Tick now);  // the next time a thread here (or core 0's flusher) may become runnable
  void step(HostThread& t);  // one piece of the thread's work
  bool take_news(HostThread& t);
  void compute(HostThread& t);
  void after_compute(HostThread& t);
  void issue(HostThread& t);
  void service_interrupts();
  // Per completion reaped from done_[from]: complete_cost into `cat`, the
  // device half joined, the Interrupt stage ended at `t`.
  void reaped(size_t from, Tick& t, Tick& cat);
  // Frees the tags, runs `c`, then hands done_'s I/Os to their threads.
  void finish(CpuTime c);
  void deliver(IoRequest& r, Tick end);  // ends the I/O for its job (requests.csv row too)
  HostCore& core_of(const FioJobRunner& j);
  // Polled completion (see the file comment).
  void poll(HostThread& t);
  void reap_polled();
  [[noreturn]] void run_dedicated();
  void spun(Tick origin);  // rounds the spin since `origin` up to whole checks and counts them
  bool polled_ready() const;  // a polled completion (CQ or the accelerator's register) waits for this core
  Tick run_user(Tick d, Tick limit);  // compute for d, cut short at `limit` or a wake-up; returns the time run
  // Does what the page cache left for this core (CPU, device I/Os to
  // submit) and hands finished buffered I/Os and fsyncs to their threads.
  void cache_work(PageCache::Work& w);
  void submit_flush(IoRequest& io);  // an fsync's Flush, on this core's queue
  // One I/O into the block layer from this core: to the accelerator's
  // driver when it takes it (xler), else to blk-mq; `path` is the
  // submission path's CPU time besides blk-mq's own.
  void submit_io(IoRequest& io, Tick path);
  void submit_md(IoRequest& io, Tick path);  // md splits it; its member I/Os go to their queues
  IoRequest* md_fan_in(IoRequest& member);   // a member I/O of the array completed here
  // md's member I/Os into their queues: `cpu` first, then `per_part` and
  // blk-mq's submission per member; `array_io`, when given, is submitted too.
  void submit_members(const std::vector<IoRequest*>& parts, Tick cpu, Tick per_part, IoRequest* array_io);
  void run_hw_queue(BlkMqQueue& blk);  // the oldest blk-mq run of `blk` queued here
  BlkMqQueue& blk(const IoRequest& r) { return *devs_.nvme(r.dev).blk; }

  Services& svc_;
  ScopedConfig cfg_;
  StatGroup host_stats_, stats_;  // the host's (summed over cores) and this core's
  unsigned id_;
  BlockDevices& devs_;
  InterruptRouting& irqs_;
  Workload& wl_;
  const std::vector<HostCore*>* peers_ = nullptr;
  PageCache* pc_ = nullptr;
  AcceleratorDriver* accel_ = nullptr;
  PageCache::Work cw_;
  uint64_t remote_ = 0;  // news for a thread here since the core last looked
  CoreCosts cost_;
  CoreScheduler sched_;
  std::vector<HostThread*> runnable_;
  WakePlacement placement_;
  std::vector<CoreLoad> loads_;  // every core's, at a wake-up (reused)
  bool migration_;
  bool idle_ = true;       // no thread of this core runs or wants to (Linux's idle_cpu)
  bool background_ = false;  // running background work
  double bg_rate_;         // per ps
  Tick bg_cost_, bg_next_ = ~Tick(0);  // kNever: none
  Rng bg_rng_;
  std::deque<uint32_t> pending_;
  Event wake_;
  uint64_t wakeups_ = 0;
  std::vector<IoRequest*> done_;
  double insts_per_ps_;
  std::unique_ptr<CompletionMode> completion_;  // the driver's mode, as this core reaps
  bool dedicated_;              // this core is dedcore's polling core
  Tick poll_period_;            // one check of what a spinning thread polls
  // The statistics it registers, named in its scope (a group, as gem5's).
  struct Stats {
    explicit Stats(const StatGroup& stats, const StatGroup& host_stats);
    Counter &isrs, &interrupts, &ctx_switches;
    Counter &cache_penalty_ps, &preemptions, &migrations, &background_runs;
    Counter &polls, &hybrid_sleeps, &hybrid_sleep_ps, &irqs_avoided;
  };
  Stats st_;
  CpuAccount cpu_;  // the core's time by category
};

}  // namespace vp::host
