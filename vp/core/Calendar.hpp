// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The one timeline every EventQueue's callbacks go on: a heap ordered by
// instant, then by the order they were scheduled, run by one SystemC
// method. Callbacks due at the same instant run first come first served
// across the whole platform, so the order of two components' work at one
// instant is a rule of the model, not an accident of the SystemC kernel's
// own timed-event heap (whose order for equal times shifts with every
// notification added or removed anywhere).
//
// Processes: a model that is easier to write as a thread (a host core's
// scheduler loop, a driver's bring-up) runs as a calendar process (spawn), a
// coroutine the calendar switches to itself, not a SystemC thread: no kernel
// time step, no kernel event and no second activation per wake-up. The
// calendar keeps the SystemC kernel's rules for them, so a run is the same
// as with SystemC threads: at an instant, the callbacks due run, then the
// processes they woke, first woken first run; what those schedule for the
// same instant runs after them, as the next delta cycle, with the processes
// woken then (delta notifications first, in the kernel's order). Processes
// wait on vp::Event, which SystemC processes can wait on too.
//
// Running ahead: inside a run window (run_for) the calendar goes on to its
// next instants in the same SystemC activation while nothing else in the
// kernel is due before them, so the kernel is entered once per stretch of
// model-only work instead of once per instant. The model's time (now_ps)
// is then the calendar's, ahead of sc_time_stamp(). A callback or process
// that acts on the SystemC kernel (an sc_event, stop(), pause()) ends the
// stretch after the delta cycle, and the kernel is woken at that instant to
// deliver it, so every SystemC process runs at the same time and in the
// same order as without running ahead.
#include <boost/context/fiber.hpp>
#include <cstdint>
#include <type_traits>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <systemc>
#include <vector>

#include "vp/core/Callback.hpp"
#include "vp/core/Event.hpp"
#include "vp/core/Units.hpp"

namespace vp {

namespace detail {
// The instant the calendar is running callbacks for (it may be ahead of the
// kernel's time), valid while in_calendar.
inline Tick calendar_now = 0;
inline bool in_calendar = false;

// A calendar process: its coroutine and what it waits on.
struct CalendarProc {
  boost::context::fiber ctx;   // the process, while suspended
  boost::context::fiber back;  // the calendar, while the process runs
  std::function<void()> body;
  std::string name;
  EventList list;  // what it waits on (empty: running, runnable or halted)
  Event alarm;     // a timed wait's end, last in `list`
  Event zero;      // wait_for(0): the kernel's delta timeout, last in `list`
  uint64_t gen = 0;  // alarms of an earlier wait are void
  bool runnable = false;
  std::exception_ptr error;
};
}  // namespace detail

// The model's current time.
inline Tick now_ps() { return detail::in_calendar ? detail::calendar_now : sc_core::sc_time_stamp().value(); }
// sc_time::from_value without its call into libsystemc (a read makes nine):
// an sc_time is its count of resolution units and nothing else. The one
// thing from_value adds is freezing the time resolution, which FlashVP
// never changes from the kernel's 1 ps (a Tick is a picosecond).
// A standard-layout object shares its address with its first member.
static_assert(std::is_standard_layout_v<sc_core::sc_time> && sizeof(sc_core::sc_time) == sizeof(Tick));
inline sc_core::sc_time to_sc(Tick t) {
  sc_core::sc_time s;
  *reinterpret_cast<sc_core::sc_time::value_type*>(&s) = t;
  return s;
}

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
  // Runs fn(obj, arg) when the callback running now returns, after what it
  // deferred before (first deferred first run), before any other callback.
  // Code running outside a callback (a process, elaboration, a test's
  // thread) cannot defer: it is told so by false and schedules an event.
  bool defer(void (*fn)(void*, uint64_t), void* obj, uint64_t arg) {
    if (!in_job_) return false;
    hooks_.push_back({fn, obj, arg});
    return true;
  }
  // Callbacks run for components (every EventQueue's), threads' alarms not
  // counted: the simulation's kernel events.
  uint64_t callbacks() const { return ran_ - alarms_; }

  // Runs `body` as a calendar process from the first instant of the
  // simulation (call at elaboration), after those spawned before it.
  void spawn(std::string name, std::function<void()> body);
  // The calling code runs in a calendar process.
  bool in_process() const { return current_ != nullptr; }

