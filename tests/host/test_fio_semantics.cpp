// SPDX-License-Identifier: BSD-3-Clause
// fio job options as the modeled host carries them out.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/TestSupport.hpp"

using namespace vp::test;

TEST_CASE("rate_iops paces a job below what the device could do", "[host][fio]") {
  auto s = run("quick", {}, "[paced]\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nrate_iops=20000\nnumber_ios=2000\n");
  // 2000 I/Os issued 50 us apart: the last one at 99.95 ms, done a latency later.
  CHECK(s["jobs"][0]["iops"].get<double>() == Approx(20000).epsilon(0.01));
}

TEST_CASE("runtime with time_based ends the job after that much simulated time", "[host][fio]") {
  auto s = run("quick", {}, "[timed]\ndirect=1\nrw=randread\nbs=4k\niodepth=2\nruntime=5ms\ntime_based\n");
  double rt = s["jobs"][0]["runtime_s"].get<double>();
  CHECK(rt >= 0.005);
  CHECK(rt < 0.0051);  // nothing is issued after 5 ms; only what is in flight finishes
  CHECK(s["jobs"][0]["ios"].get<uint64_t>() > 100);
}

TEST_CASE("thinktime spaces the I/Os of a queue-depth-1 job", "[host][fio]") {
  auto s = run("quick", {}, "[think]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nthinktime=50\nnumber_ios=100\n");
  // One I/O every 50 us of think time (the latency is shorter) plus the
  // 3.5 us context switch of the timer's wake-up (host.core.ctx_switch_cost).
  CHECK(s["jobs"][0]["iops"].get<double>() == Approx(100.0 / (99 * 53.5e-6 + 20e-6)).epsilon(0.02));
}

TEST_CASE("numjobs clones a job over the cores cpus_allowed names", "[host][fio]") {
  auto s = run("quick", {{"host.cores", "4"}},
               "[a]\ndirect=1\nrw=randread\nbs=4k\nnumjobs=3\ncpus_allowed=1-2\nnumber_ios=300\n");
  REQUIRE(s["jobs"].size() == 3);
  CHECK(s["jobs"][0]["name"] == "a.0");
  CHECK(s["jobs"][0]["core"] == 1);
  CHECK(s["jobs"][1]["core"] == 2);
  CHECK(s["jobs"][2]["core"] == 1);
  for (const auto& j : s["jobs"]) CHECK(j["ios"] == 300);
}

TEST_CASE("a job deeper than the NVMe queue waits in blk-mq for tags", "[host][fio]") {
  // A 4-entry SQ holds 3 commands (3 tags); the other 5 of the job's 8 wait in
  // the software queue, not in the driver, whose command ids match the tags.
  auto s = run("quick", {{"host.nvme.queue_depth", "4"}}, "[deep]\ndirect=1\nrw=randread\nbs=4k\niodepth=8\nnumber_ios=800\n");
  CHECK(s["jobs"][0]["ios"] == 800);
  CHECK(s["jobs"][0]["breakdown_us"]["read"]["blk_mq"].get<double>() > 0.5);  // 0 when tags suffice
  CHECK(s["jobs"][0]["breakdown_us"]["read"]["driver_queue"].get<double>() == 0.0);
  CHECK(s["counters"]["host.blkmq.tag_waits"].get<uint64_t>() > 0);
  CHECK(s["counters"]["host.nvme.io_submitted"] == 800);
}

TEST_CASE("sequential reads walk the region in order and wrap", "[host][fio]") {
  auto s = run("quick", {}, "[seq]\ndirect=1\nrw=read\nbs=8k\nsize=64k\nnumber_ios=20\n");
  // 64 KiB / 8 KiB = 8 blocks, read 2.5 times: every read is 8 KiB = 4 pages.
  CHECK(s["jobs"][0]["reads"] == 20);
  CHECK(drive(s)["device"]["flash_reads"] == 80);
}

TEST_CASE("a synchronous ioengine keeps one I/O in flight whatever iodepth says", "[host][fio]") {
  // psync: the thread waits in pread for each I/O, so no two overlap.
  std::string dir = scratch("psync");
  run_traced(dir, "quick", {}, "[s]\ndirect=1\nioengine=psync\nrw=randread\nbs=4k\niodepth=8\nnumber_ios=50\n");
  auto rows = csv_rows(dir + "/requests.csv");
  REQUIRE(rows.size() == 50);
  std::vector<std::pair<uint64_t, uint64_t>> io;  // issue, end
  for (const CsvRow& r : rows) io.push_back({u64(r, "issue_ps"), u64(r, "wakeup_end_ps")});
  std::sort(io.begin(), io.end());
  for (size_t k = 1; k < io.size(); ++k) CHECK(io[k].first >= io[k - 1].second);
}

TEST_CASE("the same job on libaio keeps its iodepth in flight", "[host][fio]") {
  // The control of the test above.
  std::string adir = scratch("libaio8");
  run_traced(adir, "quick", {}, "[a]\ndirect=1\nioengine=libaio\nrw=randread\nbs=4k\niodepth=8\nnumber_ios=50\n");
  std::vector<std::pair<uint64_t, uint64_t>> aio;
  for (const CsvRow& r : csv_rows(adir + "/requests.csv")) aio.push_back({u64(r, "issue_ps"), u64(r, "wakeup_end_ps")});
  std::sort(aio.begin(), aio.end());
  size_t overlapping = 0;
  for (size_t k = 1; k < aio.size(); ++k) overlapping += aio[k].first < aio[k - 1].second;
  CHECK(overlapping > 40);  // all but the first and the tail overlap their predecessor
}

TEST_CASE("an ioengine the model lacks and hipri on libaio are errors naming the option", "[host][fio]") {
  CHECK_THROWS_WITH(vp::host::parse_fio("[x]\nioengine=mmap\n", "t.fio"),
                    Catch::Contains("t.fio:2") && Catch::Contains("ioengine") && Catch::Contains("io_uring"));
  CHECK_THROWS_WITH(run("quick", {}, "[h]\ndirect=1\nioengine=libaio\nhipri=1\nnumber_ios=1\n"),
                    Catch::Contains("option 'hipri'") && Catch::Contains("io_uring and pvsync2"));
  CHECK(vp::host::parse_fio("[y]\nioengine=pvsync2\niodepth=16\n", "t.fio")[0].depth() == 1);
  CHECK(vp::host::parse_fio("[y]\nioengine=io_uring\niodepth=16\n", "t.fio")[0].depth() == 16);
}

TEST_CASE("a realtime prioclass makes a job latency-critical unless workload_attr says otherwise", "[host][fio]") {
  auto j = vp::host::parse_fio("[rt]\nprioclass=1\nprio=0\n[be]\nprioclass=2\n[own]\nprioclass=1\nworkload_attr=3\n",
                               "t.fio");
  CHECK(j[0].attribute() == 1);
  CHECK(j[1].attribute() == 0);
  CHECK(j[2].attribute() == 3);
  CHECK(vp::host::parse_fio(j[0].to_fio(), "again")[0] == j[0]);
  CHECK_THROWS_WITH(vp::host::parse_fio("[x]\nprioclass=4\n", "t.fio"), Catch::Contains("prioclass"));
  // The attribute reaches the device in CDW2: requests.csv's attr column.
  std::string dir = scratch("prioclass");
  run_traced(dir, "quick", {}, "[rt]\ndirect=1\nprioclass=1\nrw=randread\nbs=4k\nnumber_ios=5\n");
  for (const CsvRow& r : csv_rows(dir + "/requests.csv")) CHECK(u64(r, "attr") == 1);
}
