// Every byte written reads back intact: random patterns over many LBAs, with
// transfers that need PRP lists.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
void check_verified(const nlohmann::json& s, uint64_t min_checked) {
  INFO(s["verify"].dump());
  CHECK(s["verify"]["mismatches"].get<uint64_t>() == 0);
  CHECK(s["verify"]["blocks_checked"].get<uint64_t>() >= min_checked);
  for (const auto& j : s["jobs"]) CHECK(j["errors"].get<uint64_t>() == 0);
}
}  // namespace

TEST_CASE("random writes and reads of 4 KiB read back what was written", "[platform][integrity]") {
  // A 2 MiB region (512 blocks) so reads land on written blocks often.
  auto s = run("quick", {},
               "[v]\nrw=randrw\nrwmixread=50\nbs=4k\niodepth=8\nsize=2m\nnumber_ios=6000\nverify=1\n");
  check_verified(s, 1500);
}

TEST_CASE("multi-page transfers with PRP lists read back intact", "[platform][integrity]") {
  // 16 KiB and 64 KiB need a PRP list (more than two pages); two jobs on two
  // cores write and read the same region through different queues.
  auto s = run("quick", {},
               "[global]\nrw=randrw\nsize=4m\nverify=1\niodepth=4\n"
               "[a]\nbs=16k\nnumber_ios=1500\ncpus_allowed=0\n"
               "[b]\nbs=64k\nnumber_ios=400\ncpus_allowed=1\n");
  check_verified(s, 2000);
}

TEST_CASE("sequential write then sequential read of the same region", "[platform][integrity]") {
  auto s = run("quick", {},
               "[w]\nrw=write\nbs=8k\nsize=1m\niodepth=4\nverify=1\n"
               "[r]\nstonewall\nrw=read\nbs=32k\nsize=1m\niodepth=4\nverify=1\n");
  // 1 MiB = 256 blocks of 4 KiB written, then every one checked.
  CHECK(s["verify"]["blocks_checked"].get<uint64_t>() == 256);
  CHECK(s["verify"]["mismatches"].get<uint64_t>() == 0);
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
               "[w]\nrw=randwrite\nbs=4k\nsize=4m\niodepth=16\nnumber_ios=20000\nverify=1\n"
               "[r]\nstonewall\nrw=read\nbs=16k\nsize=4m\niodepth=4\nverify=1\n");
  check_verified(s, 1000);
  CHECK(s["counters"]["ssd.cache.dirty_evictions"].get<uint64_t>() > 10000);
  CHECK(s["ftl"]["gc_pages_moved"].get<uint64_t>() > 0);
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
               "[w]\nrw=randwrite\nbs=4k\nsize=4m\niodepth=16\nnumber_ios=8000\nverify=1\n"
               "[r]\nstonewall\nrw=read\nbs=16k\nsize=4m\niodepth=4\nverify=1\n");
  check_verified(s, 1000);
  CHECK(s["counters"]["ssd.cache.fastdrain.foreground_drains"].get<uint64_t>() > 0);
  CHECK(s["counters"]["ssd.cache.fastdrain.background_evictions"].get<uint64_t>() > 0);
  CHECK(s["write_buffer"]["capacity_pages"].get<uint64_t>() == 128);
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
               "[w]\nrw=randwrite\nbs=4k\nsize=4m\niodepth=16\nnumber_ios=8000\nverify=1\n"
               "[r]\nstonewall\nrw=read\nbs=16k\nsize=4m\niodepth=4\nverify=1\n");
  check_verified(s, 1000);
  CHECK(s["counters"]["ssd.cache.burst.busy_bypasses"].get<uint64_t>() > 0);
  CHECK(s["counters"]["ssd.cache.dirty_evictions"].get<uint64_t>() > 1000);
}
