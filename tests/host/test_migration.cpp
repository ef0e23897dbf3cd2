// SPDX-License-Identifier: BSD-3-Clause
// Threads moving between cores (host.sched.migration), the background work
// that makes a core busy when a thread wakes, placement over cache domains
// (llc_cores) and fio's cpus_allowed_policy=split.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
const Sets kTwoCores = with(kRoundHostCosts, {{"host.cores", "2"}, {"host.sched.migration", "true"}});

// R reads at QD1 and may use both cores; C, on core 0 only, issues one read
// and then computes for 100 ms. Both start on core 0 (R first, job order).
const char* kJobs =
    "[global]\ndirect=1\nbs=4k\nrw=randread\niodepth=1\n"
    "[R]\nnumber_ios=20\ncpus_allowed=0-1\n"
    "[C]\nnumber_ios=1\nthinktime=100ms\nthinktime_spin=100ms\ncpus_allowed=0\n";

struct Io {
  std::string job;
  unsigned sqid;
  uint64_t issued, interrupt_end, wakeup_end;
};

std::vector<Io> ios(const std::string& dir, const std::string& job) {
  std::vector<Io> v;
  for (const CsvRow& r : csv_rows(dir + "/requests.csv"))
    if (r.at("job") == job)
      v.push_back({r.at("job"), static_cast<unsigned>(u64(r, "sqid")), u64(r, "issue_ps"), u64(r, "interrupt_end_ps"),
                   u64(r, "wakeup_end_ps")});
  std::sort(v.begin(), v.end(), [](const Io& a, const Io& b) { return a.issued < b.issued; });
  return v;
}
}  // namespace

TEST_CASE("a reader woken while another thread computes on its core moves to the idle core and stays",
          "[host][sched][migration]") {
  std::string dir = scratch("migrate_idle");
  auto s = run_traced(dir, "quick", kTwoCores, kJobs);
  // R's first read goes from core 0 (SQ 1); meanwhile C computes there, so
  // the completion finds core 0 busy and core 1 idle: R moves once, and
  // from then on its reads go from core 1 (SQ 2), whose interrupts find it
  // alone there.
  CHECK(s["counters"]["host.sched.migrations"] == 1);
  auto r = ios(dir, "R");
  REQUIRE(r.size() == 20);
  CHECK(r[0].sqid == 1);
  for (size_t k = 1; k < r.size(); ++k) {
    INFO("read " << k);
    CHECK(r[k].sqid == 2);
  }
  // Core 1's first thread starts without a context switch: R has its first
  // completion the moment the ISR on core 0 is done; later ones cost core 1
  // a switch (3 us) to R, blocked in between.
  CHECK(r[0].wakeup_end == r[0].interrupt_end);
  for (size_t k = 1; k < r.size(); ++k) CHECK(r[k].wakeup_end - r[k].interrupt_end == 3000000);
  for (const Io& c : ios(dir, "C")) CHECK(c.sqid == 1);
}

namespace {
// R on core 0 alone: its first completion waits for C to give up core 0. C
// is ahead of it by less than the wakeup granularity (3 ms), so R waits
// past C's slice (9 ms).
void waits_for_its_core(const std::string& dir, const Sets& sets, const std::string& jobs) {
  auto s = run_traced(dir, "quick", sets, jobs);
  CHECK(s["counters"]["host.sched.migrations"] == 0);
  auto r = ios(dir, "R");
  REQUIRE(r.size() == 20);
  for (const Io& x : r) CHECK(x.sqid == 1);
  CHECK(r[0].wakeup_end - r[0].interrupt_end > 1000000000ull);  // over 1 ms
}
}  // namespace

TEST_CASE("without migration the reader waits for its busy core", "[host][sched][migration]") {
  waits_for_its_core(scratch("migrate_off"), with(kTwoCores, {{"host.sched.migration", "false"}}), kJobs);
}

