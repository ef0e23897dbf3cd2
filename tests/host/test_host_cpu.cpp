// SPDX-License-Identifier: BSD-3-Clause
// Core time of the modeled host: jobs' compute (thinktime_spin,
// thinktime_insts, app=) and the per-core accounting by category.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/TestSupport.hpp"
#include "vp/host/workload/AppProfile.hpp"
#include "vp/host/workload/FioJob.hpp"

using namespace vp::test;

namespace {
// Round numbers for the hand arithmetic: submit 1 us, ISR 2 us, reaping
// 0.5 us per completion, context switch 3 us. No blk-mq cost with the
// `none` scheduler and a free tag.
const Sets kCosts = kRoundHostCosts;

struct Req {
  std::string job;
  uint64_t lba, issued;
  double latency_ns;
};

// Rows of requests.csv sorted by issue time.
std::vector<Req> requests(const std::string& dir) {
  std::vector<Req> rows;
  for (const CsvRow& r : csv_rows(dir + "/requests.csv"))
    rows.push_back({r.at("job"), u64(r, "lba"), u64(r, "issue_ps"), f64(r, "latency_ps") / 1e3});
  std::stable_sort(rows.begin(), rows.end(), [](const Req& a, const Req& b) { return a.issued < b.issued; });
  return rows;
}
}  // namespace

TEST_CASE("thinktime_spin is user time and the core categories add up to the simulated time", "[host][cpu]") {
  // Core 1 runs only this job (core 0 takes the admin interrupts of bring-up).
  auto s = run("quick", with(kCosts, {{"host.cores", "2"}}),
               "[spin]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nthinktime=12us\nthinktime_spin=12us\nnumber_ios=10\n"
               "cpus_allowed=1\n");
  REQUIRE(s["jobs"][0]["ios"] == 10);
  const auto& c = host(s)["cpu"][1];
  // user = 10 x 12 us spin = 120 us; kernel = 10 x (1 us submit + 0.5 us reap)
  // = 15 us; irq = 10 x 2 us = 20 us.
  CHECK(c["user_ps"] == 120000000);
  CHECK(c["kernel_ps"] == 15000000);
  CHECK(c["irq_ps"] == 20000000);
  // The device takes under 12 us for a 4 KiB read here (just over 10 us with
  // its DRAM staging), so each completion lands during the spin: the
  // interrupt preempts it (2.5 us, the spin goes on after) and the job,
  // still on the core, sees it at once and never blocks: no context switch,
  // and every latency is 1 us submit + the device + 2.5 us ISR, under the
  // 15.5 us it would be if the interrupt waited for the spin.
  CHECK(c["ctxsw_ps"] == 0);
  const auto& b = s["jobs"][0]["breakdown_us"]["read"];
  CHECK(s["jobs"][0]["latency_us"]["read"]["max"].get<double>() < 15.5);
  CHECK(b["interrupt"].get<double>() == Approx(2.5).margin(0.01));  // the MSI write's few ns on top
  CHECK(b["wakeup"].get<double>() == 0.0);
  uint64_t sum = c["user_ps"].get<uint64_t>() + c["kernel_ps"].get<uint64_t>() + c["irq_ps"].get<uint64_t>() +
                 c["ctxsw_ps"].get<uint64_t>() + c["idle_ps"].get<uint64_t>();
  CHECK(sum == c["elapsed_ps"].get<uint64_t>());
  CHECK(c["elapsed_ps"].get<double>() == Approx(s["sim_time_s"].get<double>() * 1e12));
  // The same figures are registered as counters.
  CHECK(s["counters"]["host.core1.cpu_user_ps"] == 120000000);
  CHECK(s["counters"]["host.core1.cpu_idle_ps"] == c["idle_ps"]);
  // Core 0 did only bring-up: no user time, and it adds up too.
  const auto& c0 = host(s)["cpu"][0];
  CHECK(c0["user_ps"] == 0);
  CHECK(c0["user_ps"].get<uint64_t>() + c0["kernel_ps"].get<uint64_t>() + c0["irq_ps"].get<uint64_t>() +
            c0["ctxsw_ps"].get<uint64_t>() + c0["idle_ps"].get<uint64_t>() ==
        c0["elapsed_ps"].get<uint64_t>());
}