  // For the calling process (a calendar process or a SystemC thread):
  // sc_core::wait(d), wait(d, ev) (whichever comes first) and wait(ev), with
  // the time's end on this calendar.
  void wait_for(Tick d);
  void wait_for(Tick d, const EventList& ev);
  void wait(const EventList& ev);
  // Waits for ever (the run is stopping).
  [[noreturn]] void halt();
  // SystemC threads' waits on kernel events.
  void wait_for(Tick d, const sc_core::sc_event_or_list& ev);

  // ev.notify() and ev.notify(SC_ZERO_TIME): wakes the processes waiting on
  // `ev` now or in the next delta cycle, and SystemC's when the kernel's
  // time reaches the model's.
  void notify(const Event& ev);
  void notify_delta(const Event& ev);
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
  using Proc = detail::CalendarProc;
  static constexpr size_t kStackBytes = 512 * 1024;  // a process's stack: address space, touched pages only
  Calendar();
  void run();
  // Runs the callbacks due at detail::calendar_now. With `ahead` above it,
  // an instant whose callbacks were all there was to it (callbacks_only)
  // is followed in the same loop by the next one before `ahead`, counted
  // in instants_ahead_, as run() would have gone on to it.
  void drain(Tick ahead = 0);
  bool callbacks_only() const { return runnable_.empty() && !(ndeltas_ | uint8_t(halt_) | uint8_t(kernel_needed_)); }
  // The delta cycles of the instant detail::calendar_now (and, with
  // `ahead`, of the instants drain went on to); true when they stopped for
  // the kernel (its processes, sc_stop or sc_pause).
  bool instant(Tick ahead = 0) {
    if (due(detail::calendar_now)) drain(ahead);
    // Most instants wake no process: their callbacks were all there is.
    if (callbacks_only()) return false;
    return deltas(detail::calendar_now);
  }
  bool deltas(Tick now);  // the rest of the instant once a process is involved
  bool interrupt();
  void rearm(Tick kernel);  // the kernel's next activation of run()
  // Processes: run the runnable ones (first woken first), suspend the
  // current one until woken, wait on `l`.
  void run_procs();
  void suspend();
  void proc_wait(Proc& p, const EventList& l);
  const Event& timeout(Proc& p, Tick d);
  static sc_core::sc_event_or_list kernel_events(const EventList& ev);
  // The kernel's rules for threads waiting on events: trigger wakes the
  // waiters in its order, wake ends one process's wait, cancel drops a
  // pending delta notification.
  void trigger(const Event& e);
  void wake(Proc& p, const Event& by);
  void cancel(const Event& e);
  void delta_notify(const Event& e);
  static void drop_waiter(const Event& e, Proc* p);
  void notify_deltas();
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
  void replace_top(Item it);  // the top's place taken by `it`, sifted down
  bool due(Tick now) const { return (!heap_.empty() && heap_.front().when() <= now) || now_next_ < now_.size(); }
  void run_job(uint32_t slot) {
    Job& j = job(slot);
    ++*j.fired;
    ++ran_;
    in_job_ = true;
    j.fn();
    if (!hooks_.empty()) run_hooks();
    in_job_ = false;
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
  struct Hook {
    void (*fn)(void*, uint64_t);
    void* obj;
    uint64_t arg;
  };
  std::vector<Hook> hooks_;  // deferred to the end of the running callback
  bool in_job_ = false;
  void run_hooks();
  sc_core::sc_event wake_;
  std::unordered_map<const sc_core::sc_object*, std::unique_ptr<Timer>> timers_;
  struct KernelOp {
    sc_core::sc_event* ev;
    Op op;
  };
  std::vector<KernelOp> deferred_;  // asked for ahead of the kernel, at calendar_now
  std::vector<std::unique_ptr<Proc>> procs_;
  std::vector<Proc*> runnable_;  // woken, to run in this delta cycle
  size_t runnable_next_ = 0;
  Proc* current_ = nullptr;
  std::vector<const Event*> deltas_;  // notified for the next delta cycle (the kernel's list), ndeltas_ of them
  size_t ndeltas_ = 0;
  Event drain_;  // stands for the calendar's own delta notification in deltas_
  enum class Halt : uint8_t { None, Stop, Pause } halt_ = Halt::None;
  bool kernel_needed_ = false;  // a kernel event was notified: its processes run before the next delta
  Tick kernel_now_ = 0;             // sc_time_stamp() while run() runs
  Tick horizon_ = 0;                // run_for's end: instants before it may run ahead
  uint64_t seq_ = 0, alarms_ = 0, ran_ = 0, instants_ahead_ = 0;
  bool running_ = false, in_run_ = false, may_run_ahead_ = true;
  bool top_running_ = false;  // drain runs the heap's top job; its entry is the next scheduling's place
};

}  // namespace vp
