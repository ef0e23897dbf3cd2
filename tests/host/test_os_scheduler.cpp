// SPDX-License-Identifier: BSD-3-Clause
// The host's OS scheduler (CoreScheduler): threads sharing a core by CFS
// slices, a waking thread preempting one that is ahead of it in virtual run
// time, and what the switches cost.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/TestSupport.hpp"
#include "vp/host/sched/CoreScheduler.hpp"

using namespace vp::test;

namespace {
// Round costs: submit 1 us, ISR 2 us, reap 0.5 us, switch 3 us plus a 2 us
// cache penalty when the thread switched to is not the last one that ran.
// Slices: 18 ms / 2 runnable threads = 9 ms.
const Sets kCosts = with(kRoundHostCosts, {{"host.cores", "2"},
                                            {"host.sched.cache_penalty", "2us"},
                                            {"host.sched.latency", "18ms"},
                                            {"host.sched.min_granularity", "2.25ms"}});

// On core 1: C issues one read and then computes 100 ms; R reads at QD1.
const char* kJobs =
    "[global]\ndirect=1\nbs=4k\nrw=randread\niodepth=1\ncpus_allowed=1\n"
    "[C]\nnumber_ios=1\nthinktime=100ms\nthinktime_spin=100ms\n"
    "[R]\nnumber_ios=20\n";

struct Io {
  std::string job;
  uint64_t issued, interrupt_end, wakeup_end;
};

std::vector<Io> ios(const std::string& dir) {
  std::vector<Io> v;
  for (const CsvRow& r : csv_rows(dir + "/requests.csv"))
    v.push_back({r.at("job"), u64(r, "issue_ps"), u64(r, "interrupt_end_ps"), u64(r, "wakeup_end_ps")});
  std::stable_sort(v.begin(), v.end(), [](const Io& a, const Io& b) { return a.issued < b.issued; });
  return v;
}

}  // namespace

TEST_CASE("a waking reader preempts a computing thread that is ahead of it by more than the wakeup granularity",
          "[host][sched]") {
  std::string dir = scratch("sched_preempt");
  auto s = run_traced(dir, "quick", with(kCosts, {{"host.sched.wakeup_granularity", "3ms"}}), kJobs);
  auto v = ios(dir);
  REQUIRE(v.size() == 21);
  REQUIRE(v[0].job == "C");
  // Both start at t0 with no run time; C, first in job order, takes the
  // core (issue 1 us, then its compute) for a 9 ms slice from t0. Then R,
  // 9 ms behind, gets it: 3 + 2 us switch, and issues.
  CHECK(v[1].job == "R");
  CHECK(v[1].issued - v[0].issued == 9005000000ull);
  // From then on each completion of R preempts C at once (R is ~9 ms behind,
  // more than 3 ms): R's wake-up stage is the switch, 3 + 2 us, and it issues
  // its next read right there.
  for (size_t k = 1; k < v.size(); ++k) {
    CHECK(v[k].wakeup_end - v[k].interrupt_end == 5000000ull);
    if (k + 1 < v.size()) CHECK(v[k + 1].issued == v[k].wakeup_end);
  }
  // Preemptions: C at its slice's end, then at each of R's 20 wake-ups.
  // Switches: C->R at 9 ms, then per read R->C when R blocks and C->R when
  // it wakes (20 x 2), and R->C after the last: 42, each 3 + 2 us.
  CHECK(s["counters"]["host.sched.preemptions"] == 21);
  CHECK(s["counters"]["host.context_switches"] == 42);
  const auto& c = host(s)["cpu"][1];
  CHECK(c["ctxsw_ps"] == 42 * 5000000ull);
  // C's compute runs whole despite the preemptions: 100 ms of user time.
  CHECK(c["user_ps"] == 100000000000ull);
  // Kernel: 21 x (1 us submit + 0.5 us reap); irq 21 x 2 us.
  CHECK(c["kernel_ps"] == 31500000ull);
  CHECK(c["irq_ps"] == 42000000ull);
  CHECK(c["user_ps"].get<uint64_t>() + c["kernel_ps"].get<uint64_t>() + c["irq_ps"].get<uint64_t>() +
            c["ctxsw_ps"].get<uint64_t>() + c["idle_ps"].get<uint64_t>() + c["poll_ps"].get<uint64_t>() ==
        c["elapsed_ps"].get<uint64_t>());
}

