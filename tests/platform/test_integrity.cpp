// SPDX-License-Identifier: BSD-3-Clause
// Every byte written reads back intact: random patterns over many LBAs, with
// transfers that need PRP lists.
#include <catch2/catch.hpp>

#include <set>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
void check_verified(const nlohmann::json& s, uint64_t min_checked) {
  INFO(host(s)["verify"].dump());
  CHECK(host(s)["verify"]["mismatches"].get<uint64_t>() == 0);
  CHECK(host(s)["verify"]["blocks_checked"].get<uint64_t>() >= min_checked);
  for (const auto& j : s["jobs"]) CHECK(j["errors"].get<uint64_t>() == 0);
}
}  // namespace

TEST_CASE("random writes and reads of 4 KiB read back what was written", "[platform][integrity]") {
  // A 2 MiB region (512 blocks) so reads land on written blocks often.
  auto s = run("quick", {},
               "[v]\ndirect=1\nrw=randrw\nrwmixread=50\nbs=4k\niodepth=8\nsize=2m\nnumber_ios=6000\nverify=1\n");
  check_verified(s, 1500);
}

TEST_CASE("multi-page transfers with PRP lists read back intact", "[platform][integrity]") {
  // 16 KiB and 64 KiB need a PRP list (more than two pages); two jobs on two
  // cores write and read the same region through different queues.
  auto s = run("quick", {},
               "[global]\ndirect=1\nrw=randrw\nsize=4m\nverify=1\niodepth=4\n"
               "[a]\nbs=16k\nnumber_ios=1500\ncpus_allowed=0\n"
               "[b]\nbs=64k\nnumber_ios=400\ncpus_allowed=1\n");
  check_verified(s, 2000);
}

TEST_CASE("sequential write then sequential read of the same region", "[platform][integrity]") {
  auto s = run("quick", {},
               "[w]\ndirect=1\nrw=write\nbs=8k\nsize=1m\niodepth=4\nverify=1\n"
               "[r]\ndirect=1\nstonewall\nrw=read\nbs=32k\nsize=1m\niodepth=4\nverify=1\n");
  // 1 MiB = 256 blocks of 4 KiB written, then every one checked.
  CHECK(host(s)["verify"]["blocks_checked"].get<uint64_t>() == 256);
  CHECK(host(s)["verify"]["mismatches"].get<uint64_t>() == 0);
  CHECK(s["jobs"][0]["writes"].get<uint64_t>() == 128);
  CHECK(s["jobs"][1]["reads"].get<uint64_t>() == 32);
}

TEST_CASE("data written through the SSD cache reads back intact across evictions and GC", "[platform][integrity][cache]") {
  // A 256 KiB uniform cache (32 sets of 4 ways of 2 KiB flash pages)
  // over a full, aged drive: 20,000 random 4 KiB writes to 4 MiB evict dirty
  // lines all the time while GC moves pages, then every block is read back.
  auto s = run("quick",
               {{"ssd.precondition.fill", "1"},
                {"ssd.precondition.age", "2"},
                {"ssd.cache.organisation", "uni"},
                {"ssd.cache.size", "256KiB"},
                {"ssd.cache.ways", "4"},
                {"ssd.cache.prefetch_pages", "4"}},
               "[w]\ndirect=1\nrw=randwrite\nbs=4k\nsize=4m\niodepth=16\nnumber_ios=20000\nverify=1\n"
               "[r]\ndirect=1\nstonewall\nrw=read\nbs=16k\nsize=4m\niodepth=4\nverify=1\n");
  check_verified(s, 1000);
  CHECK(s["counters"]["ssd.cache.dirty_evictions"].get<uint64_t>() > 10000);
  CHECK(drive(s)["ftl"]["gc_pages_moved"].get<uint64_t>() > 0);
}

TEST_CASE("data written through the fastdrain write buffer reads back intact after its drains", "[platform][integrity][cache]") {
  // A 256 KiB buffer (128 lines of 2 KiB: watermarks 103 and 25 pages) over
  // a full, aged drive: random 4 KiB writes fill it past the high watermark
  // again and again (foreground drains) and background rounds run between;
  // then every block is read back, from the buffer or from flash.
  auto s = run("quick",
               {{"ssd.precondition.fill", "1"},
                {"ssd.precondition.age", "2"},
                {"ssd.cache.organisation", "fastdrain"},
                {"ssd.cache.size", "256KiB"},
                {"ssd.cache.ways", "8"},
                {"ssd.cache.fastdrain.bg_interval", "50us"}},
               "[w]\ndirect=1\nrw=randwrite\nbs=4k\nsize=4m\niodepth=16\nnumber_ios=8000\nverify=1\n"
               "[r]\ndirect=1\nstonewall\nrw=read\nbs=16k\nsize=4m\niodepth=4\nverify=1\n");
  check_verified(s, 1000);
  CHECK(s["counters"]["ssd.cache.fastdrain.foreground_drains"].get<uint64_t>() > 0);
  CHECK(s["counters"]["ssd.cache.fastdrain.background_evictions"].get<uint64_t>() > 0);
  CHECK(drive(s)["write_buffer"]["capacity_pages"].get<uint64_t>() == 128);
}

