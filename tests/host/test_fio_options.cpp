// SPDX-License-Identifier: BSD-3-Clause
// fio options beyond the basics, each checked against numbers worked out by
// hand: block-size mixes, rw=...:N, ramp_time, rate, io_size and loops,
// fsync and O_SYNC on direct jobs, iodepth_low and batched reaping,
// thinktime_blocks, exitall, percentile_list and the option classes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "tests/TestSupport.hpp"
#include "tests/host/FioParseMessage.hpp"
#include "vp/ssd/Drive.hpp"
#include "vp/host/workload/FioJob.hpp"
#include "vp/host/workload/FioOptions.hpp"

using namespace vp::test;
using vp::host::FioError;
using vp::host::parse_fio;

namespace {

// requests.csv's rows of one job in issue order (with several in flight,
// rows are written as I/Os complete).
std::vector<CsvRow> issued(const std::string& dir, const std::string& op = "") {
  auto rows = csv_rows(dir + "/requests.csv");
  std::vector<CsvRow> out;
  for (auto& r : rows)
    if (op.empty() || r.at("op") == op) out.push_back(r);
  std::stable_sort(out.begin(), out.end(), [](const CsvRow& a, const CsvRow& b) {
    return u64(a, "issue_ps") < u64(b, "issue_ps");
  });
  return out;
}

// For each I/O in issue order, how many of the job's I/Os were in flight
// (issued before it, not yet complete) when it was issued.
std::vector<unsigned> in_flight_at_issue(const std::vector<CsvRow>& rows) {
  std::vector<unsigned> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    uint64_t t = u64(rows[i], "issue_ps");
    unsigned n = 0;
    for (size_t k = 0; k < i; ++k)
      if (u64(rows[k], "issue_ps") + u64(rows[k], "latency_ps") > t) ++n;
    out.push_back(n);
  }
  return out;
}

}  // namespace

TEST_CASE("bssplit draws each size by its share, offsets in units of the smallest", "[host][fio]") {
  auto dir = scratch("bssplit");
  auto s = run_traced(dir, "quick", {}, "[mix]\ndirect=1\nrw=randread\nbssplit=4k/25:16k/75\niodepth=4\nnumber_ios=4000\n");
  auto rows = issued(dir);
  REQUIRE(rows.size() == 4000);
  std::map<uint64_t, unsigned> sizes;
  for (const auto& r : rows) ++sizes[u64(r, "bytes")];
  CHECK(sizes.size() == 2);
  // Binomial(4000, 0.75): mean 3000, sd 27; 5 sd either side.
  CHECK(sizes[16384] > 2865);
  CHECK(sizes[16384] < 3135);
  CHECK(sizes[4096] + sizes[16384] == 4000);  // none cut at the region's end: fio draws again
  CHECK(s["jobs"][0]["bs"] == 4096);  // the smallest size: fio's min_bs
}

TEST_CASE("bs=a-b draws whole multiples of the smallest size, uniformly", "[host][fio]") {
  auto dir = scratch("bsrange");
  run_traced(dir, "quick", {}, "[range]\ndirect=1\nrw=randread\nbs=4k-16k\niodepth=4\nnumber_ios=4000\n");
  std::map<uint64_t, unsigned> sizes;
  for (const auto& r : issued(dir)) ++sizes[u64(r, "bytes")];
  // fio's draw: 4 KiB + 16 KiB x u, aligned down to 4 KiB and capped at
  // 16 KiB: 4, 8, 12 and 16 KiB a quarter each (sd 27 of 1000): 5 sd.
  REQUIRE(sizes.size() == 4);
  for (uint64_t b : {4096u, 8192u, 12288u, 16384u}) {
    CHECK(sizes[b] > 865);
    CHECK(sizes[b] < 1135);
  }
}

TEST_CASE("rw=write:4k leaves a 4 KiB hole after each write and wraps at the region's end", "[host][fio]") {
  auto dir = scratch("rwskip");
  run_traced(dir, "quick", {}, "[holes]\ndirect=1\nrw=write:4k\nbs=4k\nsize=64k\nnumber_ios=9\n");
  auto rows = issued(dir);
  REQUIRE(rows.size() == 9);
  // 4 KiB LBAs: writes at LBA 0, 2, 4 .. 14 (8 of them fill 64 KiB with holes), then 0 again.
  for (size_t i = 0; i < 8; ++i) CHECK(u64(rows[i], "lba") == 2 * i);
  CHECK(u64(rows[8], "lba") == 0);
}

