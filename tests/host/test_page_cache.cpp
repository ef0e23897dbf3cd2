// SPDX-License-Identifier: BSD-3-Clause
// Buffered I/O (fio direct=0) through the host page cache: hits, read-ahead,
// background and periodic write-back, throttling, fsync, and FastDrain's host
// side. A 4 MiB cache is 1024 pages of 4 KiB; the `quick` preset's device
// takes 128 KiB (32 pages) per command.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "tests/TestSupport.hpp"
#include "tests/platform/IdleDevice.hpp"

using namespace vp::test;

namespace {
Sets cache(Sets more = {}) {
  Sets s = {{"host.pagecache.size", "4MiB"}};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}
uint64_t u(const nlohmann::json& j) { return j.get<uint64_t>(); }
double d(const nlohmann::json& j) { return j.get<double>(); }

// A direction's stages add up to its mean latency (each I/O's add up to its latency).
void check_stages_add_up(const nlohmann::json& job, const char* op) {
  double sum = 0;
  for (const auto& [stage, us] : job["breakdown_us"][op].items()) sum += d(us);
  CHECK(sum == Approx(d(job["latency_us"][op]["mean"])).epsilon(1e-9));
}
}  // namespace

TEST_CASE("a buffered write then a read of the same range hits the page cache", "[host][pagecache]") {
  auto s = run("quick", cache({{"host.pagecache.hit_cost", "2us"}, {"host.pagecache.write_cost", "3us"}}),
               "[w]\nrw=write\nbs=8k\nsize=64k\ndirect=0\nverify=1\nnumber_ios=8\n"
               "[r]\nstonewall\nrw=read\nbs=8k\nsize=64k\ndirect=0\nverify=1\nnumber_ios=8\n");
  // 8 writes of 2 pages fill 16 pages; the 8 reads find all 16: no command reaches the device.
  CHECK(u(host(s)["pagecache"]["hits"]) == 16);
  CHECK(u(host(s)["pagecache"]["misses"]) == 0);
  CHECK(u(drive(s)["device"]["read_commands"]) == 0);
  CHECK(u(drive(s)["device"]["write_commands"]) == 0);
  CHECK(u(host(s)["pagecache"]["dirty_pages"]) == 16);  // below the background limit (102): nothing written back
  CHECK(u(host(s)["verify"]["blocks_checked"]) == 16);
  CHECK(u(host(s)["verify"]["mismatches"]) == 0);
  // A write costs 2 pages x 3 us, a read 2 pages x 2 us, and nothing else.
  CHECK(s["jobs"][0]["latency_us"]["write"]["mean"].get<double>() == Approx(6.0));
  CHECK(s["jobs"][1]["latency_us"]["read"]["mean"].get<double>() == Approx(4.0));
  // All of it the thread's time in the cache: nothing to wait for. Each job
  // has a breakdown only for its own direction.
  const auto &w = s["jobs"][0]["breakdown_us"], &r = s["jobs"][1]["breakdown_us"];
  CHECK((w.size() == 1 && w.contains("write") && r.size() == 1 && r.contains("read")));
  CHECK(d(w["write"]["host_submit"]) == Approx(6.0));
  CHECK(d(r["read"]["host_submit"]) == Approx(4.0));
  CHECK(d(w["write"]["cache_wait"]) == 0.0);
  CHECK(d(r["read"]["cache_wait"]) == 0.0);
}

