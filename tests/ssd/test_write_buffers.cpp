// SPDX-License-Identifier: BSD-3-Clause
// The cache layer's write buffers over the rig's 10 us FTL and 100 ns
// DRAM (tests/ssd/CacheRig.hpp): a conventional drive's (bulk flush when a
// write finds its set full), FastDrain's (watermarks, background and
// foreground eviction, the status in every completion) and DeepFlash's
// direct-mapped burst buffer (busy-entry bypass, evicted-page reads).
#include <catch2/catch.hpp>

#include "tests/ssd/CacheRig.hpp"
#include "vp/nvme/NvmeSpec.hpp"

using namespace vp::test;
using vp::ssd::IoOp;
namespace nvme = vp::nvme;

namespace {
constexpr vp::Tick kUs = 1000 * kCacheNs;

CacheOp tagged(vp::Tick at, uint64_t lpn, uint32_t pages, uint8_t fill, uint32_t victim_pages) {
  CacheOp o{at, IoOp::Write, lpn, pages, fill};
  o.victim = true;
  o.victim_pages = victim_pages;
  return o;
}

// The FTL's writes before `until`: lpn, time and urgency.
std::vector<StoreFtl::Seen> writes_before(const CacheRig& rig, vp::Tick until) {
  std::vector<StoreFtl::Seen> w;
  for (const auto& s : rig.ftl.seen)
    if (s.op == IoOp::Write && s.at < until) w.push_back(s);
  return w;
}
// The first 100 us's writes to the FTL are pages 0-3, drained urgently at 2 us.
void check_urgent_drain_of_pages_0_to_3(const CacheRig& rig) {
  auto w = writes_before(rig, 100 * kUs);
  REQUIRE(w.size() == 4);
  for (uint64_t i = 0; i < 4; ++i) {
    CHECK(w[i].lpn == i);
    CHECK(w[i].at == 2 * kUs);
    CHECK(w[i].urgent);
  }
}
}  // namespace

TEST_CASE("bulk a write that finds its set full of dirty lines flushes a bulk of the oldest, and writes then wait "
          "for the flash", "[ssd][cache][bulk]") {
  CacheRig rig(small_bulk({{"ssd.cache.bulk.pages", "3"}}));
  rig.run({{0, IoOp::Write, 0, 8, 0x10},  // pages 0-7 fill all 8 lines, dirty: nothing goes to flash
           // Page 8 (set 0: lines of 0 and 4, both dirty): a bulk of 3, the
           // set's least recently used (0) then the oldest dirty (1, 2), all
           // at 1 us; page 8 takes 0's line. Level: 6 dirty + 3 copies = 9.
           {1 * kUs, IoOp::Write, 8, 1, 0x20},
           // Page 9 (set 1: 1 is clean now) needs no flush, but 9 + 1 pages
           // exceed the 8 lines while copies are at the FTL: it waits until
           // they land at 11 us (level 6), then takes 1's line.
           {2 * kUs, IoOp::Write, 9, 1, 0x30},
           {3 * kUs, IoOp::Read, 5},    // a dirty line: a hit
           {4 * kUs, IoOp::Read, 0},    // replaced, its copy in flight: served from the copy
           {5 * kUs, IoOp::Read, 20}}); // a miss, to the FTL, not cached
  auto w = writes_before(rig, ~vp::Tick(0));
  REQUIRE(w.size() == 3);
  for (uint64_t i = 0; i < 3; ++i) {
    CHECK(w[i].lpn == i);
    CHECK(w[i].at == 1 * kUs);
    CHECK_FALSE(w[i].urgent);
  }
  CHECK(rig.stat("ssd.cache.bulk.flushes") == 1);
  CHECK(rig.stat("ssd.cache.bulk.flushed_pages") == 3);
  CHECK(rig.done[0] == kDramTime);
  CHECK(rig.done[1] == 1 * kUs + kDramTime);
  CHECK(rig.done[2] == 1 * kUs + kFtlTime + kDramTime);
  CHECK(rig.stat("ssd.cache.bulk.stalled_writes") == 1);
  CHECK(rig.stat("ssd.cache.bulk.stall_ps") == 9 * kUs);
  CHECK(rig.stat("ssd.cache.bulk.level_high_water") == 9);
  CHECK(rig.cache.buffer_level()->level() == 7);  // 7 dirty lines (3-9 but 0-2 gone), nothing in flight
  CHECK(rig.done[3] == 3 * kUs + kDramTime);
  CHECK(rig.page_is(3, 0, 0x15));
  CHECK(rig.done[4] == 4 * kUs);
  CHECK(rig.page_is(4, 0, 0x10));
  CHECK(rig.done[5] == 5 * kUs + kFtlTime);
  CHECK(rig.ftl.count(IoOp::Read) == 1);
  CHECK(rig.ftl.store[2][0] == 0x12);
  CHECK(rig.reqs[1].result == 0);  // a conventional drive reports no buffer status
}

