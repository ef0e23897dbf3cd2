// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One core's run queue, after Linux's CFS with equal weights: the thread
// with the least virtual run time runs; the one on the core keeps it for its
// slice (sched_latency / runnable threads, at least min_granularity) unless
// a thread that wakes up is behind it by more than wakeup_granularity, which
// then preempts it. A waking thread is placed no further back than half a
// latency behind the queue's minimum, so a long sleep earns no unbounded
// credit. Switching threads costs the core a context switch; switching to a
// thread other than the last one that ran adds the cache-pollution penalty.
// The core (HostCore) says which threads are runnable; this decides which
// one runs and what a switch costs. With host.sched.migration a waking
// thread may move to another core (WakePlacement): this core releases it and
// the other adopts it, its virtual run time carried relative to each
// queue's minimum as CFS does.
#include <memory>
#include <vector>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/host/sched/HostThread.hpp"

namespace vp::host {

class CoreScheduler {
 public:
  // In the scheduler's scope (host.sched on the server).
  static void declare_params(const ParamScope& p);
  // Its llc_cores alone (vp-drive places jobs on queue pairs as on cores).
  static void declare_llc_cores(const ParamScope& p);
  // `cpus`: the host's cores (Linux's defaults scale with them);
  // `ctx_switch_cost`: the core's cost of switching to another thread;
  // `core`: its number (threads keep a host-wide index for tie-breaks).
  CoreScheduler(const ScopedConfig& cfg, unsigned cpus, Tick ctx_switch_cost, unsigned core,
                const std::vector<FioJobRunner*>& jobs);
  // Linux 4.9's boot-time value of a CFS tunable whose 1-CPU value is
  // `base` on `cpus` CPUs: base x (1 + log2(min(cpus, 8))).
  static Tick linux_default(Tick base, unsigned cpus);
  Tick latency() const { return latency_; }
  Tick min_granularity() const { return min_gran_; }
  Tick wakeup_granularity() const { return wake_gran_; }

  const std::vector<std::unique_ptr<HostThread>>& threads() const { return threads_; }
  HostThread* of(const FioJobRunner& j);
  // Migration: `t` (blocked, not running) leaves this core; another adopts it.
  std::unique_ptr<HostThread> release(HostThread& t);
  void adopt(std::unique_ptr<HostThread> t);
  HostThread* current() const { return cur_; }

  // The thread to run now among the runnable ones (nullptr: none; the core idles).
  HostThread* choose(const std::vector<HostThread*>& runnable, Tick now);
  // When the current thread's slice ends with `runnable` threads wanting
  // the core (kNever when it is alone).
  Tick slice_end(size_t runnable) const;
  // `t` became runnable: places it and decides whether it preempts.
  void woken(HostThread& t);
  // Switches to `t`; the context switch and the cache-pollution penalty it
  // costs (0, 0 when `t` is already on the core).
  struct SwitchCost {
    Tick direct = 0, penalty = 0;
  };
  SwitchCost switch_to(HostThread& t, Tick now);
  // The current thread ran for `d` (its virtual run time advances).
  void ran(Tick d);
  // The current thread blocked: the core goes idle.
  void idle() { cur_ = nullptr; }
  uint64_t preemptions() const { return preemptions_; }

 private:
  Tick slice(size_t runnable) const;
  std::vector<std::unique_ptr<HostThread>> threads_;
  Tick latency_, min_gran_, wake_gran_, ctx_, penalty_;
  HostThread* cur_ = nullptr;
  HostThread* last_ = nullptr;  // the last thread that ran (its cache is warm)
  Tick slice_start_ = 0;
  Tick min_vruntime_ = 0;
  bool resched_ = false;
  uint64_t preemptions_ = 0;
};

}  // namespace vp::host
