// SPDX-License-Identifier: BSD-3-Clause
// FastDrain's write buffer on the whole platform: a buffered writer with
// fsync on a FastDrain host (tagged write-back, ratio switch on sq_head)
// over a 1 MiB buffer, and the buffer-level series it leaves in
// summary.json and write_buffer.csv.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;

TEST_CASE("fastdrain buffer level series under a buffered write burst with fsync", "[platform][cache][fastdrain]") {
  std::string dir = scratch("write-buffer");
  auto o = options("quick",
                   {{"ssd.cache.organisation", "fastdrain"},
                    {"ssd.cache.size", "1MiB"},
                    {"host.pagecache.size", "16MiB"},
                    {"host.pagecache.fastdrain", "on"},
                    {"ssd.nvme.buffer_status_field", "sq_head"}},
                   "[w]\nrw=write\nbs=64k\nsize=8m\ndirect=0\nfsync=32\niodepth=1\nnumber_ios=256\n");
  o.out_dir = dir;
  auto s = run_options(o);
  const auto& wb = drive(s)["write_buffer"];
  const auto& c = s["counters"];
  auto n = [&](const char* k) { return c[k].get<uint64_t>(); };
  // 1 MiB of 2 KiB lines: 512, watermarks ceil(409.6) = 410 and floor(102.4) = 102.
  CHECK(wb["capacity_pages"].get<uint64_t>() == 512);
  CHECK(wb["high_watermark_pages"].get<uint64_t>() == 410);
  CHECK(wb["low_watermark_pages"].get<uint64_t>() == 102);
  // 256 x 64 KiB = 16 MiB: the 8 MiB region twice, 8192 writes of 2 KiB
  // pages. All miss: the buffer's 512 lines hold none of a page's first
  // pass 4096 pages later. Each page write reaches flash by exactly one
  // route: foreground drain, background round, fsync's Flush or replacement
  // in its set.
  CHECK(n("ssd.cache.thr.write_misses") == 8192);
  CHECK(n("ssd.cache.fastdrain.foreground_evictions") + n("ssd.cache.fastdrain.background_evictions") +
            n("ssd.cache.write_backs") + n("ssd.cache.dirty_evictions") ==
        8192);
  CHECK(drive(s)["device"]["flash_programs"].get<uint64_t>() == 8192);
  // The burst passes the high watermark: foreground drains, and the host
  // switches its dirty ratios on the reported status (full, then drained).
  CHECK(n("ssd.cache.fastdrain.foreground_drains") >= 1);
  CHECK(wb["high_water_pages"].get<uint64_t>() >= 410);
  CHECK(n("host.pagecache.ratio_switches") >= 2);
  CHECK(wb["level_pages"].get<uint64_t>() == 0);  // the last fsync's Flush left nothing behind
  // The CSV is the summary's series, one row per 10 us step that saw a change.
  auto rows = csv_rows(dir + "/write_buffer.csv");
  REQUIRE(rows.size() == wb["series"].size());
  uint64_t most = 0;
  for (const auto& r : rows) most = std::max(most, u64(r, "max_pages"));
  CHECK(most == wb["high_water_pages"].get<uint64_t>());
  CHECK(u64(rows.back(), "end_pages") == 0);
}