// rw=randread:4 with the given rw_sequencer: runs of four I/Os per random
// offset, each after the first at the next block or at the same one.
static void check_runs_of_four(const std::string& seq) {
  auto dir = scratch("rwseq-" + seq);
  run_traced(dir, "quick", {}, "[runs]\ndirect=1\nrw=randread:4\nrw_sequencer=" + seq + "\nbs=4k\nsize=64m\niodepth=1\nnumber_ios=400\n");
  auto rows = issued(dir);
  REQUIRE(rows.size() == 400);
  const uint64_t step = seq == "identical" ? 0 : 1;
  unsigned fresh = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i % 4 == 0) {
      fresh += i == 0 || u64(rows[i], "lba") != u64(rows[i - 1], "lba") + step;
      continue;
    }
    INFO("I/O " << i);
    CHECK(u64(rows[i], "lba") == u64(rows[i - 1], "lba") + step);
  }
  CHECK(fresh >= 98);  // 100 runs; a random draw landing right after the last run (1 in 16,384) is rare
}

TEST_CASE("rw=randread:4 with rw_sequencer=sequential issues four consecutive I/Os per random offset", "[host][fio]") {
  check_runs_of_four("sequential");
}

TEST_CASE("rw=randread:4 with rw_sequencer=identical issues four I/Os at each random offset", "[host][fio]") {
  check_runs_of_four("identical");
}

TEST_CASE("ramp_time: I/Os that complete during the ramp are not counted and runtime follows it", "[host][fio]") {
  auto dir = scratch("ramp");
  // One read every 100 us: 10 ms of ramp (100 reads), then 20 ms measured (200).
  auto s = run_traced(dir, "quick", {},
                      "[ramped]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nrate_iops=10000\nramp_time=10ms\nruntime=20ms\n"
                      "time_based\n");
  const auto& j = s["jobs"][0];
  CHECK(j["reads"].get<uint64_t>() >= 199);
  CHECK(j["reads"].get<uint64_t>() <= 201);
  CHECK(j["runtime_s"].get<double>() == Approx(0.020).epsilon(0.01));
  CHECK(issued(dir).size() >= 299);
  CHECK(issued(dir).size() <= 301);
}

TEST_CASE("rate caps a job's bytes per second", "[host][fio]") {
  // 40,000,000 B/s of 4 KiB reads: 9,765.6 per second.
  auto s = run("quick", {}, "[rated]\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nrate=40000000\nnumber_ios=2000\n");
  CHECK(s["jobs"][0]["iops"].get<double>() == Approx(40e6 / 4096).epsilon(0.01));
}

TEST_CASE("rate=READ,WRITE caps each direction of a mixed job on its own, as fio's rate_ddir", "[host][fio]") {
  // Reads at 20,480,000 B/s (5,000 4 KiB reads/s), writes at 4,096,000 B/s
  // (1,000/s); the drive does far more, so over 100 ms each direction runs
  // at its own cap whatever rwmixread says: 500 reads, 100 writes.
  auto s = run("quick", {}, "[two]\ndirect=1\nrw=randrw\nrwmixread=50\nbs=4k\niodepth=4\nrate=20480000,4096000\nruntime=100ms\n"
                            "time_based\n");
  const auto& j = s["jobs"][0];
  CHECK(j["reads"].get<double>() == Approx(500).margin(3));
  CHECK(j["writes"].get<double>() == Approx(100).margin(3));
}

TEST_CASE("io_size and loops set how much a job transfers over its region", "[host][fio]") {
  // One simulation per process: each run is a vp-server of its own.
  int n = 0;
  auto ios = [&](const std::string& opts) {
    auto s = run_server("io-size-" + std::to_string(n++), "quick", {}, "[j]\ndirect=1\nrw=read\nbs=4k\nsize=16k\n" + opts);
    return s["jobs"][0]["ios"].get<uint64_t>();
  };
  CHECK(ios("") == 4);
  CHECK(ios("io_size=64k\n") == 16);       // four times over the 16 KiB region
  CHECK(ios("loops=3\n") == 12);
  CHECK(ios("io_size=8k\nloops=2\n") == 4);
}

TEST_CASE("fill_device writes from offset to the device's end", "[host][fio]") {
  // 64 KiB before the end of the quick drive's namespace.
  const uint64_t cap = vp::ssd::Drive::capacity_bytes(model_config("quick", {}, {}), "ssd");
  auto s = run("quick", {}, fmt::format("[fill]\ndirect=1\nrw=write\nbs=4k\nsize=4k\noffset={}\nfill_device=1\n", cap - 65536));
  CHECK(s["jobs"][0]["writes"] == 16);
}

