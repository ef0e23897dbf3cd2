// SPDX-License-Identifier: BSD-3-Clause
// Block-trace replay on the quick platform: read_iolog with timed and
// as-fast-as-possible issue, replay_time_scale and replay_fit.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;
using Catch::Matchers::Contains;

namespace {

struct Io {
  std::string op;
  uint64_t lba = 0, bytes = 0;
  uint64_t issue_ps = 0, done_ps = 0;
};

// Runs the quick preset with one job and returns its I/Os from requests.csv
// in issue order, and the summary.
std::vector<Io> replay(const std::string& name, const std::string& trace, const std::string& job,
                       nlohmann::json* summary = nullptr) {
  std::string dir = scratch(name);
  { std::ofstream(dir + "/trace") << trace; }
  auto s = run_traced(dir, "quick", {}, "[replay]\ndirect=1\nread_iolog=" + dir + "/trace\n" + job);
  if (summary) *summary = s;
  std::vector<Io> out;
  for (const CsvRow& r : csv_rows(dir + "/requests.csv")) {
    Io io;
    io.op = r.at("op");
    io.lba = u64(r, "lba");
    io.bytes = u64(r, "bytes");
    io.issue_ps = u64(r, "issue_ps");
    io.done_ps = io.issue_ps + u64(r, "latency_ps");
    out.push_back(io);
  }
  std::sort(out.begin(), out.end(), [](const Io& a, const Io& b) { return a.issue_ps < b.issue_ps; });
  return out;
}

const char* kThree =
    "fio version 3 iolog\n"
    "0 /dev/nvme0n1 add\n"
    "0 /dev/nvme0n1 read 0 4096\n"
    "1000 /dev/nvme0n1 read 4096 8192\n"
    "5000 /dev/nvme0n1 write 16384 4096\n";

}  // namespace

TEST_CASE("a timed replay issues each I/O at its trace time after the job start", "[host][trace][replay]") {
  nlohmann::json s;
  auto io = replay("timed", kThree, "iodepth=1\n", &s);
  REQUIRE(io.size() == 3);
  // v3 stamps 0, 1000 and 5000 us: 0, 1 ms = 1e9 ps and 5 ms = 5e9 ps after
  // the first, plus the 3.5 us context switch (host.core.ctx_switch_cost)
  // of the timer's wake-up of the sleeping job (the first I/O goes at the
  // start, without one).
  CHECK(io[1].issue_ps - io[0].issue_ps == 1003500000ull);
  CHECK(io[2].issue_ps - io[0].issue_ps == 5003500000ull);
  // Directions, LBAs (4 KiB LBAs: 4096 -> 1, 16384 -> 4) and sizes from the trace.
  CHECK(io[0].op == "read");
  CHECK(io[1].lba == 1);
  CHECK(io[1].bytes == 8192);
  CHECK(io[2].op == "write");
  CHECK(io[2].lba == 4);
  auto& job = s["jobs"][0];
  CHECK(job["reads"] == 2);
  CHECK(job["writes"] == 1);
  // The first I/O goes at the job's start: the job ran from it to the last completion.
  CHECK(job["runtime_s"].get<double>() == Approx(double(io[2].done_ps - io[0].issue_ps) / 1e12).epsilon(1e-9));
}

TEST_CASE("replay_time_scale 200 replays the trace at twice its speed", "[host][trace][replay]") {
  auto io = replay("scaled", kThree, "iodepth=1\nreplay_time_scale=200\n");
  REQUIRE(io.size() == 3);
  // Trace times x 100 / 200: 1 ms -> 0.5 ms, 5 ms -> 2.5 ms, each plus the
  // 3.5 us switch to the job its timer wakes (as above).
  CHECK(io[1].issue_ps - io[0].issue_ps == 503500000ull);
  CHECK(io[2].issue_ps - io[0].issue_ps == 2503500000ull);
}