TEST_CASE("a buffered read that misses waits in the page cache for the device read", "[host][pagecache]") {
  // The idle device of tests/platform/test_latency.cpp: a direct 4 KiB read
  // takes 18.2875 us, 1 us of it submitting (submit_cost) and 3 us waking
  // the thread (ctx_switch_cost). The same reads buffered (random, so no
  // read-ahead: each misses and reads its one page) spend on the CPU the
  // lookup (hit_cost, 1 us) and the submission of that page (submit_cost,
  // 1 us, and host.blkmq.insert_cost, 0.1 us: the cache submits its runs
  // under a plug), then wait for the page's read, which is the direct read
  // without its submit and wake-up: from the doorbell to the ISR's end,
  // 14.2875 us; then the blocked thread is switched in, 3 us.
  const std::string jobs = "rw=randread\nbs=4k\niodepth=1\nnumber_ios=10\nthinktime=200\n";
  auto direct = run_server("pagecache-miss-direct", "zssd", kIdle, "[r]\ndirect=1\n" + jobs);  // one simulation per process
  auto buffered = run("zssd", kIdle, "[r]\ndirect=0\n" + jobs);
  REQUIRE(buffered["jobs"][0]["reads"] == 10);
  CHECK(u(host(buffered)["pagecache"]["misses"]) == 10);
  CHECK(u(host(buffered)["pagecache"]["hits"]) == 0);
  CHECK(u(drive(buffered)["device"]["read_commands"]) == 10);
  const auto& dr = direct["jobs"][0]["breakdown_us"]["read"];
  const auto& br = buffered["jobs"][0]["breakdown_us"]["read"];
  const double direct_lat = d(direct["jobs"][0]["latency_us"]["read"]["mean"]);
  REQUIRE(direct_lat == Approx(18.2875).margin(0.01));
  const double tol = 0.002;
  CHECK(d(br["host_submit"]) == Approx(1.0 + 1.0 + 0.1).margin(tol));
  CHECK(d(br["cache_wait"]) == Approx(direct_lat - d(dr["host_submit"]) - d(dr["wakeup"])).margin(tol));
  CHECK(d(br["cache_wait"]) == Approx(14.2875).margin(0.01));
  CHECK(d(br["wakeup"]) == Approx(3.0).margin(tol));
  // Only those three: the device's stages are the page's read's (job pagecache).
  for (const char* st : {"blk_mq", "driver_queue", "sq_wait", "fetch", "firmware", "flash", "data_dma", "interrupt"})
    CHECK(d(br[st]) == 0.0);
  check_stages_add_up(buffered["jobs"][0], "read");
  CHECK(d(buffered["jobs"][0]["latency_us"]["read"]["mean"]) == Approx(direct_lat + 1.1).margin(0.01));
  CHECK(d(br["host_submit"]) < 0.15 * d(buffered["jobs"][0]["latency_us"]["read"]["mean"]));
  CHECK(buffered["stage_order_violations"] == 0);
  // Direct I/O never waits in the page cache.
  CHECK(d(dr["cache_wait"]) == 0.0);
}

TEST_CASE("a sequential buffered read grows its read-ahead window up to the maximum", "[host][pagecache]") {
  auto s = run("quick", cache(), "[r]\nrw=read\nbs=4k\nsize=256k\ndirect=0\nnumber_ios=64\n");
  // 64 pages, read-ahead 16 KiB initial / 128 KiB max = 4 / 32 pages:
  // page 0 misses: initial window [0,4), marker on page 1;
  // page 1: [4,12) (4 < 32/16 fails, 4 <= 16: x2), marker 4; page 4: [12,28) x2;
  // page 12: [28,60) capped at 32; page 28: [60,92) cut at the region end = [60,64).
  // 5 device reads of 4 + 8 + 16 + 32 + 4 = 64 pages; 1 miss, 63 hits.
  CHECK(u(drive(s)["device"]["read_commands"]) == 5);
  CHECK(u(s["counters"]["host.pagecache.readahead_windows"]) == 5);
  CHECK(u(host(s)["pagecache"]["readahead_pages"]) == 64);
  CHECK(u(host(s)["pagecache"]["misses"]) == 1);
  CHECK(u(host(s)["pagecache"]["hits"]) == 63);
  CHECK(s["jobs"][0]["reads"] == 64);
}

