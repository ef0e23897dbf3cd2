// SPDX-License-Identifier: BSD-3-Clause
// The calendar: one timeline for every component's callbacks and the host
// threads' sleeps, first come first served at an instant.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <functional>
#include <string>
#include <systemc>
#include <thread>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/SimControl.hpp"

using vp::Calendar;
using vp::EventQueue;
using vp::now_ps;

TEST_CASE("callbacks of two components due at one instant run in the order they were scheduled",
          "[core][calendar]") {
  EventQueue a("a"), b("b");
  std::vector<std::string> seen;
  auto log = [&](const char* s) { return [&seen, s] { seen.push_back(fmt::format("{}@{}", s, now_ps())); }; };
  // Scheduled b1, a1, b2, a2 for 100 ps, and a3 for 50 ps last of all.
  b.at(100, log("b1"));
  a.at(100, log("a1"));
  b.at(100, [&] {
    seen.push_back(fmt::format("b2@{}", now_ps()));
    a.at(now_ps(), log("a-now"));  // due now: after everything already due now
    b.at(now_ps() + 1, log("b-next"));
  });
  a.at(100, log("a2"));
  a.at(50, log("a3"));
  sc_core::sc_start();
  CHECK(seen == std::vector<std::string>{"a3@50", "b1@100", "a1@100", "b2@100", "a2@100", "a-now@100", "b-next@101"});
  CHECK(a.fired() == 4);
  CHECK(b.fired() == 3);
  CHECK(Calendar::get().pending() == 0);
}

TEST_CASE("work deferred by a callback runs when it returns, before the other callbacks due then, in order",
          "[core][calendar]") {
  EventQueue a("a"), b("b");
  std::vector<std::string> seen;
  static std::vector<std::string>* out = nullptr;
  out = &seen;
  auto hook = [](void*, uint64_t k) { out->push_back(fmt::format("hook{}@{}", k, now_ps())); };
  // Outside a callback nothing can be deferred.
  CHECK_FALSE(Calendar::get().defer(hook, nullptr, 0));
  a.at(100, [&] {
    seen.push_back("a1");
    CHECK(Calendar::get().defer(hook, nullptr, 1));
    CHECK(Calendar::get().defer(
        [](void*, uint64_t k) {
          out->push_back(fmt::format("hook{}@{}", k, now_ps()));
          Calendar::get().defer([](void*, uint64_t j) { out->push_back(fmt::format("hook{}@{}", j, now_ps())); },
                                nullptr, 3);  // deferred by a hook: after those before it
        },
        nullptr, 2));
    seen.push_back("a1 end");
  });
  b.at(100, [&] { seen.push_back("b1"); });
  sc_core::sc_start();
  CHECK(seen == std::vector<std::string>{"a1", "a1 end", "hook1@100", "hook2@100", "hook3@100", "b1"});
  // Deferred work is not a callback of its own.
  CHECK(a.fired() == 1);
  CHECK(Calendar::get().callbacks() == 2);
}

TEST_CASE("a thread sleeping on the calendar resumes at its time after the callbacks due then or at its event",
          "[core][calendar]") {
  EventQueue q("q");
  sc_core::sc_event ev;
  std::vector<std::string> seen;
  sc_core::sc_spawn([&] {
    Calendar::get().wait_for(1000);  // 1 ns
    seen.push_back(fmt::format("slept@{}", now_ps()));
    // The event comes first (at 1,300 ps): the 5 ns alarm is void and does
    // not wake the next sleep early.
    Calendar::get().wait_for(5000, ev);
    seen.push_back(fmt::format("event@{}", now_ps()));
    Calendar::get().wait_for(10000);
    seen.push_back(fmt::format("slept@{}", now_ps()));
    sc_core::sc_event never;
    Calendar::get().wait_for(2000, never);  // the time comes first
    seen.push_back(fmt::format("timed out@{}", now_ps()));
  });
  q.at(1000, [&] { seen.push_back("callback@1000"); });
  q.at(1300, [&] { ev.notify(); });
  sc_core::sc_start();
  CHECK(seen == std::vector<std::string>{"callback@1000", "slept@1000", "event@1300", "slept@11300",
                                         "timed out@13300"});
  CHECK(now_ps() == 13300);
}

