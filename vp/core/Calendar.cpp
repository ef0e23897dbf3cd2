// SPDX-License-Identifier: BSD-3-Clause
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn
#include "vp/core/Calendar.hpp"

#include <algorithm>
#include <stdexcept>

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

void Calendar::add_chunk() {
  if (slots_ >> kSlotBits) throw std::length_error("calendar: over 16M callbacks pending");
  chunks_.push_back(std::make_unique<Job[]>(size_t(1) << kChunkBits));
}

void Calendar::schedule(Tick when, Tick now, uint32_t slot) {
  if (seq_ >> kSeqBits) throw std::length_error("calendar: 2^40 callbacks scheduled");
  const uint64_t order = (seq_++ << kSlotBits) | slot;
  heap_.emplace_back(order, when);
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  // While run() is draining it takes what is due now and notifies the next
  // instant itself when it ends.
  if (!running_ && heap_.front().order == order) wake_.notify(to_sc(when - now));
}

// Runs the callbacks due at detail::calendar_now: those in the heap, then
// those scheduled for it while they ran.
void Calendar::drain() {
  const Tick now = detail::calendar_now;
  while (!heap_.empty() && heap_.front().when() <= now) {
    uint32_t slot = heap_.front().slot();
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
    run_job(slot);
  }
  while (now_next_ < now_.size()) run_job(now_[now_next_++]);
  now_.clear();
  now_next_ = 0;
}

void Calendar::run() {
  const Tick kernel = now_ps();
  if (!deferred_.empty()) {
    // The kernel has reached an instant run ahead: what its callbacks asked
    // of the kernel happens now, as it would have then.
    for (const KernelOp& k : deferred_) act(k.ev, k.op);
    deferred_.clear();
    if (!heap_.empty()) wake_.notify(to_sc(heap_.front().when() - kernel));
    return;
  }
  struct Draining {
    Draining(bool& f, Tick now) : flag(f) {
      flag = detail::in_calendar = true;
      detail::calendar_now = now;
    }
    ~Draining() { flag = detail::in_calendar = false; }
    bool& flag;
  } draining(running_, kernel);
  kernel_now_ = kernel;
  drain();
  // Ahead: the next instants before the window's end and before anything
  // else the kernel has due, while no callback wanted the kernel.
  if (may_run_ahead_ && kernel < horizon_ && !heap_.empty() && heap_.front().when() < horizon_ &&
      !sc_core::sc_pending_activity_at_current_time()) {
    Tick limit = horizon_;
    sc_core::sc_time other = sc_core::sc_time_to_pending_activity();
    if (other != sc_core::sc_max_time()) limit = std::min<Tick>(limit, kernel + other.value());
    while (deferred_.empty() && !heap_.empty() && heap_.front().when() < limit) {
      detail::calendar_now = heap_.front().when();
      drain();
      if (deferred_.empty()) ++instants_ahead_;  // else the kernel comes to it
    }
  }
  if (deferred_.size() == 1 && deferred_.front().op == Op::Now) {
    // One process to wake: the kernel's own timed notification wakes it at
    // that instant, in the same delta cycle as the calendar's activation
    // there would (nothing else of the kernel's is due before it), and the
    // calendar is not entered just to pass it on.
    deferred_.front().ev->notify(to_sc(detail::calendar_now - kernel));
    deferred_.clear();
    if (!heap_.empty()) wake_.notify(to_sc(heap_.front().when() - kernel));
  } else if (!deferred_.empty())
    wake_.notify(to_sc(detail::calendar_now - kernel));
  else if (!heap_.empty())
    wake_.notify(to_sc(heap_.front().when() - kernel));
}

void Calendar::kernel_op(sc_core::sc_event* ev, Op op) {
  if (running_ && detail::calendar_now > kernel_now_) {
    deferred_.push_back({ev, op});
    return;
  }
  act(ev, op);
}

void Calendar::act(sc_core::sc_event* ev, Op op) {
  switch (op) {
    case Op::Now: return ev->notify();
    case Op::Delta: return ev->notify(sc_core::SC_ZERO_TIME);
    case Op::Stop: return sc_core::sc_stop();
    case Op::Pause: return sc_core::sc_pause();
  }
}

void Calendar::run_for(Tick d) {
  horizon_ = now_ps() + d;
  sc_core::sc_start(to_sc(d));
  horizon_ = 0;
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
  at(now_ps() + d, &alarms_, [this, &t, g] {
    if (t.gen == g) notify(t.ev);
  });
  sc_core::wait(t.ev);
}

void Calendar::wait_for(Tick d, const sc_core::sc_event_or_list& ev) {
  if (d == 0) return sc_core::wait(sc_core::SC_ZERO_TIME, ev);
  Timer& t = timer();
  uint64_t g = ++t.gen;
  at(now_ps() + d, &alarms_, [this, &t, g] {
    if (t.gen == g) notify(t.ev);
  });
  sc_core::sc_event_or_list both;
  both |= ev;
  both |= t.ev;
  sc_core::wait(both);
  ++t.gen;  // woken by `ev`: the alarm still on the calendar is void
}

}  // namespace vp
