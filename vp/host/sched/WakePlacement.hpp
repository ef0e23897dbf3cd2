// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a waking thread runs, after Linux 4.9's select_task_rq_fair for a
// wake-up: the core that woke it (an interrupt handler, another thread) takes
// it when that core has nothing runnable, or fewer runnable threads than its
// previous core by the domain's imbalance margin (wake_affine); then, if that
// core is busy, the previous core when it is idle and shares its last-level
// cache, else the first idle core of that cache domain counting on from it
// (select_idle_sibling); else it stays there. Only cores the thread may run
// on (cpus_allowed) are considered. Pure logic: the host's cores describe
// themselves and this picks.
#include <vector>

namespace vp::host {

struct CoreLoad {
  bool idle = true;       // no thread running or runnable there (Linux's idle_cpu)
  unsigned runnable = 0;  // threads running or waiting to run there
};

class WakePlacement {
 public:
  // `llc_cores`: cores per last-level cache domain, consecutive from core 0
  // (0: all the cores share one).
  WakePlacement(unsigned cores, unsigned llc_cores);

  // The core for a thread that last ran on `prev`, woken from `waker`;
  // `allowed` is empty (any core) or lists the cores it may use.
  unsigned place(unsigned prev, unsigned waker, const std::vector<CoreLoad>& cores,
                 const std::vector<unsigned>& allowed) const;
  bool share_cache(unsigned a, unsigned b) const { return a / llc_ == b / llc_; }
  unsigned domain(unsigned core) const { return core / llc_; }  // its last-level cache domain
  unsigned domains() const { return (cores_ + llc_ - 1) / llc_; }

 private:
  unsigned cores_, llc_;
};

}  // namespace vp::host