TEST_CASE("without wakeup preemption a reader waits for the computing thread's slice to end", "[host][sched]") {
  std::string dir = scratch("sched_slices");
  auto s = run_traced(dir, "quick", with(kCosts, {{"host.sched.wakeup_granularity", "1s"}}), kJobs);
  auto v = ios(dir);
  REQUIRE(v.size() == 21);
  CHECK(v[1].issued - v[0].issued == 9005000000ull);  // as above
  // R issues (1 us) and blocks; the switch to C (5 us) starts C's 9 ms
  // slice 1 us after R's issue. R's read completes early in it but waits for
  // its end, then the switch back (5 us): R's next read goes 1 us + 9 ms +
  // 5 us = 9.006 ms after the one before, while C still computes (C has
  // run 9 ms per 9.006 ms from 9.005 ms on: its 100 ms end near 100.0 ms, after
  // R's first 11 reads).
  for (size_t k = 1; k + 1 < v.size() && k < 11; ++k) CHECK(v[k + 1].issued - v[k].issued == 9006000000ull);
  // Then C is done and R runs alone: a read takes its latency plus the
  // switch from idle (3 us, no penalty: R ran last).
  CHECK(v[20].wakeup_end - v[20].interrupt_end == 3000000ull);
  // C loses the core at the end of each slice with R waiting: it has run
  // 8.999 ms + 9 ms x k after k slices, so slices 1 to 11 end before its
  // 100 ms are done and the 12th does not: 11 preemptions.
  CHECK(s["counters"]["host.sched.preemptions"] == 11);
}

TEST_CASE("CFS tunables left at 0 take Linux's boot-time values for the host's core count", "[host][sched]") {
  // sched_init_granularity: 1-CPU value x (1 + ilog2(min(CPUs, 8))).
  using vp::host::CoreScheduler;
  const vp::Tick ms = 1000000000ull;
  CHECK(CoreScheduler::linux_default(6 * ms, 1) == 6 * ms);
  CHECK(CoreScheduler::linux_default(6 * ms, 2) == 12 * ms);
  CHECK(CoreScheduler::linux_default(6 * ms, 3) == 12 * ms);
  CHECK(CoreScheduler::linux_default(6 * ms, 4) == 18 * ms);
  CHECK(CoreScheduler::linux_default(6 * ms, 7) == 18 * ms);
  CHECK(CoreScheduler::linux_default(6 * ms, 8) == 24 * ms);
  CHECK(CoreScheduler::linux_default(6 * ms, 64) == 24 * ms);
  CHECK(CoreScheduler::linux_default(750000000ull, 4) == 2250000000ull);
}

TEST_CASE("on 8 cores two threads share a core in 12 ms slices (Linux's 24 ms period for 8 CPUs)", "[host][sched]") {
  std::string dir = scratch("sched_8cpus");
  auto s = run_traced(dir, "quick",
                      with(kRoundHostCosts, {{"host.cores", "8"},
                                             {"host.sched.cache_penalty", "2us"},
                                             {"host.sched.wakeup_granularity", "1s"}}),
                      kJobs);
  CHECK(host(s)["sched"]["latency_us"] == 24000.0);
  CHECK(host(s)["sched"]["min_granularity_us"] == 3000.0);
  CHECK(host(s)["sched"]["wakeup_granularity_us"] == 1000000.0);
  auto v = ios(dir);
  REQUIRE(v.size() == 21);
  // As on 2 cores with 18 ms (above), but each slice of C is 24 / 2 = 12 ms:
  // R's reads go 1 us + 12 ms + 5 us apart while C computes its 100 ms
  // (C has run 11.999 ms + 12 ms x k after k slices: 8 slices).
  for (size_t k = 1; k < 8; ++k) CHECK(v[k + 1].issued - v[k].issued == 12006000000ull);
  CHECK(s["counters"]["host.sched.preemptions"] == 8);
}