TEST_CASE("inside run_for the calendar runs ahead of the kernel and hands a woken thread its instant",
          "[core][calendar]") {
  EventQueue q("q");
  sc_core::sc_event ev;
  std::vector<std::string> seen;
  // Each entry: what ran, the model's time, the kernel's time.
  auto mark = [&](const char* what) {
    seen.push_back(fmt::format("{}@{}/{}", what, now_ps(), sc_core::sc_time_stamp().value()));
  };
  sc_core::sc_spawn([&] {
    sc_core::wait(ev);
    mark("thread");
  });
  q.at(100, [&] { mark("a"); });
  q.at(150, [&] { mark("b"); });  // ahead: nothing else is due before 200
  q.at(200, [&] {
    mark("c");
    Calendar::get().notify(ev);  // ahead of the kernel: delivered when it reaches 200
    q.at(200, [&] { mark("c-now"); });
  });
  q.at(300, [&] { mark("d"); });
  q.at(1500, [&] { mark("e"); });  // after the window
  Calendar::get().run_for(1000);
  CHECK(seen == std::vector<std::string>{"a@100/100", "b@150/100", "c@200/100", "c-now@200/100", "thread@200/200",
                                         "d@300/300"});
  CHECK(sc_core::sc_time_stamp().value() == 1000);
  CHECK(now_ps() == 1000);
  // 150 ran ahead; 200 too, but the kernel came to it for the thread.
  CHECK(Calendar::get().instants_ahead() == 1);
  Calendar::get().run_for(1000);
  CHECK(seen.back() == "e@1500/1500");
}

TEST_CASE("a plain sc_start and a waveform keep the calendar at the kernel's time", "[core][calendar]") {
  EventQueue q("q");
  std::vector<std::string> seen;
  for (vp::Tick t : {100, 150, 200})
    q.at(t, [&] { seen.push_back(fmt::format("{}/{}", now_ps(), sc_core::sc_time_stamp().value())); });
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));
  CHECK(seen == std::vector<std::string>{"100/100", "150/150", "200/200"});
  CHECK(Calendar::get().instants_ahead() == 0);
  Calendar::get().set_run_ahead(false);
  q.at(1100, [&] { seen.push_back(fmt::format("{}/{}", now_ps(), sc_core::sc_time_stamp().value())); });
  q.at(1200, [&] { seen.push_back(fmt::format("{}/{}", now_ps(), sc_core::sc_time_stamp().value())); });
  Calendar::get().run_for(1000);
  CHECK(seen.back() == "1200/1200");
  CHECK(Calendar::get().instants_ahead() == 0);
}

TEST_CASE("a callback runs in its place while what it schedules takes new slots", "[core][calendar]") {
  EventQueue q("q");
  std::vector<uint64_t> seen;
  // Each callback carries 40 bytes of captures and schedules 3000 more (the
  // calendar's job slots grow by chunks of 1024 meanwhile), then reads its
  // own captures: they must be intact. Order: the first at 10, then its
  // children at 20 in the order scheduled.
  uint64_t a = 1, b = 2, c = 3, d = 4;
  q.at(10, [&q, &seen, a, b, c, d] {
    for (uint64_t i = 0; i < 3000; ++i) q.at(20, [&seen, i] { seen.push_back(i); });
    seen.push_back(a + b + c + d);  // 10, read after the growth
  });
  sc_core::sc_start();
  REQUIRE(seen.size() == 3001);
  CHECK(seen[0] == 10);
  for (uint64_t i = 0; i < 3000; ++i) CHECK(seen[i + 1] == i);
  CHECK(q.fired() == 3001);
  CHECK(Calendar::get().pending() == 0);
}

