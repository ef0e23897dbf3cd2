// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// An event the calendar's processes (Calendar::spawn) wait on, and, through
// kernel_event(), SystemC processes too. Notified through the calendar
// (Calendar::notify, notify_delta), which wakes the processes waiting on it
// in the order the SystemC kernel would wake threads waiting on an
// sc_event: the same waiting list, appended to on a wait and taken out of
// by swapping with its last entry, so a model moved from SystemC threads to
// calendar processes runs its processes in the same order.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <systemc>
#include <vector>

namespace vp {

class Calendar;
namespace detail {
struct CalendarProc;
}

class Event {
 public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // For SystemC processes (sensitivity, sc_core::wait): the kernel's event,
  // notified with this one from the first call on.
  const sc_core::sc_event& kernel_event() const {
    if (!kernel_) kernel_ = std::make_unique<sc_core::sc_event>(sc_core::sc_gen_unique_name("vp_event"));
    return *kernel_;
  }

 private:
  friend class Calendar;
  mutable std::vector<detail::CalendarProc*> waiters_;  // calendar processes, in the kernel's order
  mutable int delta_ = -1;              // index in the calendar's delta notifications; -1: none pending
  mutable std::unique_ptr<sc_core::sc_event> kernel_;
};

// Events a process waits on, any of which ends the wait (sc_event_or_list).
class EventList {
 public:
  static constexpr unsigned kMax = 5;
  EventList() = default;
  EventList(const Event& e) { add(e); }  // NOLINT: implicit, as sc_event_or_list's
  EventList& operator|=(const Event& e) {
    add(e);
    return *this;
  }
  EventList operator|(const Event& e) const {
    EventList l = *this;
    l.add(e);
    return l;
  }
  unsigned size() const { return n_; }
  const Event& operator[](unsigned i) const { return *ev_[i]; }

 private:
  void add(const Event& e) {
    for (unsigned i = 0; i < n_; ++i)
      if (ev_[i] == &e) return;  // once, as sc_event_or_list keeps it
    if (n_ == kMax) throw std::logic_error("EventList: more than 5 events");
    ev_[n_++] = &e;
  }
  const Event* ev_[kMax] = {};
  unsigned n_ = 0;
};

inline EventList operator|(const Event& a, const Event& b) { return EventList(a) | b; }

}  // namespace vp
