// SPDX-License-Identifier: BSD-3-Clause
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn
#include "vp/core/Calendar.hpp"

#include "vp/core/SimControl.hpp"

#include <algorithm>
#include <boost/context/protected_fixedsize_stack.hpp>
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
  if (top_running_) {
    top_running_ = false;
    replace_top(Item(order, when));
  } else {
    heap_.emplace_back(order, when);
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  if (in_run_) {
    // A process scheduled for this instant: the calendar's next delta cycle
    // (the kernel's delta notification of wake_, kept for its place in the list).
    if (!running_ && when == now) delta_notify(drain_);
    return;  // run() takes what is due and notifies the next instant itself when it ends
  }
  if (heap_.front().order == order) wake_.notify(to_sc(when - now));
}

void Calendar::replace_top(Item it) {
  const size_t n = heap_.size();
  const auto key = it.key();
  size_t i = 0;
  for (size_t c = 1; c < n; c = 2 * i + 1) {
    if (c + 1 < n && heap_[c + 1].key() < heap_[c].key()) ++c;
    if (key < heap_[c].key()) break;
    heap_[i] = heap_[c];
    i = c;
  }
  heap_[i] = it;
}

// A hook may defer more: they run after it, in order.
void Calendar::run_hooks() {
  for (size_t i = 0; i < hooks_.size(); ++i) {
    const Hook h = hooks_[i];
    h.fn(h.obj, h.arg);
  }
  hooks_.clear();
}

// Per instant: the callbacks in the heap, then those scheduled for it while
// they ran.
void Calendar::drain(Tick ahead) {
  running_ = true;
  for (;;) {
    const Tick now = detail::calendar_now;
    while (!heap_.empty() && heap_.front().when() <= now) {
      if (interrupt()) break;
      // The job runs while its entry is still the heap's top, and the first
      // callback it schedules takes that place: one sift down instead of a pop
      // and a push. The heap orders by unique keys, so the run order is the same.
      top_running_ = true;
      run_job(heap_.front().slot());
      if (top_running_) {
        top_running_ = false;
        std::pop_heap(heap_.begin(), heap_.end(), Later{});
        heap_.pop_back();
      }
    }
    while (now_next_ < now_.size() && !interrupt()) run_job(now_[now_next_++]);
    now_.clear();
    now_next_ = 0;
    // Most instants run ahead are callbacks only: the next one follows here
    // rather than through run()'s loop, which would do the same.
    if (heap_.empty() || heap_.front().when() >= ahead || !callbacks_only()) break;
    ++instants_ahead_;
    detail::calendar_now = heap_.front().when();
  }
  running_ = false;
}

// As the kernel's delta cycles: the callbacks due (the calendar's method,
// which runs before threads), the processes woken, first woken first run;
// sc_stop ends it there; then the delta notifications, last notified first.
bool Calendar::deltas(Tick now) {
  for (;;) {
    if (interrupt()) return true;
    run_procs();
    if (halt_ == Halt::Stop) return true;
    notify_deltas();
    if (kernel_needed_ || halt_ == Halt::Pause) return true;
    if (due(now)) drain();
    else if (runnable_.empty()) return false;
  }
}

void Calendar::run() {
  const Tick kernel = sc_core::sc_time_stamp().value();
  if (!deferred_.empty()) {
    // The kernel has reached an instant run ahead: what its callbacks and
    // processes asked of the kernel happens now, as it would have then;
    // the calendar goes on in the next delta cycle, after the processes it woke.
    for (const KernelOp& k : deferred_) act(k.ev, k.op);
    deferred_.clear();
    rearm(kernel);
    return;
  }
  struct Inside {
    Inside(bool& f, Tick now) : flag(f) {
      flag = detail::in_calendar = true;
      detail::calendar_now = now;
    }
    ~Inside() { flag = detail::in_calendar = false; }
    bool& flag;
  } inside(in_run_, kernel);
  kernel_now_ = kernel;
  halt_ = Halt::None;
  kernel_needed_ = false;
  bool stopped = instant();
  // Ahead: the next instants before the window's end and before anything
  // else the kernel has due, while nothing wanted the kernel.
  if (!stopped && may_run_ahead_ && kernel < horizon_ && !heap_.empty() && heap_.front().when() < horizon_ &&
      !sc_core::sc_pending_activity_at_current_time()) {
    Tick limit = horizon_;
    sc_core::sc_time other = sc_core::sc_time_to_pending_activity();
    if (other != sc_core::sc_max_time()) limit = std::min<Tick>(limit, kernel + other.value());
    while (!heap_.empty() && heap_.front().when() < limit) {
      detail::calendar_now = heap_.front().when();
      if (instant(limit)) break;  // the kernel comes to this instant
      ++instants_ahead_;
    }
  }
  rearm(kernel);
}

