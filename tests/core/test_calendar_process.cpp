// SPDX-License-Identifier: BSD-3-Clause
// Calendar processes (Calendar::spawn): coroutines the calendar runs itself
// under the SystemC kernel's rules for threads, so that moving a model from
// SystemC threads to processes leaves its runs unchanged. The oracle is the
// kernel itself: one script run by SystemC threads on sc_events and by
// calendar processes on vp::Events must log the same steps in the same order.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <functional>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/Calendar.hpp"
#include "vp/core/Event.hpp"

using vp::Calendar;
using vp::now_ps;
using vp::Tick;

namespace {

uint64_t fired = 0;

// SystemC threads waiting on sc_events (the reference).
struct KernelThreads {
  using Ev = sc_core::sc_event;
  static void spawn(const char* name, std::function<void()> f) { sc_core::sc_spawn(std::move(f), name); }
  static void wait(Ev& e) { sc_core::wait(e); }
  static void wait(Ev& a, Ev& b) { sc_core::wait(a | b); }
  static void wait_for(Tick d) { Calendar::get().wait_for(d); }
  static void wait_for(Tick d, Ev& e) {
    sc_core::sc_event_or_list l;
    l |= e;
    Calendar::get().wait_for(d, l);
  }
};

// Calendar processes waiting on vp::Events.
struct CalendarProcesses {
  using Ev = vp::Event;
  static void spawn(const char* name, std::function<void()> f) { Calendar::get().spawn(name, std::move(f)); }
  static void wait(Ev& e) { Calendar::get().wait(e); }
  static void wait(Ev& a, Ev& b) { Calendar::get().wait(a | b); }
  static void wait_for(Tick d) { Calendar::get().wait_for(d); }
  static void wait_for(Tick d, Ev& e) { Calendar::get().wait_for(d, e); }
};

// Four workers woken together, then immediate and delta notifications,
// zero-time waits (the kernel's delta timeouts, cancelled when an event
// comes first), timed waits cut short by an event, and callbacks scheduled
// for the current instant: every rule the calendar keeps for processes.
// Steps are logged as "time-from-base name".
template <class K>
struct Script {
  Tick base;
  std::vector<std::string>& log;
  typename K::Ev go, e1, e2, d;

  Script(Tick b, std::vector<std::string>& l) : base(b), log(l) {}
  void note(const std::string& what) { log.push_back(fmt::format("{} {}", now_ps() - base, what)); }
  void at(Tick t, std::function<void()> f) { Calendar::get().at(t, &fired, std::move(f)); }

  void start() {
    K::spawn("t0", [this] {
      K::wait(go);
      note("t0 go");
      Calendar::get().notify_delta(d);
      at(now_ps(), [this] {
        note("cb now");
        Calendar::get().notify(e1);
      });
      K::wait(e1, e2);
      note("t0 e1|e2");
      K::wait_for(5);
      note("t0 +5");
      Calendar::get().notify(e2);
      Calendar::get().notify_delta(d);
      K::wait_for(0);
      note("t0 0");
    });
    K::spawn("t1", [this] {
      K::wait(go);
      note("t1 go");
      K::wait_for(0);
      note("t1 0");
      K::wait(d);
      note("t1 d");
    });
    K::spawn("t2", [this] {
      K::wait(go);
      note("t2 go");
      K::wait(d, e2);
      note("t2 d|e2");
      K::wait_for(50, e2);
      note("t2 50|e2");
      K::wait_for(0, e1);
      note("t2 0|e1");
    });
    K::spawn("t3", [this] {
      K::wait(go);
      note("t3 go");
      K::wait_for(0, e1);
      note("t3 0|e1");
      K::wait(e2);
      note("t3 e2");
      at(now_ps(), [this] { Calendar::get().notify(e1); });
      K::wait_for(7, e1);
      note("t3 7|e1");
    });
    at(base, [this] {
      note("go");
      Calendar::get().notify(go);
    });
  }
};

}  // namespace