TEST_CASE("read-ahead of 8 KiB sequential reads counts both pages of the first read as misses", "[host][pagecache]") {
  auto s = run("quick", cache(), "[r]\nrw=read\nbs=8k\nsize=64k\ndirect=0\nnumber_ios=8\n");
  // 16 pages. Read 0-1 misses both: initial window max(4, 2) = 4 pages [0,4),
  // async 4 - 2 = 2, marker on page 2. Read 2-3 hits the marker: [4,12)
  // (4 x 2), marker 4. Read 4-5: [12,28) cut at the region end = [12,16),
  // marker 12. Read 12-13: the next window starts at 28, past the end: nothing.
  // 3 device reads of 4 + 8 + 4 pages; 2 misses, 14 hits.
  CHECK(u(drive(s)["device"]["read_commands"]) == 3);
  CHECK(u(s["counters"]["host.pagecache.readahead_windows"]) == 3);
  CHECK(u(host(s)["pagecache"]["readahead_pages"]) == 16);
  CHECK(u(host(s)["pagecache"]["misses"]) == 2);
  CHECK(u(host(s)["pagecache"]["hits"]) == 14);
}

TEST_CASE("random buffered reads read only what they ask for", "[host][pagecache]") {
  // A miss that does not follow the previous read gets no read-ahead: each
  // read of 1 page that misses is one device read of 1 page (4 KiB).
  auto s = run("quick", cache(), "[r]\nrw=randread\nbs=4k\nsize=64m\ndirect=0\nnumber_ios=20\nrandseed=7\n");
  uint64_t misses = u(host(s)["pagecache"]["misses"]);
  CHECK(misses >= 18);  // 20 draws over 16384 pages: almost surely distinct and not adjacent
  CHECK(u(host(s)["pagecache"]["readahead_pages"]) == misses);
  CHECK(u(drive(s)["device"]["read_commands"]) == misses);
}

TEST_CASE("no write-back while the dirty pages stay at the background limit", "[host][pagecache]") {
  // Background limit 10% of 1024 pages = 102: 102 dirty pages are not above it.
  auto s = run("quick", cache(), "[w]\nrw=write\nbs=4k\nsize=2m\ndirect=0\nnumber_ios=102\n");
  CHECK(u(host(s)["pagecache"]["writeback_commands"]) == 0);
  CHECK(u(host(s)["pagecache"]["dirty_pages"]) == 102);
}

TEST_CASE("write-back starts when the dirty pages cross the background limit", "[host][pagecache]") {
  // The 103rd dirty page is above 102: the flusher writes the oldest run,
  // pages 0..31 (one 128 KiB command), which leaves 71 dirty <= 102: it stops.
  auto s = run("quick", cache(), "[w]\nrw=write\nbs=4k\nsize=2m\ndirect=0\nnumber_ios=103\n");
  CHECK(u(host(s)["pagecache"]["writeback_commands"]) == 1);
  CHECK(u(host(s)["pagecache"]["written_back_pages"]) == 32);
  CHECK(u(s["counters"]["host.pagecache.writeback_background"]) == 1);
  CHECK(u(host(s)["pagecache"]["dirty_pages"]) == 71);
}

