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
//
// Running ahead: inside a run window (run_for) the calendar goes on to its
// next instants in the same SystemC activation while nothing else in the
// kernel is due before them, so the kernel is entered once per stretch of
// model-only work instead of once per instant. The model's time (now_ps)
// is then the calendar's, ahead of sc_time_stamp(). A callback that wakes
// a SystemC process goes through notify()/notify_delta()/stop()/pause(): ahead of
// the kernel, that ends the stretch after the instant, and the kernel is
// woken at that instant to deliver it, so every process runs at the same
// time and in the same order as without running ahead.
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <systemc>
#include <vector>

#include "vp/core/Callback.hpp"
#include "vp/core/Units.hpp"

namespace vp {

namespace detail {
// The instant the calendar is running callbacks for (it may be ahead of the
// kernel's time), valid while in_calendar.
inline Tick calendar_now = 0;
inline bool in_calendar = false;
}  // namespace detail

// The model's current time.
inline Tick now_ps() { return detail::in_calendar ? detail::calendar_now : sc_core::sc_time_stamp().value(); }
inline sc_core::sc_time to_sc(Tick t) { return sc_core::sc_time::from_value(t); }

class Calendar {
 public:
  using Fn = Callback;
  // The simulation's calendar, made at first use (elaboration).
  static Calendar& get();

  // Runs `fn` at `when` (now if earlier) and counts it in `*fired`. The
  // callable is built in its job's place, not moved there.
  template <class F>
  void at(Tick when, uint64_t* fired, F&& fn) {
    const Tick now = now_ps();
    const uint32_t slot = take_slot(fired);
    job(slot).fn.emplace(std::forward<F>(fn));
    if (when <= now) {
      if (running_) {
        now_.push_back(slot);
        ++seq_;
        return;
      }
      when = now;
    }
    schedule(when, now, slot);
  }
  size_t pending() const { return heap_.size() + now_.size() - now_next_; }
  // Callbacks run for components (every EventQueue's), threads' alarms not
  // counted: the simulation's kernel events.
  uint64_t callbacks() const { return ran_ - alarms_; }

  // For the calling thread: sc_core::wait(d), and wait(d, ev) (whichever
  // comes first), with the time's end on this calendar.
  void wait_for(Tick d);
  void wait_for(Tick d, const sc_core::sc_event_or_list& ev);

  // For model code that acts on the SystemC kernel: ev.notify(),
  // ev.notify(SC_ZERO_TIME), sc_stop() and sc_pause(), done when the
  // kernel's time reaches the model's.
  void notify(sc_core::sc_event& ev) { kernel_op(&ev, Op::Now); }
  void notify_delta(sc_core::sc_event& ev) { kernel_op(&ev, Op::Delta); }
  void stop() { kernel_op(nullptr, Op::Stop); }
  void pause() { kernel_op(nullptr, Op::Pause); }

  // sc_start(d), letting the calendar run ahead within [now, now + d): the
  // platforms' run loops use it; a plain sc_start never runs ahead.
  void run_for(Tick d);
  // Off while a waveform is traced (the VCD samples at the kernel's time).
  void set_run_ahead(bool on) { may_run_ahead_ = on; }
  // Instants run ahead of the kernel: each was a delta cycle of its own
  // without running ahead (summary.json's delta_cycles adds them back).
  uint64_t instants_ahead() const { return instants_ahead_; }

 private:
  Calendar();
  void run();
  void drain();
  enum class Op : uint8_t { Now, Delta, Stop, Pause };
  static void act(sc_core::sc_event* ev, Op op);
  void kernel_op(sc_core::sc_event* ev, Op op);
  struct Timer {  // a thread's alarm; callbacks of an earlier generation are void
    sc_core::sc_event ev;
    uint64_t gen = 0;
  };
  Timer& timer();

  // A heap entry as one 128-bit key: the instant, then the order scheduled
  // (seq, unique), then the job's slot; one branch-free comparison orders
  // two of them. Kept as two 64-bit words, not an __int128 in memory: a
  // 128-bit load of a key just stored as two halves stalls the store buffer.
  static constexpr unsigned kSlotBits = 24, kSeqBits = 64 - kSlotBits;
  struct Item {
    Item(uint64_t o, Tick t) : order(o), at(t) {}  // built in place, a word at a time
    uint64_t order;  // seq << kSlotBits | slot
    Tick at;
    Tick when() const { return at; }
    uint32_t slot() const { return static_cast<uint32_t>(order) & ((1u << kSlotBits) - 1); }
    unsigned __int128 key() const { return (static_cast<unsigned __int128>(at) << 64) | order; }
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const { return a.key() > b.key(); }
  };
  struct Job {
    Fn fn;
    uint64_t* fired = nullptr;
  };
  // Jobs in chunks that never move: a callback runs in its place while the
  // callbacks it schedules take new slots.
  static constexpr unsigned kChunkBits = 10;
  Job& job(uint32_t slot) { return chunks_[slot >> kChunkBits][slot & ((1u << kChunkBits) - 1)]; }
  uint32_t take_slot(uint64_t* fired) {
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      if (slots_ == chunks_.size() << kChunkBits) add_chunk();
      slot = slots_++;
    }
    job(slot).fired = fired;
    return slot;
  }
  void add_chunk();
  void schedule(Tick when, Tick now, uint32_t slot);
  void run_job(uint32_t slot) {
    Job& j = job(slot);
    ++*j.fired;
    ++ran_;
    j.fn();
    j.fn.reset();
    free_.push_back(slot);  // after the call: what it scheduled took other slots
  }

  std::vector<Item> heap_;
  std::vector<std::unique_ptr<Job[]>> chunks_;  // the callbacks stay put; the heap orders small records
  uint32_t slots_ = 0;                          // slots handed out so far (free_ holds those returned)
  // Scheduled for the current instant while run() drains it: later than
  // everything in the heap, so first come first served needs no heap.
  std::vector<uint32_t> now_;
  size_t now_next_ = 0;
  std::vector<uint32_t> free_;
  sc_core::sc_event wake_;
  std::unordered_map<const sc_core::sc_object*, std::unique_ptr<Timer>> timers_;
  struct KernelOp {
    sc_core::sc_event* ev;
    Op op;
  };
  std::vector<KernelOp> deferred_;  // asked for ahead of the kernel, at calendar_now
  Tick kernel_now_ = 0;             // sc_time_stamp() while run() runs
  Tick horizon_ = 0;                // run_for's end: instants before it may run ahead
  uint64_t seq_ = 0, alarms_ = 0, ran_ = 0, instants_ahead_ = 0;
  bool running_ = false, may_run_ahead_ = true;
};

}  // namespace vp