// A drive with a volatile write cache (a DRAM cache and no power-loss protection).
const Sets kVolatile = {{"ssd.cache.organisation", "uni"}};

TEST_CASE("fsync, fdatasync and end_fsync on a direct job send NVMe Flushes", "[host][fio]") {
  auto s = run("quick", kVolatile, "[f]\ndirect=1\nrw=write\nbs=4k\nnumber_ios=16\nfsync=4\nend_fsync=1\n");
  // Four fsyncs after every fourth write, then the one at the end.
  CHECK(s["jobs"][0]["fsyncs"] == 5);
  CHECK(s["counters"]["host.nvme.flushes"] == 5);
  auto d = run_server("fdatasync", "quick", kVolatile, "[f]\ndirect=1\nrw=write\nbs=4k\nnumber_ios=16\nfdatasync=8\n");
  CHECK(d["jobs"][0]["fsyncs"] == 2);
  CHECK(d["counters"]["host.nvme.flushes"] == 2);
  // Without a volatile cache blkdev_fsync sends nothing: the fsyncs end at once.
  auto n = run_server("no-vwc", "quick", {}, "[f]\ndirect=1\nrw=write\nbs=4k\nnumber_ios=16\nfsync=4\nend_fsync=1\n");
  CHECK(n["jobs"][0]["fsyncs"] == 5);
  CHECK(n["counters"]["host.nvme.flushes"] == 0);
}

TEST_CASE("sync=1 makes a direct job's writes force unit access", "[host][fio]") {
  auto s = run("quick", kVolatile, "[osync]\ndirect=1\nrw=write\nbs=4k\nnumber_ios=50\nsync=1\n");
  CHECK(s["counters"]["ssd.cache.write_throughs"] == 50);
  auto plain = run_server("no-osync", "quick", kVolatile, "[plain]\ndirect=1\nrw=write\nbs=4k\nnumber_ios=50\n");
  CHECK(plain["counters"]["ssd.cache.write_throughs"] == 0);
}

TEST_CASE("iodepth_low: at iodepth the job waits until only iodepth_low are in flight", "[host][fio]") {
  auto dir = scratch("iodepth-low");
  run_traced(dir, "quick", {}, "[low]\ndirect=1\nrw=randread\nbs=4k\niodepth=8\niodepth_low=2\nnumber_ios=400\n");
  auto n = in_flight_at_issue(issued(dir));
  REQUIRE(n.size() == 400);
  // Once an issue makes 8 in flight, the next waits until at most 2 are
  // (without iodepth_low it would go as soon as one completes, at 7).
  bool full = false;
  unsigned refills = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    INFO("I/O " << i);
    if (full) CHECK(n[i] <= 2);
    refills += full;
    full = n[i] + 1 == 8;
  }
  // Each refill issues 6 plus any that complete meanwhile: at least one
  // refill per 10 I/Os shows the job keeps going round.
  CHECK(refills >= 35);
}

TEST_CASE("iodepth_batch_complete_min: the job reaps (and refills) only whole batches", "[host][fio]") {
  auto dir = scratch("batch-complete");
  run_traced(dir, "quick", {}, "[batch]\ndirect=1\nrw=randread\nbs=4k\niodepth=4\niodepth_batch_complete_min=4\nnumber_ios=400\n");
  auto n = in_flight_at_issue(issued(dir));
  // All four complete before the next four go: 0, 1, 2, 3, 0, 1, 2, 3, ...
  for (size_t i = 0; i < n.size(); ++i) CHECK(n[i] == i % 4);
}

TEST_CASE("thinktime_blocks: the job thinks after every N I/Os", "[host][fio]") {
  auto dir = scratch("think-blocks");
  run_traced(dir, "quick", {}, "[tb]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nthinktime=200\nthinktime_blocks=4\nnumber_ios=40\n");
  auto rows = issued(dir);
  unsigned gaps = 0;
  for (size_t i = 1; i < rows.size(); ++i) gaps += u64(rows[i], "issue_ps") - u64(rows[i - 1], "issue_ps") > 200000000;
  CHECK(gaps == 9);  // before I/Os 5, 9, .., 37
}