TEST_CASE("bulk by default flushes one page for every plane of the drive", "[ssd][cache][bulk]") {
  // The rig's drive has 16 x 1 x 8 dies x 8 planes = 1,024 planes, more than
  // the 8 lines: the first flush writes every dirty line, oldest first.
  CacheRig rig(small_bulk());
  REQUIRE(vp::ssd::Drive::stripe_pages(vp::ScopedConfig(rig.svc.cfg, "ssd")) == 1024);
  rig.run({{0, IoOp::Write, 0, 8, 0x10}, {1 * kUs, IoOp::Write, 12, 1, 0x20}});
  auto w = writes_before(rig, ~vp::Tick(0));
  REQUIRE(w.size() == 8);
  CHECK(w[0].lpn == 0);  // set 0's least recently used first
  for (uint64_t i = 1; i < 8; ++i) CHECK(w[i].lpn == i);
  CHECK(rig.stat("ssd.cache.bulk.flushed_pages") == 8);
  CHECK(rig.done[1] == 1 * kUs + kDramTime);  // 1 dirty + 8 copies > 8, but nothing was in flight when it came
}

TEST_CASE("fastdrain a hint announcing more than the headroom starts an urgent drain down to the low watermark",
          "[ssd][cache][fastdrain]") {
  CacheRig rig(small_fastdrain({{"ssd.cache.fastdrain.bg_interval", "1s"}}));
  rig.run({{0, IoOp::Write, 0, 4, 0x10},  // level 4
           // Event of 4 pages, this one of them: level 5 + 3 still announced = 8, not above 8.
           tagged(1 * kUs, 4, 1, 0x20, 4),
           // A new event of 6 pages: level 6 + 5 announced = 11 > 8: drain the
           // oldest dirty pages (0 1 2 3) until 2 are dirty (4 and 5).
           tagged(2 * kUs, 5, 1, 0x30, 6),
           {20 * kUs, IoOp::Read, 0},
           {30 * kUs, IoOp::Read, 9},
           {50 * kUs, IoOp::Read, 9}});
  check_urgent_drain_of_pages_0_to_3(rig);
  CHECK(rig.stat("ssd.cache.fastdrain.foreground_drains") == 1);
  CHECK(rig.stat("ssd.cache.fastdrain.foreground_evictions") == 4);
  // Level: 4, 5, then 6 (2 dirty + 4 copies in flight until 12 us), 2 after.
  CHECK(rig.reqs[0].result == nvme::buffer_status(nvme::BUF_BETWEEN, 40));  // 0x2802
  CHECK(rig.reqs[1].result == nvme::buffer_status(nvme::BUF_BETWEEN, 50));  // 0x3202
  CHECK(rig.reqs[2].result == nvme::buffer_status(nvme::BUF_BETWEEN, 60));  // 0x3C02
  CHECK(rig.stat("ssd.cache.fastdrain.level_high_water") == 6);
  // The drained page 0 stayed as a clean copy: a hit at 20 us + 100 ns.
  CHECK(rig.done[3] == 20 * kUs + kDramTime);
  CHECK(rig.page_is(3, 0, 0x10));
  CHECK(rig.reqs[3].result == nvme::buffer_status(nvme::BUF_DRAINED, 20));  // 0x1401
  // Read misses go to the FTL and are not cached: page 9 misses twice.
  CHECK(rig.done[4] == 30 * kUs + kFtlTime);
  CHECK(rig.done[5] == 50 * kUs + kFtlTime);
  CHECK(rig.ftl.count(IoOp::Read) == 2);
  // Pages 4 and 5 go in the first background round, 1 s after the first write.
  auto all = writes_before(rig, ~vp::Tick(0));
  REQUIRE(all.size() == 6);
  CHECK(all[4].lpn == 4);
  CHECK(all[5].lpn == 5);
  CHECK(all[5].at == 1000000 * kUs);
  CHECK_FALSE(all[5].urgent);
  CHECK(rig.stat("ssd.cache.fastdrain.background_evictions") == 2);
  CHECK(rig.ftl.store[5][0] == 0x30);
}