TEST_CASE("without thinktime the spin is ignored as fio ignores it", "[host][cpu]") {
  auto s = run("quick", with(kCosts, {{"host.cores", "2"}}),
               "[nospin]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nthinktime_spin=10us\nnumber_ios=10\ncpus_allowed=1\n");
  CHECK(host(s)["cpu"][1]["user_ps"] == 0);
  CHECK(host(s)["cpu"][1]["kernel_ps"] == 15000000);  // 10 x (1 + 0.5) us, as above
}

TEST_CASE("a job spinning on a core delays the issues and completions of another job there", "[host][cpu]") {
  // Both jobs on core 1, equal in virtual run time at the group's start t0,
  // so A (first in job order) runs first:
  //   t0         A issues (1 us submit)
  //   t0+1 us    A spins 50 us; its slice (18 ms / 2 runnable) is far
  //              longer, so B waits. A's read (about 10 us) completes
  //              meanwhile: the interrupt preempts the spin (ISR 2 us +
  //              reap 0.5 us) and A, on the core, has its completion at once
  //   t0+53.5 us A's spin ends (1 + 50 + 2.5); A is done and blocks
  //   t0+58.5 us after the switch to B: 3 us + 2 us cache penalty (A ran last)
  // So B issues 58.5 us after A (6 us without the spin, next test), and A's
  // latency is 1 us + the device + 2.5 us, well under the spin.
  std::string dir = scratch("spin2");
  auto s = run_traced(dir, "quick", with(kCosts, {{"host.cores", "2"}, {"host.sched.cache_penalty", "2us"}}),
                      "[global]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\ncpus_allowed=1\n"
                      "[A]\nnumber_ios=1\nthinktime=50us\nthinktime_spin=50us\n"
                      "[B]\nnumber_ios=1\n");
  auto rows = requests(dir);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].job == "A");
  CHECK(rows[1].job == "B");
  CHECK(rows[1].issued - rows[0].issued == 58500000);
  CHECK(rows[0].latency_ns < 20000.0);
  // A to B, then idle to B when its read completes.
  CHECK(s["counters"]["host.context_switches"] == 2);
  CHECK(host(s)["cpu"][1]["user_ps"] == 50000000);
}

TEST_CASE("the same two jobs without the spin issue one submit cost apart", "[host][cpu]") {
  // The control of the test above: A blocks after its 1 us submission and
  // B issues after the switch to it, 3 us + the 2 us cache penalty: 6 us.
  std::string dir = scratch("nospin2");
  run_traced(dir, "quick", with(kCosts, {{"host.cores", "2"}, {"host.sched.cache_penalty", "2us"}}),
             "[global]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\ncpus_allowed=1\n"
             "[A]\nnumber_ios=1\nthinktime=50us\n[B]\nnumber_ios=1\n");
  auto rows = requests(dir);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].issued - rows[0].issued == 6000000);
}

