// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/sched/CpuAccount.hpp"

#include <algorithm>
#include <utility>

namespace vp::host {

CpuAccount::CpuAccount(const StatGroup& core, const StatGroup& host, Waves& waves, std::function<void(Tick)> ran)
    : ran_(std::move(ran)),
      busy_ps_(core.counter("busy_ps", "ps", "time the core was busy")),
      user_ps_(core.counter("cpu_user_ps", "ps", "core time in jobs' compute")),
      kernel_ps_(core.counter("cpu_kernel_ps", "ps",
                              "core time in the submission path (blk-mq included) and reaping completions")),
      irq_ps_(core.counter("cpu_irq_ps", "ps", "core time entering and leaving interrupt handlers")),
      ctxsw_ps_(core.counter("cpu_ctxsw_ps", "ps", "core time switching to threads woken from waiting")),
      idle_ps_(core.counter("cpu_idle_ps", "ps", "core time with nothing to do")),
      poll_ps_(core.counter("cpu_poll_ps", "ps", "core time spinning on polled completion queues")),
      poll_time_(host.total("poll_ps", "ps", "core time spinning on polled completion queues, all cores")) {
  // host.core<i>.busy; HostCore finds its timeline thread by this name.
  if (waves.enabled())
    waves.trace(busy_trace_, Waves::signal_name(core.scope(), "busy"), "host cores", Waves::Shelf::Host);
}

void CpuAccount::charge(const CpuTime& t) {
  user_ps_ += t.user;
  kernel_ps_ += t.kernel;
  irq_ps_ += t.irq;
  ctxsw_ps_ += t.ctxsw;
  idle_ps_ += t.idle;
  poll_ps_ += t.poll;
  poll_time_ += t.poll;
  busy_ps_ += t.user + t.kernel + t.irq + t.ctxsw + t.poll;
}

void CpuAccount::busy(const CpuTime& t) {
  Tick d = t.user + t.kernel + t.irq + t.ctxsw + t.poll;
  if (d == 0) return;
  in_busy_ = t;
  busy_trace_ = true;
  Calendar::get().wait_for(d);
  busy_trace_ = false;
  charge(in_busy_);
  ran_(d);
  in_busy_ = {};
  mark_ = now_ps();
}

Tick CpuAccount::busy_until(Tick len, Tick total, Tick CpuTime::*cat, const EventList& ev) {
  Tick from = now_ps();
  in_busy_ = {};
  in_busy_.*cat = total;
  busy_trace_ = true;
  Calendar::get().wait_for(len, ev);
  busy_trace_ = false;
  CpuTime c;
  c.*cat = now_ps() - from;
  charge(c);
  in_busy_ = {};
  mark_ = now_ps();
  return c.*cat;
}

void CpuAccount::idle_until(const EventList& ev) {
  in_idle_ = true;
  Calendar::get().wait(ev);
  in_idle_ = false;
  account_to(now_ps());
}

void CpuAccount::idle_until(Tick d, const EventList& ev) {
  in_idle_ = true;
  Calendar::get().wait_for(d, ev);
  in_idle_ = false;
  account_to(now_ps());
}

Tick CpuAccount::stall_since(Tick entered, Tick CpuTime::*cat) {
  Tick s = now_ps() - entered;
  if (!s) return 0;
  CpuTime c;
  c.*cat = s;
  charge(c);
  ran_(s);
  mark_ = now_ps();
  return s;
}

CpuTime CpuAccount::account_to(Tick now) {
  Tick el = now - mark_;
  CpuTime c;
  if (in_busy_.user + in_busy_.kernel + in_busy_.irq + in_busy_.ctxsw + in_busy_.poll == 0) {
    (in_poll_ ? c.poll : c.idle) = el;  // waiting or spinning (no time passes outside the waits)
    if (in_poll_) ran_(el);
  } else {  // stopped part-way through a busy stretch: charge what has run, in category order
    using Part = std::pair<Tick*, Tick*>;
    for (Part p : {Part{&c.user, &in_busy_.user}, Part{&c.kernel, &in_busy_.kernel}, Part{&c.irq, &in_busy_.irq},
                   Part{&c.ctxsw, &in_busy_.ctxsw}, Part{&c.poll, &in_busy_.poll}}) {
      *p.first = std::min(*p.second, el);
      *p.second -= *p.first;
      el -= *p.first;
    }
  }
  charge(c);
  mark_ = now;
  return {user_ps_.value, kernel_ps_.value, irq_ps_.value, ctxsw_ps_.value, idle_ps_.value, poll_ps_.value};
}

}  // namespace vp::host