TEST_CASE("replay_no_stall at iodepth 1 issues each I/O when the one before completes", "[host][trace][replay]") {
  auto io = replay("nostall", kThree, "iodepth=1\nreplay_no_stall=1\n");
  REQUIRE(io.size() == 3);
  // Back to back: each is issued the moment the previous one's thread wakes
  // up with its completion, long before the trace's 1 ms and 5 ms.
  CHECK(io[1].issue_ps == io[0].done_ps);
  CHECK(io[2].issue_ps == io[1].done_ps);
  CHECK(io[2].issue_ps - io[0].issue_ps < 1000000000ull);
}

TEST_CASE("a timed replay never has more than iodepth I/Os in flight", "[host][trace][replay]") {
  // Three I/Os all stamped 0 at iodepth 2: the third waits for a completion.
  auto io = replay("depth", "fio version 3 iolog\n0 d read 0 4096\n0 d read 4096 4096\n0 d read 8192 4096\n",
                   "iodepth=2\n");
  REQUIRE(io.size() == 3);
  CHECK(io[1].issue_ps < io[0].done_ps);  // two in flight together
  // Not before the first completion (the core may still be finishing the
  // other one's interrupt when the thread wakes, so not necessarily at it).
  CHECK(io[2].issue_ps >= std::min(io[0].done_ps, io[1].done_ps));
  CHECK(io[2].issue_ps <= std::max(io[0].done_ps, io[1].done_ps));
}

TEST_CASE("replay_fit wrap maps an MSR trace into the job region", "[host][trace][replay]") {
  // Region: offset 1 MiB, size 1 MiB. 3 MiB + 12 KiB wraps to 12 KiB into it:
  // byte 1048576 + 12288 = LBA 256 + 3 = 259. 512 bytes at 5000 -> LBA 1 of
  // the region = 257, widened to one 4 KiB LBA.
  auto io = replay("wrap",
                   "128166372000000000,hm,0,Read,3158016,4096,10\n"
                   "128166372000000100,hm,0,Write,5000,512,10\n",
                   "offset=1m\nsize=1m\nreplay_fit=wrap\nreplay_no_stall=1\n");
  REQUIRE(io.size() == 2);
  CHECK(io[0].op == "read");
  CHECK(io[0].lba == 259);
  CHECK(io[1].op == "write");
  CHECK(io[1].lba == 257);
  CHECK(io[1].bytes == 4096);
}

TEST_CASE("a trace I/O beyond the job region stops the run naming the trace line", "[host][trace][replay]") {
  std::string dir = scratch("beyond");
  { std::ofstream(dir + "/t.log") << "fio version 2 iolog\nd read 0 4096\nd read 2097152 4096\n"; }
  auto o = options("quick", {}, "[replay]\nread_iolog=" + dir + "/t.log\nsize=2m\ndirect=1\n");
  CHECK_THROWS_WITH(vp::platform::build_config(o),
                    Contains("workload.fio (--set):2: job 'replay': option 'read_iolog' = '" + dir + "/t.log': " +
                             dir + "/t.log:3: the I/O at offset 2097152 of 4096 bytes ends beyond the job's region of "
                             "2097152 bytes"));
  auto missing = options("quick", {}, "[replay]\ndirect=1\nread_iolog=" + dir + "/none.csv\n");
  CHECK_THROWS_WITH(vp::platform::build_config(missing), Contains(dir + "/none.csv: cannot read block trace"));
}

TEST_CASE("number_ios cuts a replay short of the trace's end", "[host][trace][replay]") {
  nlohmann::json s;
  auto io = replay("capped", kThree, "number_ios=2\nreplay_no_stall=1\n", &s);
  // The trace has three I/Os; only the first two (read 4 KiB, read 8 KiB) go.
  REQUIRE(io.size() == 2);
  CHECK(s["jobs"][0]["reads"] == 2);
  CHECK(s["jobs"][0]["writes"] == 0);
  CHECK(io[1].bytes == 8192);
}