TEST_CASE("data written through the burst buffer reads back intact across bypasses and evictions", "[platform][integrity][cache]") {
  // A 64 KiB direct-mapped burst buffer (32 entries of 2 KiB) under random
  // 4 KiB writes at depth 16: entries are replaced all the time and writes
  // to an entry still being evicted go straight to the FTL.
  auto s = run("quick",
               {{"ssd.precondition.fill", "1"},
                {"ssd.precondition.age", "2"},
                {"ssd.cache.organisation", "burst"},
                {"ssd.cache.size", "64KiB"}},
               "[w]\ndirect=1\nrw=randwrite\nbs=4k\nsize=4m\niodepth=16\nnumber_ios=8000\nverify=1\n"
               "[r]\ndirect=1\nstonewall\nrw=read\nbs=16k\nsize=4m\niodepth=4\nverify=1\n");
  check_verified(s, 1000);
  CHECK(s["counters"]["ssd.cache.burst.busy_bypasses"].get<uint64_t>() > 0);
  CHECK(s["counters"]["ssd.cache.dirty_evictions"].get<uint64_t>() > 1000);
}

TEST_CASE("data written through the split cache reads back intact as the ways move", "[platform][integrity][cache]") {
  // A 256 KiB split cache (32 sets of 4 ways of 2 KiB pages), epochs of
  // 50 us and high demand from 16 accesses, so the way split moves while a
  // latency-critical and a throughput job write and read their own 2 MiB
  // each; lines handed over are read by their old owner, written by the new
  // one, and dirty ones evicted. Then both regions are read back.
  auto o = options("quick",
               {{"ssd.cache.organisation", "split"},
                {"ssd.cache.size", "256KiB"},
                {"ssd.cache.ways", "4"},
                {"ssd.cache.epoch", "50us"},
                {"ssd.cache.split_demand", "16"}},
               "[lat]\ndirect=1\nrw=randrw\nbs=4k\nsize=2m\niodepth=2\nnumber_ios=3000\nverify=1\nworkload_attr=1\n"
               "[thr]\ndirect=1\nrw=randrw\nbs=16k\noffset=2m\nsize=2m\niodepth=16\nnumber_ios=3000\nverify=1\n"
               "[rl]\ndirect=1\nstonewall\nrw=read\nbs=16k\nsize=2m\niodepth=4\nverify=1\nworkload_attr=1\n"
               "[rt]\ndirect=1\nrw=read\nbs=16k\noffset=2m\nsize=2m\niodepth=4\nverify=1\n");
  std::string dir = scratch("split_cache_epochs");
  o.out_dir = dir;
  o.cache = true;  // --trace cache: cache_epochs.csv
  auto s = run_options(o);
  check_verified(s, 1000);
  // One row per epoch with accesses; the latency-critical ways move.
  auto rows = csv_rows(dir + "/cache_epochs.csv");
  REQUIRE(rows.size() > 10);
  std::set<std::string> lat_ways;
  for (const auto& r : rows) lat_ways.insert(r.at("lat_ways"));
  CHECK(lat_ways.size() > 1);
  // The epochs' prefetch hits add up to the run's counter.
  uint64_t pf = 0;
  for (const auto& r : rows) pf += u64(r, "thr_prefetch_hits") + u64(r, "lat_prefetch_hits");
  const auto& c = s["counters"];
  CHECK(c["ssd.cache.split_changes"].get<uint64_t>() > 0);
  CHECK(pf > 0);
  CHECK(pf == c["ssd.cache.prefetch_hits"].get<uint64_t>());
  CHECK(c["ssd.cache.dirty_evictions"].get<uint64_t>() > 1000);
  CHECK(c["ssd.cache.lat.read_hits"].get<uint64_t>() > 0);
  CHECK(c["ssd.cache.thr.read_hits"].get<uint64_t>() > 0);
}

TEST_CASE("data written through the uni-dyn cache reads back intact as the prefetch changes", "[platform][integrity][cache]") {
  // Random writes evict dirty lines of a 256 KiB cache; the sequential
  // read-back makes the ghosts choose a read-ahead, which then brings in
  // pages some of which random writes of a second job overwrite meanwhile.
  auto s = run("quick",
               {{"ssd.cache.organisation", "uni-dyn"},
                {"ssd.cache.size", "256KiB"},
                {"ssd.cache.ways", "4"},
                {"ssd.cache.epoch", "50us"}},
               "[w]\ndirect=1\nrw=randwrite\nbs=4k\nsize=4m\niodepth=16\nnumber_ios=6000\nverify=1\n"
               "[r]\ndirect=1\nstonewall\nrw=read\nbs=16k\nsize=4m\niodepth=4\nverify=1\n"
               "[w2]\ndirect=1\nrw=randwrite\nbs=4k\nsize=4m\niodepth=4\nnumber_ios=1000\nverify=1\n");
  // Of the region's 1,024 blocks, those w2 overwrites while r reads them are
  // not checked (either copy may come back): about 950 are, since reads
  // pass w2's programs at the dies.
  check_verified(s, 900);
  const auto& c = s["counters"];
  CHECK(c["ssd.cache.prefetch_changes"].get<uint64_t>() > 0);
  CHECK(c["ssd.cache.prefetch_hits"].get<uint64_t>() > 0);
  CHECK(c["ssd.cache.dirty_evictions"].get<uint64_t>() > 1000);
}