TEST_CASE("a buffered writer is throttled at the dirty limit", "[host][pagecache]") {
  // dirty_ratio 20% of 1024 = 204 pages: a 4 KiB writer (1 us a page) outruns
  // 128 KiB write-backs, blocks whenever dirty + under write-back reach 204,
  // and never finds more than that.
  auto s = run("quick", cache(), "[w]\nrw=write\nbs=4k\nsize=8m\ndirect=0\nnumber_ios=2000\n");
  CHECK(u(host(s)["pagecache"]["dirty_limit_pages"]) == 204);
  CHECK(u(host(s)["pagecache"]["dirty_high_water"]) == 204);
  CHECK(u(host(s)["pagecache"]["throttle_events"]) > 0);
  CHECK(host(s)["pagecache"]["throttle_s"].get<double>() > 0.0);
  CHECK(s["jobs"][0]["writes"] == 2000);
  // Every page written once (2000 distinct pages) is still dirty or was
  // submitted for write-back (written_back_pages counts those still in flight too).
  CHECK(u(host(s)["pagecache"]["dirty_pages"]) + u(host(s)["pagecache"]["written_back_pages"]) == 2000);
  CHECK(u(host(s)["pagecache"]["under_writeback_pages"]) <= u(host(s)["pagecache"]["written_back_pages"]));
  // A throttled write waits in the cache (its copy then done where the
  // throttle was lifted); the others cost their thread the 1 us copy.
  const auto& job = s["jobs"][0];
  const auto& b = job["breakdown_us"]["write"];
  CHECK(d(b["cache_wait"]) > 0.0);
  CHECK(d(b["host_submit"]) <= 1.0 + 1e-9);
  CHECK(d(b["host_submit"]) + d(b["cache_wait"]) + d(b["wakeup"]) ==
        Approx(d(job["latency_us"]["write"]["mean"])).epsilon(1e-9));
  check_stages_add_up(job, "write");
  CHECK(!job["breakdown_us"].contains("read"));
  CHECK(s["stage_order_violations"] == 0);
}

TEST_CASE("fsync=1 makes every buffered write durable before the next", "[host][pagecache]") {
  auto s = run("quick", cache(), "[w]\nrw=write\nbs=8k\nsize=1m\ndirect=0\nfsync=1\nnumber_ios=6\nverify=1\n");
  // Each 8 KiB write is written back alone (2 pages, one command) and waited for.
  CHECK(s["jobs"][0]["fsyncs"] == 6);
  CHECK(u(drive(s)["device"]["write_commands"]) == 6);
  CHECK(u(drive(s)["device"]["written_blocks"]) == 12);  // 6 x 2 blocks of 4 KiB
  CHECK(u(s["counters"]["host.pagecache.writeback_fsync"]) == 6);
  CHECK(u(host(s)["pagecache"]["dirty_pages"]) == 0);
  CHECK(u(host(s)["pagecache"]["under_writeback_pages"]) == 0);
}

TEST_CASE("the periodic write-back writes a page once it is older than dirty_expire", "[host][pagecache]") {
  // One dirty page (at about 0.16 ms); ticks every 1 ms from it; the 3 ms tick
  // finds it 3 ms old. The direct reader keeps the run going ~10 ms (10 x 1 ms thinktime).
  auto s = run("quick",
               cache({{"host.pagecache.dirty_expire", "3ms"}, {"host.pagecache.writeback_interval", "1ms"}}),
               "[w]\nrw=write\nbs=4k\nsize=1m\ndirect=0\nnumber_ios=1\n"
               "[keep]\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=10\nthinktime=1ms\ncpus_allowed=1\n");
  CHECK(u(s["counters"]["host.pagecache.writeback_periodic"]) == 1);
  CHECK(u(drive(s)["device"]["write_commands"]) == 1);
  CHECK(u(host(s)["pagecache"]["dirty_pages"]) == 0);
}

TEST_CASE("a dirty page younger than dirty_expire stays dirty", "[host][pagecache]") {
  // The same run with dirty_expire 20 ms: the page is at most ~10 ms old when the run ends.
  auto s = run("quick",
               cache({{"host.pagecache.dirty_expire", "20ms"}, {"host.pagecache.writeback_interval", "1ms"}}),
               "[w]\nrw=write\nbs=4k\nsize=1m\ndirect=0\nnumber_ios=1\n"
               "[keep]\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=10\nthinktime=1ms\ncpus_allowed=1\n");
  CHECK(u(s["counters"]["host.pagecache.writeback_periodic"]) == 0);
  CHECK(u(drive(s)["device"]["write_commands"]) == 0);
  CHECK(u(host(s)["pagecache"]["dirty_pages"]) == 1);
}