TEST_CASE("fastdrain drain_depth keeps a foreground drain's window at the FTL and the rest in the buffer",
          "[ssd][cache][fastdrain]") {
  // One die of two planes: a window of drain_depth 1 is 2 pages.
  CacheRig rig(small_fastdrain({{"ssd.cache.fastdrain.bg_interval", "1s"},
                                {"ssd.cache.fastdrain.drain_depth", "1"},
                                {"ssd.flash.channels", "1"},
                                {"ssd.flash.packages_per_channel", "1"},
                                {"ssd.flash.dies_per_package", "1"},
                                {"ssd.flash.planes_per_die", "2"}}));
  rig.run({{0, IoOp::Write, 0, 4, 0x10},  // level 4
           tagged(1 * kUs, 4, 1, 0x20, 4),  // level 5 + 3 announced: not above 8
           // Level 6 + 5 announced > 8: a drain down to 2 dirty pages starts,
           // the oldest two (0 1) at once, the others waiting in the buffer.
           tagged(2 * kUs, 5, 1, 0x30, 6),
           // Joins the drain: 5 dirty, 2 at the FTL.
           {3 * kUs, IoOp::Write, 6, 1, 0x40}});
  auto w = writes_before(rig, 100 * kUs);
  // Each completion (10 us after its write) lets the next oldest go: 2 and 3
  // at 12 us, then 4 at 22 us, when 2 pages (5 6) are dirty.
  const std::vector<std::pair<uint64_t, vp::Tick>> want = {
      {0, 2 * kUs}, {1, 2 * kUs}, {2, 12 * kUs}, {3, 12 * kUs}, {4, 22 * kUs}};
  REQUIRE(w.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(w[i].lpn == want[i].first);
    CHECK(w[i].at == want[i].second);
    CHECK(w[i].urgent);
  }
  CHECK(rig.stat("ssd.cache.fastdrain.foreground_drains") == 1);
  CHECK(rig.stat("ssd.cache.fastdrain.foreground_evictions") == 5);
  // Level: 4, 5, 6 (4 dirty + 2 copies), 7 at 3 us; the window never lets it grow.
  CHECK(rig.stat("ssd.cache.fastdrain.level_high_water") == 7);
  // Background rounds wait for the drain to end: 5 and 6 go in the first, at 1 s.
  auto all = writes_before(rig, ~vp::Tick(0));
  REQUIRE(all.size() == 7);
  CHECK(all[5].lpn == 5);
  CHECK(all[6].lpn == 6);
  CHECK(all[6].at == 1000000 * kUs);
  CHECK_FALSE(all[6].urgent);
  for (uint64_t p = 0; p < 7; ++p) CHECK(rig.ftl.store[p][0] == (p < 4 ? 0x10 + p : p == 4 ? 0x20 : p == 5 ? 0x30 : 0x40));
}

TEST_CASE("fastdrain background eviction paces rounds and waits while host work is at the FTL",
          "[ssd][cache][fastdrain]") {
  CacheRig rig(small_fastdrain({{"ssd.cache.fastdrain.bg_pages", "2"}, {"ssd.cache.fastdrain.bg_interval", "20us"}}));
  // Six dirty pages (level 6, under 8). Rounds every 20 us from the write:
  // 20 us sends 0 1; 40 us finds the read of page 100 at the FTL (39-49 us)
  // and waits; 60 us sends 2 3; 80 us sends 4 5; then nothing is dirty and
  // no round is scheduled (the run ends).
  rig.run({{0, IoOp::Write, 0, 6, 0x40}, {39 * kUs, IoOp::Read, 100}});
  auto w = writes_before(rig, ~vp::Tick(0));
  REQUIRE(w.size() == 6);
  const vp::Tick at[6] = {20 * kUs, 20 * kUs, 60 * kUs, 60 * kUs, 80 * kUs, 80 * kUs};
  for (size_t i = 0; i < 6; ++i) {
    CHECK(w[i].lpn == i);
    CHECK(w[i].at == at[i]);
    CHECK_FALSE(w[i].urgent);
  }
  CHECK(rig.done[1] == 39 * kUs + kFtlTime);
  CHECK(rig.stat("ssd.cache.fastdrain.background_evictions") == 6);
  CHECK(rig.stat("ssd.cache.fastdrain.foreground_drains") == 0);
  CHECK(rig.cache.buffer_level()->level() == 0);
  CHECK(rig.ftl.store[5][0] == 0x45);
  CHECK(vp::now_ps() == 90 * kUs);  // the last eviction lands at 80 + 10 us, then nothing is left to run
}

