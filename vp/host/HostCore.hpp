#pragma once
// A host CPU core running the workload jobs placed on it and the kernel work
// they cause: the submission path (syscall, blk-mq, NVMe driver) costs
// submit_cost per I/O; an MSI-X interrupt costs isr_cost plus complete_cost
// per completion reaped; waking a thread that was blocked waiting for
// completions costs a context switch. I/Os go through blk-mq (BlkMqQueue),
// which adds its own CPU time (insertion, merge search) to submit_cost; a job
// with iodepth_batch_submit above 2 submits its batch under a plug, as
// Linux's io_submit does. When a completion arrives on another core (read/write
// queue isolation shares queues between cores), that core completes the I/O
// and wakes the job's core, which pays the context switch; the same when
// host.nvme.irq_affinity steers a queue's interrupts to another core. One
// SystemC thread per core, woken by interrupts
// or by the time a job may issue next; none per request.
//
// A job's compute (thinktime_spin, thinktime_insts) runs on its core after
// the issue: while it spins the core does nothing else, so the other jobs on
// it wait to issue and interrupts wait to be serviced (no preemption).
// Core time is accounted per category, together always the simulated time:
// user (job compute), kernel (submission path incl. blk-mq, completion
// reaping), irq (entering/leaving the ISR), ctxsw (waking a blocked thread:
// its own category, not kernel) and idle (waiting for an interrupt or a job).
//
// Buffered jobs (direct=0) go through the page cache instead of blk-mq: the
// core pays the cache's copy costs and submits the device reads it starts
// (one submit_cost per run of pages plus blk-mq's per-page costs); a job's
// fsync is carried out on its core. Core 0 is also the page cache's flusher:
// write-back is kernel time there, ahead of the jobs' issues.
//
// Polled completion (host.nvme.completion, FlashShare OSDI'18 sec. 3.4): a
// core with polled I/O in flight and nothing to issue spins on its polled CQ
// (category poll) instead of sleeping. Event driven: it waits for a device
// write to land in host memory, and the check that sees the entry is the
// first whole poll_cost period since it began spinning, so the checks are
// counted, not simulated. The reap costs complete_cost, with no ISR and no
// context switch. Hybrid first sleeps hybrid_sleep_fraction of the mean
// completion time of the core's earlier polled I/Os, and pays a context
// switch when the timer wakes it. With dedcore, core host.core.poll_core
// does nothing but poll every CQ (all its time is poll) and wakes the
// submitting jobs' cores, which block as with interrupts.
#include <deque>
#include <systemc>
#include <vector>

#include "vp/core/Services.hpp"
#include "vp/host/InterruptController.hpp"
#include "vp/host/IoRequest.hpp"
#include "vp/host/PageCache.hpp"
#include "vp/host/NvmeDriver.hpp"

namespace vp::host {

class BlkMqQueue;
class Workload;
class FioJobRunner;

struct CoreCosts {
  Tick submit, isr, complete, ctx_switch, poll;
};

// Core time by category, ps; the six add up to the time accounted.
struct CpuTime {
  Tick user = 0, kernel = 0, irq = 0, ctxsw = 0, idle = 0, poll = 0;
  Tick total() const { return user + kernel + irq + ctxsw + idle + poll; }
};

class HostCore : public sc_core::sc_module, public IrqSink {
 public:
  sc_core::sc_export<IrqSink> irq;

  static void declare_params(ParamRegistry& reg);
  static CoreCosts costs_from(const Config& cfg);
  HostCore(sc_core::sc_module_name name, Services& svc, unsigned id, NvmeDriver& drv, BlkMqQueue& blk,
           Workload& wl);

