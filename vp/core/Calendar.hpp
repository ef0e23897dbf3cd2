// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The one timeline every EventQueue's callbacks go on: a heap ordered by
// instant, then by the order they were scheduled, run by one SystemC
// method. Callbacks due at the same instant run first come first served
// across the whole platform, so the order of two components' work at one
// instant is a rule of the model, not an accident of the SystemC kernel's
// own timed-event heap (whose order for equal times shifts with every
// notification added or removed anywhere). A callback scheduled for the
// current instant from outside the calendar (a host core's thread) runs in
// the next delta cycle. Threads sleep on it too (wait_for), so a thread
// whose time is up resumes in the same order among everything due then.
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>
#include <systemc>
#include <vector>

#include "vp/core/Units.hpp"

namespace vp {

inline Tick now_ps() { return sc_core::sc_time_stamp().value(); }
inline sc_core::sc_time to_sc(Tick t) { return sc_core::sc_time::from_value(t); }

class Calendar {
 public:
  using Fn = std::function<void()>;
  // The simulation's calendar, made at first use (elaboration).
  static Calendar& get();

  // Runs `fn` at `when` (now if earlier) and counts it in `*fired`.
  void at(Tick when, uint64_t* fired, Fn fn);
  size_t pending() const { return heap_.size() + now_.size() - now_next_; }
  // Callbacks run for components (every EventQueue's), threads' alarms not
  // counted: the simulation's kernel events.
  uint64_t callbacks() const { return ran_ - alarms_; }

  // For the calling thread: sc_core::wait(d), and wait(d, ev) (whichever
  // comes first), with the time's end on this calendar.
  void wait_for(Tick d);
  void wait_for(Tick d, const sc_core::sc_event_or_list& ev);

 private:
  Calendar();
  void run();
  struct Timer {  // a thread's alarm; callbacks of an earlier generation are void
    sc_core::sc_event ev;
    uint64_t gen = 0;
  };
  Timer& timer();

  struct Item {
    Tick when;
    uint64_t seq;
    uint32_t slot;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const { return a.when != b.when ? a.when > b.when : a.seq > b.seq; }
  };
  struct Job {
    Fn fn;
    uint64_t* fired;
  };

  std::vector<Item> heap_;
  std::vector<Job> jobs_;  // the callbacks stay put; the heap orders small records
  // Scheduled for the current instant while run() drains it: later than
  // everything in the heap, so first come first served needs no heap.
  std::vector<Job> now_;
  size_t now_next_ = 0;
  std::vector<uint32_t> free_;
  sc_core::sc_event wake_;
  std::unordered_map<const sc_core::sc_object*, std::unique_ptr<Timer>> timers_;
  uint64_t seq_ = 0, alarms_ = 0, ran_ = 0;
  bool running_ = false;
};

}  // namespace vp
