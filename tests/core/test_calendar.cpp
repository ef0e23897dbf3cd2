// SPDX-License-Identifier: BSD-3-Clause
// The calendar: one timeline for every component's callbacks and the host
// threads' sleeps, first come first served at an instant.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/EventQueue.hpp"

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
