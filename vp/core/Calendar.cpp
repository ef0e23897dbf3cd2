// SPDX-License-Identifier: BSD-3-Clause
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn
#include "vp/core/Calendar.hpp"

#include <algorithm>

namespace vp {

Calendar& Calendar::get() {
  // Never destroyed: SystemC keeps its processes until the process ends.
  static Calendar* c = new Calendar;
  return *c;
}

Calendar::Calendar() : wake_(sc_core::sc_gen_unique_name("calendar_wake")) {
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.set_sensitivity(&wake_);
  o.dont_initialize();
  sc_core::sc_spawn([this] { run(); }, sc_core::sc_gen_unique_name("calendar"), &o);
}

void Calendar::at(Tick when, uint64_t* fired, Fn fn) {
  Tick now = now_ps();
  if (when <= now) {
    if (running_) {
      now_.push_back({std::move(fn), fired});
      ++seq_;
      return;
    }
    when = now;
  }
  uint32_t slot;
  if (free_.empty()) {
    slot = static_cast<uint32_t>(jobs_.size());
    jobs_.push_back({std::move(fn), fired});
  } else {
    slot = free_.back();
    free_.pop_back();
    jobs_[slot] = {std::move(fn), fired};
  }
  heap_.push_back({when, seq_++, slot});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  // While run() is draining it takes what is due now and notifies the next
  // instant itself when it ends.
  if (!running_ && heap_.front().seq == seq_ - 1) wake_.notify(to_sc(when - now));
}

void Calendar::run() {
  Tick now = now_ps();
  struct Draining {
    bool& flag;
    explicit Draining(bool& f) : flag(f) { flag = true; }
    ~Draining() { flag = false; }
  } draining(running_);
  while (!heap_.empty() && heap_.front().when <= now) {
    uint32_t slot = heap_.front().slot;
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
    Fn fn = std::move(jobs_[slot].fn);
    ++*jobs_[slot].fired;
    ++ran_;
    free_.push_back(slot);
    fn();
  }
  while (now_next_ < now_.size()) {
    Fn fn = std::move(now_[now_next_].fn);
    ++*now_[now_next_].fired;
    ++ran_;
    ++now_next_;
    fn();
  }
  now_.clear();
  now_next_ = 0;
  if (!heap_.empty()) wake_.notify(to_sc(heap_.front().when - now));
}

Calendar::Timer& Calendar::timer() {
  auto& t = timers_[sc_core::sc_get_current_process_handle().get_process_object()];
  if (!t) t = std::make_unique<Timer>();
  return *t;
}

void Calendar::wait_for(Tick d) {
  if (d == 0) return sc_core::wait(sc_core::SC_ZERO_TIME);
  Timer& t = timer();
  uint64_t g = ++t.gen;
  at(now_ps() + d, &alarms_, [&t, g] {
    if (t.gen == g) t.ev.notify();
  });
  sc_core::wait(t.ev);
}

void Calendar::wait_for(Tick d, const sc_core::sc_event_or_list& ev) {
  if (d == 0) return sc_core::wait(sc_core::SC_ZERO_TIME, ev);
  Timer& t = timer();
  uint64_t g = ++t.gen;
  at(now_ps() + d, &alarms_, [&t, g] {
    if (t.gen == g) t.ev.notify();
  });
  sc_core::sc_event_or_list both;
  both |= ev;
  both |= t.ev;
  sc_core::wait(both);
  ++t.gen;  // woken by `ev`: the alarm still on the calendar is void
}

}  // namespace vp