TEST_CASE("a reader pinned to its busy core waits for it", "[host][sched][migration]") {
  std::string jobs = kJobs;
  jobs.replace(jobs.find("cpus_allowed=0-1"), 16, "cpus_allowed=0");
  waits_for_its_core(scratch("migrate_pinned"), kTwoCores, jobs);
}

TEST_CASE("background work is kernel time in pieces of background_cost at background_rate",
          "[host][sched][migration]") {
  // Core 1 runs no thread: all its kernel time is background work, in whole
  // 5 us pieces. At 1000/s over the run a Poisson count has mean 1000 x T
  // and standard deviation sqrt(1000 x T): within 4 of them.
  auto s = run("quick",
               with(kTwoCores, {{"host.sched.background_rate", "1000"}, {"host.sched.background_cost", "5us"}}),
               "[R]\ndirect=1\nbs=4k\nrw=randread\niodepth=1\ncpus_allowed=0\nruntime=500ms\ntime_based=1\n");
  double t = s["sim_time_s"].get<double>();
  uint64_t k1 = host(s)["cpu"][1]["kernel_ps"].get<uint64_t>();
  CHECK(k1 % 5000000 == 0);
  double n1 = double(k1 / 5000000);
  CHECK(std::abs(n1 - 1000 * t) <= 4 * std::sqrt(1000 * t));
  uint64_t runs = s["counters"]["host.sched.background_runs"].get<uint64_t>();
  CHECK(runs > n1);  // core 0 had its share too
  CHECK(std::abs(double(runs) - 2000 * t) <= 4 * std::sqrt(2000 * t));
}

TEST_CASE("without a background rate there is no background work", "[host][sched][migration]") {
  auto q = run("quick", kTwoCores, "[R]\ndirect=1\nbs=4k\nrw=randread\niodepth=1\ncpus_allowed=0\nnumber_ios=100\n");
  CHECK(q["counters"]["host.sched.background_runs"] == 0);
  CHECK(host(q)["cpu"][1]["kernel_ps"] == 0);
}

TEST_CASE("threads are spread over cache domains first, as fork balancing spreads them over sockets", "[host][sched]") {
  std::string dir = scratch("placement_llc");
  // 8 cores in two domains of 4: clones alternate domains (0, 4, 1, 5, ...)
  // as Linux's fork balancing spreads them over sockets.
  run_traced(dir, "quick", {{"host.cores", "8"}, {"host.sched.llc_cores", "4"}},
             "[j]\ndirect=1\nbs=4k\nrw=randread\niodepth=1\nnumber_ios=10\nnumjobs=8\n");
  const unsigned want[] = {1, 5, 2, 6, 3, 7, 4, 8};  // SQ = core + 1
  for (unsigned k = 0; k < 8; ++k) {
    INFO("clone " << k);
    for (const Io& x : ios(dir, "j." + std::to_string(k))) CHECK(x.sqid == want[k]);
  }
}

TEST_CASE("cpus_allowed_policy=split gives each clone its own core, where it stays", "[host][sched][migration]") {
  // Clone k gets the k-th CPU of 1-2 (wrapping), and stays there even with
  // migration and background work.
  std::string dir = scratch("placement_split");
  auto s = run_traced(dir, "quick", with(kTwoCores, {{"host.cores", "3"}, {"host.sched.background_rate", "10000"}}),
                      "[j]\ndirect=1\nbs=4k\nrw=randread\niodepth=4\nnumber_ios=2000\nnumjobs=3\ncpus_allowed=1-2\n"
                      "cpus_allowed_policy=split\n");
  CHECK(s["counters"]["host.sched.migrations"] == 0);
  const unsigned sq[] = {2, 3, 2};
  for (unsigned k = 0; k < 3; ++k)
    for (const Io& x : ios(dir, "j." + std::to_string(k))) CHECK(x.sqid == sq[k]);
}

TEST_CASE("cpus_allowed_policy takes shared or split", "[host][sched]") {
  CHECK_THROWS_WITH(run("quick", {}, "[j]\nrw=read\ncpus_allowed_policy=spread\n"),
                    Catch::Contains("cpus_allowed_policy") && Catch::Contains("shared or split"));
}