TEST_CASE("app=PR fills the job from FlashShare Table 3", "[host][cpu][fio]") {
  auto jobs = vp::host::parse_fio("[p]\napp=PR\n", "t.fio");
  REQUIRE(jobs.size() == 1);
  const auto& j = jobs[0];
  CHECK(j.app == "PR");
  CHECK(j.rw == vp::host::RwMode::RandRW);
  CHECK(j.rwmixread == 99);            // 0.995: 99.5%, the half goes to the writes
  CHECK(j.bs == 32768);                // 30 KB rounded up to whole 4 KiB: 32 KiB
  CHECK(j.percentage_random == 29);    // (1 - 0.71) x 100
  CHECK(j.thinktime_insts == 2724796);  // 1e6 / 0.367 = 2724795.64 -> nearest
  // Fig 19's phases: 2.8 s at 1.6667x the intensity, 3.2 s at 0.41667x,
  // time-weighted mean (2.8 x 1.6667 + 3.2 x 0.41667) / 6 = 1.0000.
  REQUIRE(j.phases.size() == 2);
  CHECK(j.phases[0].duration_ps == 2800000000000ull);
  CHECK(j.phases[1].intensity == 0.41667);
  CHECK((2.8 * j.phases[0].intensity + 3.2 * j.phases[1].intensity) / 6 == Approx(1.0).epsilon(1e-4));
  // 2724796 / 1.6667 = 1634844.90 -> 1634845 in the burst; / 0.41667 = 6539458.08 -> 6539458.
  CHECK(j.insts_between_ios(0) == 1634845);
  CHECK(j.insts_between_ios(2800000000000ull) == 6539458);
  CHECK(j.insts_between_ios(6000000000000ull) == 1634845);  // the list repeats
  // The alias, any case; later options override.
  auto k = vp::host::parse_fio("[q]\napp=PageRank\nbs=8k\n", "t.fio");
  CHECK(k[0].app == "PR");
  CHECK(k[0].bs == 8192);
  CHECK(k[0].rwmixread == 99);
  // to_fio keeps both the app and the override.
  CHECK(vp::host::parse_fio(k[0].to_fio(), "again")[0] == k[0]);
  CHECK_THROWS_WITH(vp::host::parse_fio("[x]\napp=doom\n", "t.fio"),
                    Catch::Contains("t.fio:2") && Catch::Contains("bfs, gpgnu"));
}

TEST_CASE("all thirteen applications of Table 3 are known", "[host][cpu]") {
  REQUIRE(vp::host::AppProfile::all().size() == 13);
  // ungzip: read 0.096 -> 9.6% -> 10; 580 KB is 145 x 4 KiB: 580 KiB.
  const auto* u = vp::host::AppProfile::find("ungzip");
  REQUIRE(u);
  CHECK(u->rwmixread() == 10);
  CHECK(u->bs() == 580 * 1024);
  // is: 12 KB, 5.761 I/Os per MInst -> 173581 instructions; seq 0.86 -> 14% random.
  const auto* is = vp::host::AppProfile::find("is");
  REQUIRE(is);
  CHECK(is->insts_per_io() == 173581);
  CHECK(is->percentage_random() == 14);
  CHECK(is->online);
  // au: 0.476 -> 47.6% -> 48.
  CHECK(vp::host::AppProfile::find("au")->rwmixread() == 48);
}

TEST_CASE("the PR preset spins 1.3624 ms per I/O at 2 GHz and IPC 1", "[host][cpu]") {
  // 2724796 instructions / (2e9 Hz x 1) = 1.362398 ms = 1362398000 ps per I/O;
  // two I/Os: 2724796000 ps of user time.
  auto s = run("quick", with(kCosts, {{"host.cores", "2"}}), "[pr]\ndirect=1\napp=PR\nphases=none\nnumber_ios=2\ncpus_allowed=1\n");
  CHECK(s["jobs"][0]["ios"] == 2);
  CHECK(s["jobs"][0]["app"] == "PR");
  CHECK(host(s)["cpu"][1]["user_ps"] == 2724796000ull);
}