TEST_CASE("fastdrain an announcement that never arrives lapses and background rounds resume", "[ssd][cache][fastdrain]") {
  CacheRig rig(small_fastdrain({{"ssd.cache.fastdrain.bg_interval", "20us"},
                                {"ssd.cache.fastdrain.hint_lapse", "50us"}}));
  // A tagged write of page 0 announcing 9 pages: level 1 + 8 still to come
  // = 9 > 8, but only 1 page is dirty (not above the low watermark's 2), so
  // the drain sends nothing. Rounds at 20 and 40 us see 9 > 8 and wait; at
  // 60 us the announcement (last at 0 us) is older than 50 us: page 0 goes.
  rig.run({tagged(0, 0, 1, 0x70, 9)});
  auto w = writes_before(rig, ~vp::Tick(0));
  REQUIRE(w.size() == 1);
  CHECK(w[0].lpn == 0);
  CHECK(w[0].at == 60 * kUs);
  CHECK_FALSE(w[0].urgent);
  CHECK(rig.stat("ssd.cache.fastdrain.foreground_drains") == 0);
  CHECK(rig.stat("ssd.cache.fastdrain.background_evictions") == 1);
  CHECK(rig.reqs[0].result == nvme::buffer_status(nvme::BUF_DRAINED, 10));  // level 1 of 10
}

TEST_CASE("fastdrain completions report drained between and full", "[ssd][cache][fastdrain]") {
  CacheRig rig(small_fastdrain({{"ssd.cache.fastdrain.bg_interval", "1s"}}));
  rig.run({{0, IoOp::Write, 0, 2, 1},           // level 2: at the low watermark, drained 20 %
           {1 * kUs, IoOp::Write, 2, 3, 1},     // 5: between, 50 %
           {2 * kUs, IoOp::Write, 5, 3, 1},     // 8: at the high watermark, full 80 %, not above it
           {3 * kUs, IoOp::Write, 8, 1, 1},     // 9 > 8: drain 7 (0-6); 2 dirty + 7 in flight = 9, full 90 %
           {20 * kUs, IoOp::Read, 1},           // the copies landed at 13 us: level 2, drained 20 %
           {30 * kUs, IoOp::Flush, 0}});        // writes back 7 and 8: level 0, drained 0 %
  CHECK(rig.reqs[0].result == nvme::buffer_status(nvme::BUF_DRAINED, 20));  // 0x1401
  CHECK(rig.reqs[1].result == nvme::buffer_status(nvme::BUF_BETWEEN, 50));  // 0x3202
  CHECK(rig.reqs[2].result == nvme::buffer_status(nvme::BUF_FULL, 80));     // 0x5003
  CHECK(rig.reqs[3].result == nvme::buffer_status(nvme::BUF_FULL, 90));     // 0x5A03
  CHECK(rig.reqs[4].result == nvme::buffer_status(nvme::BUF_DRAINED, 20));
  CHECK(rig.reqs[5].result == nvme::buffer_status(nvme::BUF_DRAINED, 0));   // 0x0001
  CHECK(rig.done[5] == 30 * kUs + 2 * kFtlTime);  // write-backs, then the FTL's Flush
  CHECK(rig.stat("ssd.cache.fastdrain.foreground_drains") == 1);
  CHECK(rig.stat("ssd.cache.fastdrain.foreground_evictions") == 7);
  CHECK(rig.stat("ssd.cache.write_backs") == 2);
  CHECK(rig.stat("ssd.cache.fastdrain.level_high_water") == 9);
  const auto* lv = rig.cache.buffer_level();
  CHECK(lv->capacity() == 10);
  CHECK(lv->high_pages() == 8);
  CHECK(lv->low_pages() == 2);
}