TEST_CASE("write-back commands carry the largest workload attribute of their pages", "[host][pagecache]") {
  // Pages 0..15 written with attribute 2, 16..31 with 5, then page 0 again
  // with 1 by a job whose fsync writes its region (pages 0..31) as one run
  // of 32 pages: the command carries max(1, 2, 5) = 5 (the device's decode,
  // in requests.csv, on each of the 32 page requests it carried).
  std::string dir = scratch("pagecache-attr");
  auto s = run_traced(dir, "quick", cache(),
                      "[a]\nrw=write\nbs=64k\nsize=64k\ndirect=0\nnumber_ios=1\nworkload_attr=2\n"
                      "[b]\nstonewall\nrw=write\nbs=64k\noffset=64k\nsize=64k\ndirect=0\nnumber_ios=1\n"
                      "workload_attr=5\n"
                      "[c]\nstonewall\nrw=write\nbs=4k\nsize=128k\ndirect=0\nnumber_ios=1\nfsync=1\n"
                      "workload_attr=1\n");
  CHECK(drive(s)["device"]["write_commands"] == 1);
  CHECK(drive(s)["device"]["written_blocks"] == 32);
  unsigned rows = 0, attr5 = 0;
  for (const CsvRow& row : csv_rows(dir + "/requests.csv")) {
    if (row.at("job") != "pagecache" || row.at("op") != "write") continue;
    ++rows;
    attr5 += row.at("attr") == "5";
  }
  CHECK(rows == 32);
  CHECK(attr5 == 32);
}

TEST_CASE("fastdrain tags write-back commands and leaves direct writes untagged", "[host][pagecache]") {
  // Low set 5/3: background limit 3% of 1024 = 30 pages. 31 dirty pages cross it:
  // one write-back of pages 0..30, tagged with the 31 dirty pages of the event.
  // The direct writer afterwards (10 writes) keeps the run going and is not tagged.
  auto s = run("quick", cache({{"host.pagecache.fastdrain", "on"}}),
               "[w]\nrw=write\nbs=4k\nsize=1m\ndirect=0\nnumber_ios=31\n"
               "[d]\ndirect=1\nstonewall\nrw=randwrite\nbs=4k\noffset=1m\nsize=1m\nnumber_ios=10\nthinktime=200us\n");
  CHECK(u(host(s)["pagecache"]["background_limit_pages"]) == 30);
  CHECK(u(host(s)["pagecache"]["dirty_limit_pages"]) == 51);  // 5% of 1024
  CHECK(u(drive(s)["device"]["write_commands"]) == 11);
  CHECK(u(drive(s)["device"]["victim_writes"]) == 1);
  CHECK(u(drive(s)["device"]["victim_pages_max"]) == 31);
  CHECK(u(drive(s)["device"]["written_blocks"]) == 41);  // 31 + 10
}

TEST_CASE("without fastdrain write-back commands are not tagged", "[host][pagecache]") {
  auto s = run("quick", cache({{"host.pagecache.dirty_background_ratio", "3"}, {"host.pagecache.dirty_ratio", "5"}}),
               "[w]\nrw=write\nbs=4k\nsize=1m\ndirect=0\nnumber_ios=31\n"
               "[d]\ndirect=1\nstonewall\nrw=randwrite\nbs=4k\noffset=1m\nsize=1m\nnumber_ios=10\nthinktime=200us\n");
  CHECK(u(drive(s)["device"]["write_commands"]) == 11);
  CHECK(u(drive(s)["device"]["victim_writes"]) == 0);
}

