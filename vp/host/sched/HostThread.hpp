// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One software thread of the modeled host (a fio job clone or an online
// server's worker) as its core's scheduler sees it: its virtual run time,
// the compute it has left, and what happened to it while it was not on the
// core (completions of its I/Os, an fsync finished) that it takes in when it
// is next switched in.
#include <vector>

#include "vp/host/block/IoRequest.hpp"

namespace vp::host {

class FioJobRunner;

struct HostThread {
  enum class After { None, Request, Spin };  // what ends with the compute: the request's, or the spin after issues

  FioJobRunner* job = nullptr;
  unsigned index = 0;     // on its core, to break ties
  Tick vruntime = 0;      // CFS virtual run time (equal weights: run time on the core)
  Tick compute_left = 0;  // user time still to run (preempted part-way)
  After after = After::None;
  std::vector<IoRequest*> done;        // direct I/Os completed, not yet seen by the thread
  std::vector<IoRequest*> cache_done;  // buffered I/Os the page cache finished
  bool synced = false;                 // its fsync finished
  std::vector<IoRequest*> flushes;     // its fsync's write-back is done: it sends the Flush
  unsigned polled = 0;                 // polled I/Os in flight (the thread spins for them)
  Tick sleep_until = 0;                // hybrid polling: asleep before it polls
  bool slept = false;                  // hybrid: slept since the last reap
  bool blocked = true;                 // was not runnable at the last look (its next wake-up is a wake-up)
  bool placed = false;                 // host.sched.migration: its wake-up already chose its core

  bool has_news() const { return !done.empty() || !cache_done.empty() || synced || !flushes.empty(); }
};

}  // namespace vp::host
