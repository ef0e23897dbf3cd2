// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A host core's time by category (CpuTime: user, kernel, irq, ctxsw, poll,
// idle), kept up to the simulated time. The core's process advances time
// only in this class's waits (busy stretches, waits for events while idle
// or spinning), so each stretch starts where the one before ended (the
// mark) and the categories always add up to the time accounted. A stretch
// the simulation stopped part-way through is charged, up to the stop, in
// category order. Every busy time it charges is also time the running
// thread ran (`ran`, the scheduler's vruntime), except busy_until's, whose
// caller decides.
//
// Statistics: the core's busy_ps and cpu_<category>_ps, and the host's
// poll_ps over every core; the waveform's busy flag of the core.
#include <functional>

#include "vp/core/Calendar.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/core/Units.hpp"
#include "vp/core/Waves.hpp"

namespace vp::host {

// Core time by category, ps; the six add up to the time accounted.
struct CpuTime {
  Tick user = 0, kernel = 0, irq = 0, ctxsw = 0, idle = 0, poll = 0;
  Tick total() const { return user + kernel + irq + ctxsw + idle + poll; }
};

class CpuAccount {
 public:
  // `core`, `host`: the core's statistics group and the host's (totals).
  CpuAccount(const StatGroup& core, const StatGroup& host, Waves& waves, std::function<void(Tick)> ran);

  // Busy for the sum of `t`'s categories (its idle unused), then charged.
  void busy(const CpuTime& t);
  // Busy in category `cat` for `len` unless `ev` ends it first (`total`:
  // what is left of the work, for a stop part-way); returns the time run.
  Tick busy_until(Tick len, Tick total, Tick CpuTime::*cat, const EventList& ev);
  // Waits for `ev` (at most `d`): idle, or poll while spinning.
  void idle_until(const EventList& ev);
  void idle_until(Tick d, const EventList& ev);
  // The core stood still since `entered` (a driver's uncached register
  // reads): charged to `cat` now, as busy() would; returns it.
  Tick stall_since(Tick entered, Tick CpuTime::*cat);
  // Spinning on a completion queue: the waits' time is poll, not idle, and
  // the core is busy in the waveform. Charge with account_to() before ending.
  void set_spinning(bool on) { in_poll_ = busy_trace_ = on; }
  bool spinning() const { return in_poll_; }
  bool idle() const { return in_idle_; }
  // Charges the time since the mark (the idle or busy stretch in progress)
  // and returns the totals.
  CpuTime account_to(Tick now);

 private:
  void charge(const CpuTime& t);

  std::function<void(Tick)> ran_;
  Counter &busy_ps_, &user_ps_, &kernel_ps_, &irq_ps_, &ctxsw_ps_, &idle_ps_, &poll_ps_, &poll_time_;
  Tick mark_ = 0;      // everything before this is in the counters
  CpuTime in_busy_{};  // the busy stretch in progress (charged when it ends)
  bool in_idle_ = false;
  bool in_poll_ = false;  // spinning: time so far is poll, not idle
  bool busy_trace_ = false;
};

}  // namespace vp::host