TEST_CASE("exitall: a job that ends stops the others of its group, and the next group runs", "[host][fio]") {
  auto s = run("quick", {}, "[short]\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=10\nexitall\n"
                            "[long]\ndirect=1\nrw=randread\nbs=4k\nruntime=1s\ntime_based\n"
                            "[next]\ndirect=1\nstonewall\nrw=randread\nbs=4k\nnumber_ios=5\n");
  CHECK(s["jobs"][0]["ios"] == 10);
  // 10 reads of about 20 us at depth 1: the long job ends with them, not after 1 s.
  CHECK(s["jobs"][1]["runtime_s"].get<double>() < 0.001);
  CHECK(s["jobs"][2]["ios"] == 5);
}

TEST_CASE("percentile_list, new_group and rate_min reach each job's summary", "[host][fio]") {
  auto s = run("quick", {}, "[a]\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=100\npercentile_list=50:99.5\n"
                            "[b]\ndirect=1\nnew_group\nrw=randread\nbs=4k\nnumber_ios=100\nrate_min=100g\n");
  const auto& lat = s["jobs"][0]["latency_us"]["read"];
  CHECK(lat["percentiles"]["50.000000"] == lat["p50"]);
  CHECK(lat["percentiles"].contains("99.500000"));
  CHECK(!s["jobs"][0].contains("groupid"));
  CHECK(s["jobs"][1]["groupid"] == 1);
  CHECK(s["jobs"][1]["error"].get<std::string>().find("below rate_min") != std::string::npos);
}

TEST_CASE("every fio option is modelled, accepted with its reason, or refused naming itself and why", "[host][fio]") {
  auto msg = fio_parse_message;
  CHECK_THAT(msg("[j]\nfoo=1\n"), Catch::Contains("t.fio:2: unknown option 'foo': fio has no such option"));
  CHECK_THAT(msg("[j]\nzonemode=zbd\n"), Catch::Contains("t.fio:2: option 'zonemode' is not modelled: "));
  auto jobs = parse_fio("[j]\nthread\nnorandommap\ngtod_reduce=1\n", "t.fio");
  REQUIRE(jobs[0].accepted.size() == 3);
  CHECK(jobs[0].accepted[0].first == "thread");
  CHECK(parse_fio(jobs[0].to_fio(), "again") == jobs);
  CHECK_THAT(msg("[j]\nbs=4k,8k\n"), Catch::Contains("per-direction block sizes"));
  CHECK_THAT(msg("[j]\nbssplit=4k/50:8k/40\n"), Catch::Contains("adding up to 90%, not 100%"));
  CHECK_THAT(msg("[j]\nbs=16k-4k\n"), Catch::Contains("maximum is below its minimum"));
  // Every option the table calls modelled is one the parser takes.
  for (const auto& o : vp::host::fio_options()) {
    if (o.support != vp::host::FioSupport::Modelled) continue;
    INFO(o.name);
    CHECK_THAT(msg(fmt::format("[j]\n{}=x\n", o.name)), !Catch::Contains("listed as modelled"));
  }
}

TEST_CASE("the new options survive to_fio and back", "[host][fio]") {
  auto jobs = parse_fio("[j]\nrw=randrw:8\nrw_sequencer=identical\nbssplit=4k/10:8k/:64k/\nramp_time=2s\nio_size=1m\n"
                        "loops=2\nfill_device=1\noffset_align=64k\nrate=1m,\nrate_min=,2k\nrate_iops_min=5\n"
                        "fdatasync=3\nend_fsync=1\nsync=dsync\niodepth_low=2\niodepth_batch_complete_min=2\n"
                        "thinktime_blocks=3\npercentile_list=90:99.9\nnew_group\nexitall\n",
                        "t.fio");
  REQUIRE(jobs.size() == 1);
  const auto& j = jobs[0];
  CHECK(j.rw_per_offset == 8);
  CHECK(j.rw_identical);
  // The two sizes without a share split the remaining 90%: 45% each.
  REQUIRE(j.bssplit.size() == 3);
  CHECK(j.bssplit[1].percent == 45);
  CHECK(j.bssplit[2].percent == 45);
  CHECK(j.bs == 4096);
  CHECK(j.max_bs() == 65536);
  CHECK(j.rate_bps[0] == 1 << 20);
  CHECK(j.rate_bps[1] == 0);
  CHECK(j.rate_min_bps[1] == 2048);
  CHECK(j.rate_iops_min[0] == 5);
  CHECK(j.rate_iops_min[1] == 5);
  CHECK(j.sync_every() == 3);
  CHECK(parse_fio(j.to_fio(), "again") == jobs);
}