TEST_CASE("burst buffer write to an entry under eviction bypasses it and reads of evicted pages never see stale flash",
          "[ssd][cache][burst]") {
  CacheRig rig(small_burst());
  rig.ftl.store[0].assign(kCachePage, 0x11);  // what flash held before
  // Pages 0 4 8 12 share entry 0. Writing 4 at 1 us evicts 0 (at the FTL
  // 1-11 us): the entry is busy, so the write of 8 at 2 us goes to the FTL
  // and completes when it is there (12 us). Reads at 3 and 4 us find 0 and 8
  // in flight and are served from their copies. At 20 us the entry is free
  // again: writing 12 evicts 4 the ordinary way.
  rig.run({{0, IoOp::Write, 0, 1, 0xA0},
           {1 * kUs, IoOp::Write, 4, 1, 0xB0},
           {2 * kUs, IoOp::Write, 8, 1, 0xC0},
           {3 * kUs, IoOp::Read, 0},
           {4 * kUs, IoOp::Read, 8},
           {20 * kUs, IoOp::Write, 12, 1, 0xD0},
           {40 * kUs, IoOp::Read, 0},
           {40 * kUs, IoOp::Read, 8},
           {40 * kUs, IoOp::Read, 4}});
  CHECK(rig.cache.tags()->ways() == 1);  // direct mapped whatever ssd.cache.ways says
  CHECK(rig.cache.tags()->sets() == 4);
  CHECK(rig.done[1] == 1 * kUs + kDramTime);
  CHECK(rig.done[2] == 2 * kUs + kFtlTime);
  CHECK(rig.done[3] == 3 * kUs);
  CHECK(rig.page_is(3, 0, 0xA0));
  CHECK(rig.done[4] == 4 * kUs);
  CHECK(rig.page_is(4, 0, 0xC0));
  CHECK(rig.done[5] == 20 * kUs + kDramTime);
  auto w = writes_before(rig, ~vp::Tick(0));
  REQUIRE(w.size() == 3);
  CHECK(w[0].lpn == 0);
  CHECK(w[0].at == 1 * kUs);
  CHECK(w[1].lpn == 8);
  CHECK(w[1].at == 2 * kUs);
  CHECK(w[2].lpn == 4);
  CHECK(w[2].at == 20 * kUs);
  CHECK(rig.stat("ssd.cache.burst.busy_bypasses") == 1);
  CHECK(rig.stat("ssd.cache.eviction_copy_hits") == 2);
  CHECK(rig.ftl.count(IoOp::Read) == 3);  // the three reads at 40 us
  CHECK(rig.page_is(6, 0, 0xA0));
  CHECK(rig.page_is(7, 0, 0xC0));
  CHECK(rig.page_is(8, 0, 0xB0));
  CHECK(rig.reqs[8].result == 0);  // no buffer status outside FastDrain
}

TEST_CASE("fastdrain a write waits while lines and copies in flight fill the buffer", "[ssd][cache][fastdrain]") {
  // 10 lines, watermarks 8 / 2. Nine pages written at 0 pass the high
  // watermark: 0-6 are drained (copies at the FTL until 10 us), leaving 2
  // dirty: 9 pages of DRAM in use. Four more pages at 1 us would need 13 of
  // 10: the write waits. At 10 us the copies land one by one; after the
  // third 6 pages are in use and 6 + 4 fit: it goes in then (+ 100 ns DRAM).
  CacheRig rig(small_fastdrain({{"ssd.cache.fastdrain.bg_interval", "1s"}}));
  rig.run({{0, IoOp::Write, 0, 9, 0x10}, {1 * kUs, IoOp::Write, 20, 4, 0x40}, {30 * kUs, IoOp::Read, 21}});
  CHECK(rig.done[0] == kDramTime);
  CHECK(rig.done[1] == kFtlTime + kDramTime);
  CHECK(rig.stat("ssd.cache.fastdrain.stalled_writes") == 1);
  CHECK(rig.stat("ssd.cache.fastdrain.stall_ps") == kFtlTime - 1 * kUs);
  CHECK(rig.page_is(2, 0, 0x41));
}

namespace {
// The small uniform cache (8 lines, lpn in set lpn mod 4, 2 ways) filled
// with dirty pages 0-7 at 0; at 1 us three writes of pages 8, 9 and 10
// replace the dirty pages 0, 1 and 2, whose copies go to the FTL (10 us).
std::vector<CacheOp> replace_three_dirty() {
  std::vector<CacheOp> ops;
  for (uint64_t p = 0; p < 8; ++p) ops.push_back({0, IoOp::Write, p, 1, uint8_t(p)});
  for (uint64_t p = 8; p < 11; ++p) ops.push_back({1 * kUs, IoOp::Write, p, 1, uint8_t(p)});
  return ops;
}
}  // namespace