TEST_CASE("calendar processes run in the order SystemC threads would, step by step", "[core][calendar][process]") {
  std::vector<std::string> threads, procs;
  Script<KernelThreads> k(1000, threads);
  Script<CalendarProcesses> p(100000, procs);  // far apart: the two never share an instant
  k.start();
  p.start();
  Calendar::get().run_for(1000000);
  REQUIRE(threads.size() == 17);
  CHECK(procs == threads);
  // The kernel's order for four threads on one event: the first to wait,
  // then from the last back.
  CHECK(threads[1] == "0 t0 go");
  CHECK(threads[2] == "0 t3 go");
  CHECK(threads[3] == "0 t2 go");
  CHECK(threads[4] == "0 t1 go");
  // The next delta cycle, worked by hand: the delta notifications were d
  // (t0), the calendar's own (t0 scheduled a callback for now), t3's zero
  // timeout, t1's; triggered last first they make t1, t3, t2 runnable; the
  // calendar's callback runs first (a method before threads) and its e1
  // wakes t0 after them.
  CHECK(std::vector<std::string>(threads.begin() + 5, threads.begin() + 10) ==
        std::vector<std::string>{"0 cb now", "0 t1 0", "0 t3 0|e1", "0 t2 d|e2", "0 t0 e1|e2"});
}

TEST_CASE("processes start in the order spawned, after the callbacks due at time 0, and wait on the calendar",
          "[core][calendar][process]") {
  std::vector<std::string> seen;
  vp::Event ev;
  Calendar::get().at(0, &fired, [&] { seen.push_back("cb"); });
  Calendar::get().spawn("a", [&] {
    seen.push_back(fmt::format("a@{}", now_ps()));
    Calendar::get().wait_for(1000);
    seen.push_back(fmt::format("a@{}", now_ps()));
    Calendar::get().wait_for(5000, ev);  // the event comes at 1,300 ps: the alarm at 6,000 is void
    seen.push_back(fmt::format("a@{}", now_ps()));
    Calendar::get().wait_for(10000);
    seen.push_back(fmt::format("a@{}", now_ps()));
  });
  Calendar::get().spawn("b", [&] { seen.push_back(fmt::format("b@{}", now_ps())); });
  Calendar::get().at(1300, &fired, [&] { Calendar::get().notify(ev); });
  Calendar::get().run_for(100000);
  CHECK(seen == std::vector<std::string>{"cb", "a@0", "b@0", "a@1000", "a@1300", "a@11300"});
  CHECK(Calendar::get().in_process() == false);
}

TEST_CASE("a process woken ahead of the kernel runs there without the kernel, and a SystemC thread on its event "
          "at the kernel's time",
          "[core][calendar][process]") {
  vp::Event ev;
  std::vector<std::string> seen;
  Calendar::get().spawn("p", [&] {
    Calendar::get().wait(ev);
    seen.push_back(fmt::format("p@{}", now_ps()));
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(ev.kernel_event());
    seen.push_back(fmt::format("thread@{} kernel@{}", now_ps(), sc_core::sc_time_stamp().value()));
  });
  Calendar::get().at(100, &fired, [] {});
  Calendar::get().at(300, &fired, [&] { Calendar::get().notify(ev); });
  Calendar::get().run_for(1000);
  CHECK(seen == std::vector<std::string>{"p@300", "thread@300 kernel@300"});
}

TEST_CASE("an exception in a process comes out of the simulation", "[core][calendar][process]") {
  Calendar::get().spawn("p", [] {
    Calendar::get().wait_for(10);
    throw std::runtime_error("model failure in a process");
  });
  CHECK_THROWS_WITH(Calendar::get().run_for(1000), Catch::Contains("model failure in a process"));
}

TEST_CASE("stop from a process ends the run after the processes woken with it", "[core][calendar][process]") {
  vp::Event ev;
  std::vector<std::string> seen;
  Calendar::get().spawn("a", [&] {
    Calendar::get().wait_for(200);
    Calendar::get().notify(ev);
    Calendar::get().stop();
    Calendar::get().at(now_ps(), &fired, [&] { seen.push_back("after stop"); });  // the next delta: never
    seen.push_back("a");
  });
  Calendar::get().spawn("b", [&] {
    Calendar::get().wait(ev);
    seen.push_back(fmt::format("b@{}", now_ps()));
  });
  Calendar::get().run_for(1000);
  CHECK(seen == std::vector<std::string>{"a", "b@200"});
  CHECK(sc_core::sc_time_stamp().value() == 200);
}