TEST_CASE("threads woken ahead of the kernel at one instant run in the order they were woken", "[core][calendar]") {
  EventQueue q("q");
  sc_core::sc_event e1, e2, e3;
  std::vector<std::string> seen;
  auto waiter = [&](sc_core::sc_event& ev, const char* name) {
    sc_core::sc_spawn([&ev, &seen, name] {
      sc_core::wait(ev);
      seen.push_back(fmt::format("{}@{}", name, sc_core::sc_time_stamp().value()));
    });
  };
  waiter(e1, "t1");
  waiter(e2, "t2");
  waiter(e3, "t3");
  // At 200 (ahead) two threads are woken, t2 first; at 400 one alone.
  q.at(100, [] {});
  q.at(200, [&] {
    Calendar::get().notify(e2);
    Calendar::get().notify(e1);
  });
  q.at(400, [&] { Calendar::get().notify(e3); });
  Calendar::get().run_for(1000);
  CHECK(seen == std::vector<std::string>{"t2@200", "t1@200", "t3@400"});
}

TEST_CASE("callbacks that schedule callbacks run in (instant, order scheduled) order, ties included",
          "[core][calendar]") {
  // A cascade: each callback, when it runs, schedules up to three more 0 to
  // 7 ps later (ties are common). The same cascade is replayed by a plain
  // list searched for its (instant, scheduling number) minimum each step; a
  // different run order draws different numbers and the logs part.
  struct Rng {
    uint64_t s = 0x9E3779B97F4A7C15ull;
    uint64_t next() { return s = s * 6364136223846793005ull + 1442695040888963407ull, s >> 33; }
  };
  constexpr int kMax = 20000;
  EventQueue q("q");
  Rng rng;
  int made = 0;
  std::vector<std::pair<uint64_t, int>> ran;  // (instant, id)
  std::function<void(int)> body = [&](int id) {
    ran.emplace_back(now_ps(), id);
    for (uint64_t k = rng.next() % 4; k > 0 && made < kMax; --k) {
      const int child = made++;
      q.at(now_ps() + rng.next() % 8, [&body, child] { body(child); });
    }
  };
  for (int i = 0; i < 4; ++i) {
    const int id = made++;
    q.at(10, [&body, id] { body(id); });
  }
  sc_core::sc_start();

  struct Pending {
    uint64_t at;
    int order, id;
  };
  Rng ref;
  int ref_made = 0, order = 0;
  std::vector<Pending> pending;
  std::vector<std::pair<uint64_t, int>> expected;
  for (int i = 0; i < 4; ++i) pending.push_back({10, order++, ref_made++});
  while (!pending.empty()) {
    auto it = std::min_element(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
      return a.at != b.at ? a.at < b.at : a.order < b.order;
    });
    const Pending p = *it;
    pending.erase(it);
    expected.emplace_back(p.at, p.id);
    for (uint64_t k = ref.next() % 4; k > 0 && ref_made < kMax; --k)
      pending.push_back({p.at + ref.next() % 8, order++, ref_made++});
  }
  REQUIRE(made > 1000);  // the cascade did not die out at once
  CHECK(ran.size() == expected.size());
  CHECK(ran == expected);
  CHECK(Calendar::get().pending() == 0);
}

TEST_CASE("a run interrupted from another thread stops at the instant it is stuck in, even in a callback loop that "
          "never lets time pass", "[core][calendar]") {
  EventQueue q("q");
  uint64_t spins = 0;
  std::function<void()> again = [&] {
    ++spins;
    q.at(now_ps(), again);  // due now: the instant never ends
  };
  q.at(5000, again);
  std::thread interrupter([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    vp::sim_interrupt(vp::kWatchdog);
  });
  Calendar::get().run_for(1'000'000);  // would never return without the interrupt
  interrupter.join();
  CHECK(sc_core::sc_time_stamp().value() == 5000);
  CHECK(spins > 0);
  CHECK(vp::sim_interrupt_cause() == vp::kWatchdog);
  vp::sim_clear_interrupt();
}