TEST_CASE("a write-back cache's write waits while the write buffer is full of copies", "[ssd][cache][write_buffer]") {
  // A write buffer of two 4 KiB pages.
  CacheRig rig(small_uni({{"ssd.write_buffer.size", "8KiB"}}));
  rig.run(replace_three_dirty());
  // Pages 8 and 9 leave copies of 0 and 1 (the buffer is full) and complete
  // after their DRAM write, at 1.1 us. Page 10 would be a third copy: it
  // waits until the copies are on flash at 1 + 10 = 11 us, then replaces
  // page 2 and completes at 11.1 us.
  CHECK(rig.done[8] == 1 * kUs + kDramTime);
  CHECK(rig.done[9] == 1 * kUs + kDramTime);
  CHECK(rig.done[10] == 11 * kUs + kDramTime);
  CHECK(rig.stat("ssd.cache.write_buffer.stalled_writes") == 1);
  CHECK(rig.stat("ssd.cache.write_buffer.stall_ps") == 10 * kUs);
  CHECK(rig.stat("ssd.cache.write_buffer.copies_max") == 2);
  auto wb = rig.stats.sections_json()["write_buffer"];
  CHECK(wb["capacity_pages"] == 2);
  CHECK(wb["stalled_writes"] == 1);
  CHECK(wb["stall_s"].get<double>() == Approx(10e-6));
  // Page 2's copy went down at 11 us, after the two others.
  auto w = writes_before(rig, 100 * kUs);
  REQUIRE(w.size() == 3);
  CHECK(w[2].lpn == 2);
  CHECK(w[2].at == 11 * kUs);
}

TEST_CASE("a write buffer with room takes the same writes without waiting", "[ssd][cache][write_buffer]") {
  CacheRig rig(small_uni({{"ssd.write_buffer.size", "12KiB"}}));
  rig.run(replace_three_dirty());
  for (size_t i = 8; i < 11; ++i) CHECK(rig.done[i] == 1 * kUs + kDramTime);
  CHECK(rig.stat("ssd.cache.write_buffer.stalled_writes") == 0);
  CHECK(rig.stat("ssd.cache.write_buffer.copies_max") == 3);
}

TEST_CASE("fastdrain over a read cache drains as the buffer alone and keeps its read misses", "[ssd][cache][fastdrain]") {
  // The first fastdrain case's writes on a uni cache of the same 10 lines
  // with ssd.cache.write_buffer = fastdrain: the same urgent drain of pages
  // 0-3 at 2 us (the level counts dirty lines and copies, as the buffer
  // alone), but page 9's read miss is installed, so its second read hits
  // (the buffer alone sends it to the FTL twice).
  CacheRig rig({{"ssd.cache.organisation", "uni"}, {"ssd.cache.write_buffer", "fastdrain"},
                {"ssd.cache.size", "40KiB"}, {"ssd.cache.ways", "10"}, {"ssd.cache.fastdrain.bg_interval", "1s"}});
  rig.run({{0, IoOp::Write, 0, 4, 0x10}, tagged(1 * kUs, 4, 1, 0x20, 4), tagged(2 * kUs, 5, 1, 0x30, 6),
           {30 * kUs, IoOp::Read, 9}, {50 * kUs, IoOp::Read, 9}});
  check_urgent_drain_of_pages_0_to_3(rig);
  CHECK(rig.stat("ssd.cache.fastdrain.foreground_evictions") == 4);
  CHECK(rig.reqs[2].result == nvme::buffer_status(nvme::BUF_BETWEEN, 60));
  CHECK(rig.done[3] == 30 * kUs + kFtlTime + kDramTime);  // the miss, then its fill's DRAM write
  CHECK(rig.done[4] == 50 * kUs + kDramTime);
  CHECK(rig.ftl.count(IoOp::Read) == 1);
  CHECK(rig.stat("ssd.cache.thr.read_hits") == 1);
}

TEST_CASE("a fastdrain write side needs a read cache under it", "[ssd][cache][fastdrain]") {
  for (const char* org : {"none", "bulk", "burst", "fastdrain"})
    CHECK_THROWS_WITH(model_config("", {}, {{"ssd.cache.organisation", org}, {"ssd.cache.write_buffer", "fastdrain"}}),
                      Catch::Contains("ssd.cache.write_buffer") && Catch::Contains("ssd.cache.organisation"));
  CHECK_NOTHROW(model_config("", {}, {{"ssd.cache.organisation", "split"}, {"ssd.cache.write_buffer", "fastdrain"}}));
}
