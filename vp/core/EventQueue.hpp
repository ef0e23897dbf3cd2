// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A component's timed callbacks, so that a model is a state machine woken at
// the instants it computed, not a thread per request. They go on the
// platform's one Calendar: callbacks due at the same instant run in the
// order they were scheduled, across components, which keeps runs bit for
// bit repeatable.
#include <systemc>

#include "vp/core/Calendar.hpp"

namespace vp {

// A component's handle on the platform's Calendar, counting the callbacks
// it ran (the component's kernel events).
class EventQueue : public sc_core::sc_module {
 public:
  using Fn = Calendar::Fn;

  explicit EventQueue(sc_core::sc_module_name name) : sc_module(name), cal_(Calendar::get()) {}

  template <class F>
  void at(Tick when, F&& fn) {
    cal_.at(when, &fired_, std::forward<F>(fn));
  }
  template <class F>
  void after(Tick delay, F&& fn) {
    cal_.at(now_ps() + delay, &fired_, std::forward<F>(fn));
  }
  uint64_t fired() const { return fired_; }

 private:
  Calendar& cal_;
  uint64_t fired_ = 0;
};

// A resource served first come first served (a link direction, an embedded
// core): a request made now for work ready at `ready` (now or a little
// later) starts when the resource is free and holds it for `busy`; the
// return value is when it ends. Booking order is service order.
class FcfsResource {
 public:
  Tick book(Tick ready, Tick busy) {
    Tick start = ready > free_at_ ? ready : free_at_;
    free_at_ = start + busy;
    busy_total_ += busy;
    return free_at_;
  }
  // Something else used the resource for `busy` while work was queued on
  // it: that work finishes later by as much.
  void steal(Tick now, Tick busy) {
    if (free_at_ > now) free_at_ += busy;
  }
  Tick free_at() const { return free_at_; }
  Tick busy_total() const { return busy_total_; }

 private:
  Tick free_at_ = 0, busy_total_ = 0;
};

}  // namespace vp