TEST_CASE("phases= divides the compute between I/Os by the phase's intensity, repeating", "[host][cpu][fio]") {
  // thinktime_insts=200000 at 2 GHz, IPC 1: 100 us. phases=1ms:2,1ms:0.5:
  // 50 us per I/O for the first ms of every 2, 200 us for the second. At
  // iodepth 1 each I/O completes within the compute (the device takes about
  // 10 us), so issues are the compute plus the same host overhead apart:
  // the gaps in the two phases differ by exactly 150 us.
  std::string dir = scratch("phases");
  auto s = run_traced(dir, "quick", with(kCosts, {{"host.cores", "2"}}),
                      "[p]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nthinktime_insts=200000\nphases=1ms:2,1ms:0.5\n"
                      "runtime=4ms\ntime_based=1\ncpus_allowed=1\n");
  auto rows = requests(dir);
  REQUIRE(rows.size() > 10);
  const uint64_t t0 = rows[0].issued, ms = 1000000000;
  uint64_t fast = 0, slow = 0;  // I/Os issued in each kind of phase
  std::vector<uint64_t> gap_fast, gap_slow;
  for (size_t i = 0; i < rows.size(); ++i) {
    bool in_fast = (rows[i].issued - t0) / ms % 2 == 0;
    (in_fast ? fast : slow)++;
    if (i + 1 < rows.size()) (in_fast ? gap_fast : gap_slow).push_back(rows[i + 1].issued - rows[i].issued);
  }
  REQUIRE(gap_fast.size() > 4);
  REQUIRE(gap_slow.size() > 2);
  uint64_t overhead = gap_fast[0] - 50000000;  // submit, ISR and reaping: a few us
  CHECK(overhead < 10000000);
  for (uint64_t g : gap_fast) CHECK(g == gap_fast[0]);
  for (uint64_t g : gap_slow) CHECK(g == gap_fast[0] + 150000000);
  // The user time is the sum of the two computes; about (1 ms / 50 us) x 2 +
  // (1 ms / 200 us) x 2 = 50 I/Os over 4 ms, against 40 without phases.
  CHECK(host(s)["cpu"][1]["user_ps"] == fast * 50000000 + slow * 200000000);
  CHECK(rows.size() >= 46);
  CHECK(rows.size() <= 52);
}

TEST_CASE("host core clock and IPC scale the compute of an app", "[host][cpu]") {
  // At 4 GHz and IPC 1: 2724796 / 4e9 = 681199 ns per I/O.
  auto s = run("quick", with(kCosts, {{"host.cores", "2"}, {"host.core.clock", "4GHz"}}),
               "[pr]\ndirect=1\napp=PR\nphases=none\nnumber_ios=2\ncpus_allowed=1\n");
  CHECK(host(s)["cpu"][1]["user_ps"] == 2 * 681199000ull);
}

TEST_CASE("half the clock at twice the IPC gives the same compute time", "[host][cpu]") {
  // 2724796 / (1e9 x 2) s = 1.362398 ms per I/O, as at 2 GHz and IPC 1.
  auto t = run("quick", with(kCosts, {{"host.cores", "2"}, {"host.core.clock", "1GHz"}, {"host.core.ipc", "2"}}),
               "[pr]\ndirect=1\napp=PR\nphases=none\nnumber_ios=2\ncpus_allowed=1\n");
  CHECK(host(t)["cpu"][1]["user_ps"] == 2724796000ull);
}

TEST_CASE("percentage_random makes the rest of a random job's offsets sequential", "[host][cpu][fio]") {
  // randread, 30% random: each I/O after the first continues the one before
  // with p = 0.7 (a random pick hitting the next block is ~1 / region blocks,
  // negligible). Of 1999 successors: mean 0.7 x 1999 = 1399.3, binomial sd
  // sqrt(1999 x 0.7 x 0.3) = 20.5; accept +-4 sd = +-82: 1318..1481.
  std::string dir = scratch("prand");
  run_traced(dir, "quick", {}, "[p]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\npercentage_random=30\nnumber_ios=2000\nrandseed=7\n");
  auto rows = requests(dir);
  REQUIRE(rows.size() == 2000);
  unsigned seq = 0;
  for (size_t i = 1; i < rows.size(); ++i) seq += rows[i].lba == rows[i - 1].lba + 1;
  CHECK(seq >= 1318);
  CHECK(seq <= 1481);
}

TEST_CASE("a fully random job has no sequential continuations to speak of", "[host][cpu][fio]") {
  // Default percentage_random=100: a continuation needs a 1-in-region-blocks hit.
  std::string dir = scratch("frand");
  run_traced(dir, "quick", {}, "[p]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=2000\nrandseed=7\n");
  auto rows = requests(dir);
  unsigned seq = 0;
  for (size_t i = 1; i < rows.size(); ++i) seq += rows[i].lba == rows[i - 1].lba + 1;
  CHECK(seq <= 2);
}
