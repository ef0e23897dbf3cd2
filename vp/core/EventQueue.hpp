// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A per-component queue of timed callbacks driven by one sc_event, so that a
// model is a state machine woken at the instants it computed, not a thread
// per request. Callbacks due at the same instant run in the order they were
// scheduled, which keeps runs bit-for-bit repeatable.
#include <functional>
#include <queue>
#include <systemc>
#include <vector>

#include "vp/core/Units.hpp"

namespace vp {

inline Tick now_ps() { return sc_core::sc_time_stamp().value(); }
inline sc_core::sc_time to_sc(Tick t) { return sc_core::sc_time::from_value(t); }

class EventQueue : public sc_core::sc_module {
 public:
  using Fn = std::function<void()>;

  explicit EventQueue(sc_core::sc_module_name name) : sc_module(name) {
    SC_HAS_PROCESS(EventQueue);
    SC_METHOD(run);
    sensitive << wake_;
    dont_initialize();
  }

  void at(Tick when, Fn fn) {
    Tick now = now_ps();
    if (when < now) when = now;
    heap_.push({when, seq_++, std::move(fn)});
    if (heap_.top().when == when) wake_.notify(to_sc(when - now));
  }
  void after(Tick delay, Fn fn) { at(now_ps() + delay, std::move(fn)); }
  size_t pending() const { return heap_.size(); }
  uint64_t fired() const { return fired_; }

 private:
  struct Item {
    Tick when;
    uint64_t seq;
    Fn fn;
    bool operator>(const Item& o) const { return when != o.when ? when > o.when : seq > o.seq; }
  };

  void run() {
    Tick now = now_ps();
    while (!heap_.empty() && heap_.top().when <= now) {
      Fn fn = std::move(const_cast<Item&>(heap_.top()).fn);
      heap_.pop();
      ++fired_;
      fn();
    }
    if (!heap_.empty()) wake_.notify(to_sc(heap_.top().when - now));
  }

  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
  sc_core::sc_event wake_;
  uint64_t seq_ = 0, fired_ = 0;
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