  void interrupt(uint32_t vector) override;
  // All cores of the platform, indexed by id (to wake a job's core when
  // another core completed its I/O).
  void set_peers(const std::vector<HostCore*>* peers) { peers_ = peers; }
  void set_page_cache(PageCache* pc) { pc_ = pc; }
  // Something for this core to look at (the page cache's flusher work).
  void kick() { wake_.notify(); }
  // Another core completed an I/O of a job on this core.
  void remote_completion();
  uint64_t wakeups() const { return wakeups_; }
  // Brings the counters up to `now` (the idle or busy stretch in progress)
  // and returns them; call when the simulation has stopped.
  CpuTime account_to(Tick now);
  // Core time of `insts` instructions at host.core.clock x host.core.ipc.
  Tick insts_time(uint64_t insts) const;

 private:
  void run();
  FioJobRunner* pick(Tick now);
  void service_interrupts(bool was_blocked);
  // Per completion reaped from done_[from]: complete_cost into `cat`, the
  // device half joined, the Interrupt stage ended at `t`.
  void reaped(size_t from, Tick& t, Tick& cat);
  // Frees the tags, runs `c` (plus a context switch if `wake_blocked`), then
  // completes done_'s I/Os to their jobs.
  void finish(CpuTime c, bool wake_blocked);
  void deliver(IoRequest& r, Tick end);  // ends the I/O for its job (requests.csv row too)
  // Polled completion (see the file comment).
  bool polled_io(const FioJobRunner& j, const IoRequest& r) const;
  bool polls_now() const;
  bool polled_waiting();  // reaps (one check) a polled entry already there
  void poll_wait(Tick next_issue);
  void reap_polled();
  [[noreturn]] void run_dedicated();
  void spun(Tick origin);  // rounds the spin since `origin` up to whole checks and counts them
  void busy(const CpuTime& t);  // idle unused
  void idle_until(const sc_core::sc_event_or_list& ev);
  void idle_until(const sc_core::sc_time& t, const sc_core::sc_event_or_list& ev);
  void charge(const CpuTime& t);
  // Does what the page cache left for this core; `may_switch`: waking a job of
  // this core that was blocked costs a context switch.
  void cache_work(PageCache::Work& w, bool may_switch);
  void wake_owner(FioJobRunner& j);
  void submit_flush(IoRequest& io);  // an fsync's Flush, on this core's queue

  Services& svc_;
  unsigned id_;
  NvmeDriver& drv_;
  BlkMqQueue& blk_;
  Workload& wl_;
  const std::vector<HostCore*>* peers_ = nullptr;
  PageCache* pc_ = nullptr;
  PageCache::Work cw_;
  uint64_t remote_ = 0;
  CoreCosts cost_;
  std::deque<uint32_t> pending_;
  sc_core::sc_event wake_;
  size_t rr_ = 0;
  uint64_t wakeups_ = 0;
  bool busy_trace_ = false;
  std::vector<IoRequest*> done_;
  std::vector<IoRequest*> flushes_;  // fsync Flushes of this core's jobs, left here by another core
  // Reaped by another core (its interrupt, dedcore's polling): completed here after the switch back.
  std::vector<IoRequest*> handed_;
  std::vector<IoRequest*> handed_cache_;      // buffered I/Os of our jobs another core's page-cache work finished
  std::vector<FioJobRunner*> handed_synced_;  // fsyncs of our jobs another core's page-cache work finished
  double insts_per_ps_;
  Tick mark_ = 0;                // everything before this is in the counters
  CpuTime in_busy_{};            // the busy stretch in progress (charged when it ends)
  bool in_idle_ = false;
  bool in_poll_ = false;        // spinning on a CQ: time so far is poll, not idle
  NvmeDriver::Completion mode_;
  bool dedicated_;              // this core is dedcore's polling core
  double hybrid_fraction_;
  bool slept_ = false;          // hybrid: slept since the last reap
  Tick polled_sum_ = 0;         // hybrid: completion times of this core's polled I/Os
  uint64_t polled_n_ = 0;
  Counter &busy_ps_, &user_ps_, &kernel_ps_, &irq_ps_, &ctxsw_ps_, &idle_ps_, &poll_ps_, &isrs_, &interrupts_, &ctx_switches_;
  Counter &polls_, &poll_time_, &hybrid_sleeps_, &hybrid_sleep_ps_, &irqs_avoided_;
};

}  // namespace vp::host