TEST_CASE("a device buffer reported full switches fastdrain to the high dirty ratios", "[host][pagecache]") {
  auto s = run("quick",
               cache({{"host.pagecache.fastdrain", "on"},
                      {"ssd.nvme.buffer_status_field", "dw0"},
                      {"ssd.nvme.buffer_status_force", "full"}}),
               "[w]\nrw=write\nbs=4k\nsize=1m\ndirect=0\nnumber_ios=4\n"
               "[r]\ndirect=1\nstonewall\nrw=randread\nbs=4k\nnumber_ios=3\n");
  // The first completion reports full: low set (5/3) -> high set (10/5), once.
  CHECK(host(s)["pagecache"]["ratio_set"] == "high");
  CHECK(u(host(s)["pagecache"]["dirty_ratio"]) == 10);
  CHECK(u(host(s)["pagecache"]["dirty_background_ratio"]) == 5);
  CHECK(u(host(s)["pagecache"]["dirty_limit_pages"]) == 102);      // 10% of 1024
  CHECK(u(host(s)["pagecache"]["background_limit_pages"]) == 51);  // 5% of 1024
  CHECK(u(host(s)["pagecache"]["ratio_switches"]) == 1);
}

TEST_CASE("a device buffer reported drained keeps fastdrain on the low dirty ratios", "[host][pagecache]") {
  auto s = run("quick",
               cache({{"host.pagecache.fastdrain", "on"},
                      {"ssd.nvme.buffer_status_field", "dw0"},
                      {"ssd.nvme.buffer_status_force", "drained"}}),
               "[w]\nrw=write\nbs=4k\nsize=1m\ndirect=0\nnumber_ios=4\n"
               "[r]\ndirect=1\nstonewall\nrw=randread\nbs=4k\nnumber_ios=3\n");
  CHECK(host(s)["pagecache"]["ratio_set"] == "low");
  CHECK(u(host(s)["pagecache"]["dirty_limit_pages"]) == 51);
  CHECK(u(host(s)["pagecache"]["ratio_switches"]) == 0);
}

TEST_CASE("fsync needs a queue completing by interrupt for its Flush", "[host][pagecache]") {
  CHECK_THROWS_WITH(run("quick", {{"host.nvme.completion", "poll"}}, "[w]\ndirect=1\nrw=write\nbs=4k\nnumber_ios=4\nfsync=1\n"),
                    Catch::Contains("option 'fsync' = '1'") && Catch::Contains("polls every queue"));
}

TEST_CASE("buffered jobs on three cores with evictions and fsync read back what they wrote", "[host][pagecache]") {
  // A 2 MiB cache (512 pages) under 8 MiB + 8 MiB + 4 MiB regions: pages are
  // dropped, written back, throttled (limits 51 / 102 pages) and fsynced
  // (every 64 writes). Every read must match, every interrupt delivered to a
  // core must be serviced (one arriving while the core switches to a woken
  // job used to be left pending), and nothing may stay blocked.
  auto s = run("quick", {{"host.cores", "4"}, {"host.pagecache.size", "2MiB"}},
               "[global]\ndirect=0\nverify=1\nbs=8k\niodepth=4\n"
               "[a]\nrw=randrw\nsize=8m\nnumber_ios=6000\ncpus_allowed=1\n"
               "[b]\nrw=rw\noffset=16m\nsize=8m\nnumber_ios=6000\nfsync=64\ncpus_allowed=2\n"
               "[c]\nrw=read\noffset=32m\nsize=4m\nnumber_ios=2000\ncpus_allowed=3\n");
  CHECK(s["completed"] == true);
  CHECK(u(host(s)["verify"]["mismatches"]) == 0);
  CHECK(u(host(s)["verify"]["blocks_checked"]) > 10000);
  CHECK(u(s["counters"]["host.isr_runs"]) == u(s["counters"]["host.irq.delivered"]));
  CHECK(u(s["counters"]["host.pagecache.evictions"]) > 0);
  CHECK(u(host(s)["pagecache"]["throttle_events"]) > 0);
  CHECK(u(host(s)["pagecache"]["blocked_ios"]) == 0);
  CHECK(u(host(s)["pagecache"]["waiting_reads"]) == 0);
  // b: about half of 6000 I/Os are writes; one fsync per 64 of them.
  CHECK(s["jobs"][1]["fsyncs"].get<uint64_t>() == s["jobs"][1]["writes"].get<uint64_t>() / 64);
}