// A run stopped from outside (sim_interrupt) pauses the kernel at this
// instant, even one whose callbacks or processes would never end.
bool Calendar::interrupt() {
  if (!sim_interrupted()) return false;
  pause();
  return true;
}

void Calendar::rearm(Tick kernel) {
  const Tick now = detail::calendar_now;
  if (!deferred_.empty())
    wake_.notify(to_sc(now - kernel));
  else if (now == kernel && (due(now) || runnable_next_ < runnable_.size() || ndeltas_))
    wake_.notify(sc_core::SC_ZERO_TIME);  // after the kernel's processes, the next delta cycle here
  else if (!heap_.empty())
    wake_.notify(to_sc(heap_.front().when() - kernel));
}

void Calendar::kernel_op(sc_core::sc_event* ev, Op op) {
  if (in_run_) {
    if (op == Op::Stop) halt_ = Halt::Stop;
    else if (op == Op::Pause && halt_ == Halt::None) halt_ = Halt::Pause;
    else kernel_needed_ = true;
    if (detail::calendar_now > kernel_now_) {
      deferred_.push_back({ev, op});
      return;
    }
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

// ---------------------------------------------------------------- processes

void Calendar::spawn(std::string name, std::function<void()> body) {
  procs_.push_back(std::make_unique<Proc>());
  Proc* p = procs_.back().get();
  p->name = std::move(name);
  p->body = std::move(body);
  // A guard page below the stack: an overflow faults instead of writing over the heap.
  p->ctx = boost::context::fiber(std::allocator_arg, boost::context::protected_fixedsize_stack(kStackBytes),
                                 [p](boost::context::fiber&& back) {
                                   p->back = std::move(back);
                                   try {
                                     p->body();
                                   } catch (...) {
                                     p->error = std::current_exception();
                                   }
                                   return std::move(p->back);
                                 });
  p->runnable = true;
  runnable_.push_back(p);
  if (!in_run_) wake_.notify(sc_core::SC_ZERO_TIME);
}

void Calendar::run_procs() {
  while (runnable_next_ < runnable_.size()) {
    Proc* p = runnable_[runnable_next_++];
    p->runnable = false;
    current_ = p;
    p->ctx = std::move(p->ctx).resume();
    current_ = nullptr;
    if (p->error) {
      std::exception_ptr e = p->error;
      p->error = nullptr;
      runnable_.clear();
      runnable_next_ = 0;
      std::rethrow_exception(e);  // out of the calendar's method, as out of a thread
    }
  }
  runnable_.clear();
  runnable_next_ = 0;
}

void Calendar::suspend() {
  Proc* p = current_;
  p->back = std::move(p->back).resume();
}

void Calendar::proc_wait(Proc& p, const EventList& l) {
  p.list = l;
  for (unsigned i = 0; i < l.size(); ++i) l[i].waiters_.push_back(&p);
  suspend();
}

void Calendar::trigger(const Event& e) {
  e.delta_ = -1;
  auto& w = e.waiters_;
  int last = static_cast<int>(w.size()) - 1;
  for (int i = 0; i <= last; ++i) {  // the kernel's order: the first, then from the back
    wake(*w[i], e);
    w[i] = w[last];
    --last;
    --i;
  }
  w.resize(static_cast<size_t>(last + 1));
}

void Calendar::wake(Proc& p, const Event& by) {
  if (p.runnable) return;
  for (unsigned i = 0; i < p.list.size(); ++i)
    if (&p.list[i] != &by) drop_waiter(p.list[i], &p);
  if (&by != &p.zero) cancel(p.zero);
  p.list = EventList();
  p.runnable = true;
  runnable_.push_back(&p);
}

void Calendar::drop_waiter(const Event& e, Proc* p) {
  auto& w = e.waiters_;
  for (size_t i = w.size(); i-- > 0;)
    if (w[i] == p) {
      w[i] = w.back();
      w.pop_back();
      return;
    }
}

void Calendar::cancel(const Event& e) {
  if (e.delta_ < 0) return;
  const size_t i = static_cast<size_t>(e.delta_), last = ndeltas_ - 1;
  if (i != last) {
    deltas_[i] = deltas_[last];
    deltas_[i]->delta_ = static_cast<int>(i);
  }
  --ndeltas_;
  e.delta_ = -1;
}

void Calendar::delta_notify(const Event& e) {
  if (e.delta_ >= 0) return;
  if (ndeltas_ == deltas_.size()) deltas_.push_back(&e);
  else deltas_[ndeltas_] = &e;
  e.delta_ = static_cast<int>(ndeltas_++);
}

// The kernel's notification phase: last notified first. A process woken
// here may cancel its own delta timeout further down the list, which moves
// the list's last entry into its place and leaves the old last slot as it
// was, as the kernel's vector does (an event seen twice has no waiters the
// second time).
void Calendar::notify_deltas() {
  for (size_t i = ndeltas_; i-- > 0;) trigger(*deltas_[i]);
  ndeltas_ = 0;
}

void Calendar::notify(const Event& ev) {
  if (ev.kernel_) kernel_op(ev.kernel_.get(), Op::Now);
  cancel(ev);
  trigger(ev);
  if (!in_run_ && runnable_next_ < runnable_.size()) wake_.notify(sc_core::SC_ZERO_TIME);
}

void Calendar::notify_delta(const Event& ev) {
  if (ev.kernel_) kernel_op(ev.kernel_.get(), Op::Delta);
  delta_notify(ev);
  if (!in_run_) wake_.notify(sc_core::SC_ZERO_TIME);
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

// A process's wait that ends at now + d (its zero-time delta timeout for
// d = 0): the event it adds to what it waits on.
const Event& Calendar::timeout(Proc& p, Tick d) {
  if (d == 0) {
    delta_notify(p.zero);
    return p.zero;
  }
  uint64_t g = ++p.gen;
  at(now_ps() + d, &alarms_, [this, &p, g] {
    if (p.gen == g) notify(p.alarm);
  });
  return p.alarm;
}

sc_core::sc_event_or_list Calendar::kernel_events(const EventList& ev) {
  sc_core::sc_event_or_list l;
  for (unsigned i = 0; i < ev.size(); ++i) l |= ev[i].kernel_event();
  return l;
}

void Calendar::wait_for(Tick d) {
  if (Proc* p = current_) return proc_wait(*p, timeout(*p, d));
  if (d == 0) return sc_core::wait(sc_core::SC_ZERO_TIME);
  Timer& t = timer();
  uint64_t g = ++t.gen;
  at(now_ps() + d, &alarms_, [this, &t, g] {
    if (t.gen == g) notify(t.ev);
  });
  sc_core::wait(t.ev);
}

void Calendar::wait_for(Tick d, const EventList& ev) {
  Proc* p = current_;
  if (!p) return wait_for(d, kernel_events(ev));
  proc_wait(*p, ev | timeout(*p, d));
  ++p->gen;  // woken by `ev`: the alarm still on the calendar is void
}

void Calendar::wait(const EventList& ev) {
  if (Proc* p = current_) return proc_wait(*p, ev);
  sc_core::wait(kernel_events(ev));
}

void Calendar::halt() {
  if (current_) {
    current_->list = EventList();
    for (;;) suspend();  // never woken
  }
  for (;;) sc_core::wait();
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
