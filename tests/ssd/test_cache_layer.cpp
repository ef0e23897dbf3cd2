// SPDX-License-Identifier: BSD-3-Clause
// The SSD's DRAM cache layer (CacheLayer) over an FTL that takes 10 us per
// request and a DRAM that takes 100 ns per access (tests/ssd/CacheRig.hpp):
// hits, misses, LRU, prefetch, write-back, eviction copies, Flush and FUA.
#include <catch2/catch.hpp>

#include "tests/ssd/CacheRig.hpp"

using namespace vp::test;
using vp::ssd::IoOp;

namespace {
constexpr vp::Tick kUs = 1000 * kCacheNs;
}

TEST_CASE("a read miss fills the cache and a second read of the page hits in DRAM", "[ssd][cache]") {
  CacheRig rig(small_uni());
  rig.run({{0, IoOp::Read, 5}, {20 * kUs, IoOp::Read, 5}});
  // Miss: the FTL's 10 us, then the fill's DRAM write (100 ns): done at 10.1 us.
  CHECK(rig.done[0] == 10 * kUs + kDramTime);
  // Hit: one DRAM read, 100 ns after it came.
  CHECK(rig.done[1] == 20 * kUs + kDramTime);
  CHECK(rig.ftl.count(IoOp::Read) == 1);
  CHECK(rig.stat("ssd.cache.thr.read_misses") == 1);
  CHECK(rig.stat("ssd.cache.thr.read_hits") == 1);
  CHECK(rig.cache.volatile_write_cache());
}

TEST_CASE("the least recently used way of a set is replaced", "[ssd][cache]") {
  CacheRig rig(small_uni());
  // Pages 0 4 8 all map to set 0 (lpn mod 4), which has two ways. After
  // 0, 4, 0 the least recently used is 4, so 8 replaces it: then 0 hits and
  // 4 misses again.
  rig.run({{0, IoOp::Read, 0},
           {20 * kUs, IoOp::Read, 4},
           {40 * kUs, IoOp::Read, 0},
           {60 * kUs, IoOp::Read, 8},
           {80 * kUs, IoOp::Read, 0},
           {100 * kUs, IoOp::Read, 4}});
  CHECK(rig.done[2] == 40 * kUs + kDramTime);  // hit
  CHECK(rig.done[4] == 80 * kUs + kDramTime);  // 0 survived 8's fill
  CHECK(rig.done[5] == 100 * kUs + kFtlTime + kDramTime);  // 4 was replaced
  CHECK(rig.stat("ssd.cache.thr.read_misses") == 4);     // 0, 4, 8, 4
  CHECK(rig.stat("ssd.cache.clean_evictions") == 2);     // 4 by 8, then 0 or 8 by 4
  CHECK(rig.ftl.count(IoOp::Write) == 0);                // nothing was dirty
}

TEST_CASE("a read miss prefetches the next pages and reads of them then hit", "[ssd][cache]") {
  CacheRig rig(small_uni({{"ssd.cache.prefetch_pages", "3"}}));
  // Reading page 0 misses: the FTL gets page 0 and then pages 1, 2, 3, a
  // request each (a read waiting for one gets it as soon as it is back). At
  // 20 us pages 1, 2, 3 are all in the cache.
  rig.run({{0, IoOp::Read, 0}, {20 * kUs, IoOp::Read, 1, 3}});
  REQUIRE(rig.ftl.seen.size() == 4);
  for (uint64_t p = 0; p < 4; ++p) {
    CHECK(rig.ftl.seen[p].lpn == p);
    CHECK(rig.ftl.seen[p].pages == 1);
    CHECK(rig.ftl.seen[p].at == 0);
  }
  CHECK(rig.done[1] == 20 * kUs + kDramTime);  // three hits, DRAM accesses all done at +100 ns here
  CHECK(rig.stat("ssd.cache.prefetched_pages") == 3);
  CHECK(rig.stat("ssd.cache.prefetch_hits") == 3);
  CHECK(rig.stat("ssd.cache.thr.read_hits") == 3);
}

TEST_CASE("a read of a page already being filled waits for that fill instead of reading it again", "[ssd][cache]") {
  CacheRig rig(small_uni());
  rig.run({{0, IoOp::Read, 5}, {1 * kUs, IoOp::Read, 5}});
  // One FTL read, at 0; both complete when its page is in the cache, 10 us
  // + the fill's DRAM write = 10.1 us.
  CHECK(rig.ftl.count(IoOp::Read) == 1);
  CHECK(rig.done[0] == 10 * kUs + kDramTime);
  CHECK(rig.done[1] == 10 * kUs + kDramTime);
  CHECK(rig.stat("ssd.cache.inflight_hits") == 1);
  CHECK(rig.stat("ssd.cache.thr.read_misses") == 2);
}

TEST_CASE("reads of prefetched pages still in flight wait for them and a miss does not prefetch them again",
          "[ssd][cache]") {
  CacheRig rig(small_uni({{"ssd.cache.prefetch_pages", "4"}}));
  rig.run({{0, IoOp::Read, 0},
           {1 * kUs, IoOp::Read, 1, 2},   // pages 1 and 2: prefetched, in flight
           {2 * kUs, IoOp::Read, 2, 4},   // 2 to 4 in flight, 5 a miss: prefetches 6 to 9 only
           {30 * kUs, IoOp::Read, 3}});   // a prefetched page in the cache
  // Page 0 and its prefetches 1-4 go down at 0, one FTL read each; at 2 us
  // the miss of page 5 and its prefetches 6-9: 10 reads, each page once.
  std::vector<uint64_t> lpns;
  for (const auto& s : rig.ftl.seen) lpns.push_back(s.lpn);
  CHECK(lpns == std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(rig.done[0] == 10 * kUs + kDramTime);
  CHECK(rig.done[1] == 10 * kUs + kDramTime);  // its pages came back with the prefetches
  CHECK(rig.done[2] == 12 * kUs + kDramTime);  // page 5 at 2 + 10 us
  CHECK(rig.done[3] == 30 * kUs + kDramTime);  // a hit
  CHECK(rig.stat("ssd.cache.inflight_hits") == 2 + 3);
  CHECK(rig.stat("ssd.cache.prefetched_pages") == 8);
  // Pages 1, 2, 3 and 4 were used (1 and 2 twice, the first use counts).
  CHECK(rig.stat("ssd.cache.prefetch_hits") == 4);
}

TEST_CASE("uni-no does not prefetch", "[ssd][cache]") {
  CacheRig rig(small_uni({{"ssd.cache.prefetch_pages", "0"}}));
  rig.run({{0, IoOp::Read, 0}, {20 * kUs, IoOp::Read, 1}});
  CHECK(rig.ftl.count(IoOp::Read) == 2);
  CHECK(rig.stat("ssd.cache.prefetched_pages") == 0);
  CHECK(rig.done[1] == 20 * kUs + kFtlTime + kDramTime);
}

TEST_CASE("writes complete from DRAM and a dirty line replaced goes to flash intact", "[ssd][cache]") {
  CacheRig rig(small_uni());
  // Pages 0 4 8 share set 0: writing 8 replaces 0 (least recently used),
  // whose data goes to the FTL. Reading 0 at 50 us misses and comes back
  // from the FTL with what was written.
  rig.run({{0, IoOp::Write, 0, 1, 0xA0},
           {1 * kUs, IoOp::Write, 4, 1, 0xB0},
           {2 * kUs, IoOp::Write, 8, 1, 0xC0},
           {50 * kUs, IoOp::Read, 0}});
  CHECK(rig.done[0] == kDramTime);  // a write hits DRAM only
  CHECK(rig.done[2] == 2 * kUs + kDramTime);
  // Two dirty evictions: 0 by 8 at 2 us, then 4 (now least recently used)
  // by the fill of 0 when the read's miss returns at 60 us.
  REQUIRE(rig.ftl.count(IoOp::Write) == 2);
  CHECK(rig.ftl.seen[0].op == IoOp::Write);
  CHECK(rig.ftl.seen[0].lpn == 0);
  CHECK(rig.ftl.seen[0].at == 2 * kUs);
  CHECK(rig.ftl.seen[2].lpn == 4);
  CHECK(rig.ftl.seen[2].at == 60 * kUs);
  CHECK(rig.stat("ssd.cache.dirty_evictions") == 2);
  CHECK(rig.page_is(3, 0, 0xA0));
  CHECK(rig.ftl.store[4][0] == 0xB0);
}

TEST_CASE("a read of a page under eviction is served from its copy and never from stale flash", "[ssd][cache]") {
  CacheRig rig(small_uni());
  rig.ftl.store[0].assign(kCachePage, 0x11);  // what flash held before
  // 0 written (0x22), then 4 and 8 push it out at 2 us; its write to the FTL
  // takes until 12 us. A read of 0 at 5 us finds the eviction copy.
  rig.run({{0, IoOp::Write, 0, 1, 0x22},
           {1 * kUs, IoOp::Write, 4, 1, 0x33},
           {2 * kUs, IoOp::Write, 8, 1, 0x44},
           {5 * kUs, IoOp::Read, 0}});
  CHECK(rig.page_is(3, 0, 0x22));
  CHECK(rig.ftl.count(IoOp::Read) == 0);
  CHECK(rig.stat("ssd.cache.eviction_copy_hits") == 1);
  CHECK(rig.done[3] == 5 * kUs);  // served from the copy at once
  CHECK(rig.ftl.store[0][0] == 0x22);
}

TEST_CASE("a page evicted twice reaches flash in write order", "[ssd][cache]") {
  CacheRig rig(small_uni());
  // 0 is written (1), evicted at 2 us, written again (2) at 3 us, evicted
  // again at 5 us while the first eviction is still at the FTL: the second
  // copy waits for the first, so flash ends with 2, not 1.
  rig.run({{0, IoOp::Write, 0, 1, 1},
           {1 * kUs, IoOp::Write, 4, 1, 9},
           {2 * kUs, IoOp::Write, 8, 1, 9},
           {3 * kUs, IoOp::Write, 0, 1, 2},
           {4 * kUs, IoOp::Write, 12, 1, 9},
           {5 * kUs, IoOp::Write, 16, 1, 9}});
  std::vector<vp::Tick> writes_of_0;
  for (const auto& s : rig.ftl.seen)
    if (s.op == IoOp::Write && s.lpn == 0) writes_of_0.push_back(s.at);
  REQUIRE(writes_of_0.size() == 2);
  CHECK(writes_of_0[0] == 2 * kUs);
  CHECK(writes_of_0[1] == 12 * kUs);  // when the first was on flash
  CHECK(rig.ftl.store[0][0] == 2);
}

TEST_CASE("flush writes back every dirty line and completes after them", "[ssd][cache]") {
  CacheRig rig(small_uni());
  // Three dirty pages in three sets; the Flush at 1 us sends their three
  // write-backs (on flash at 11 us), then the FTL's own Flush (done 21 us).
  rig.run({{0, IoOp::Write, 0, 1, 5}, {0, IoOp::Write, 1, 1, 6}, {0, IoOp::Write, 2, 1, 7}, {1 * kUs, IoOp::Flush, 0}});
  CHECK(rig.ftl.count(IoOp::Write) == 3);
  CHECK(rig.ftl.count(IoOp::Flush) == 1);
  CHECK(rig.done[3] == 1 * kUs + 2 * kFtlTime);
  CHECK(rig.stat("ssd.cache.write_backs") == 3);
  CHECK(rig.cache.tags()->dirty_lines() == 0);
  CHECK(rig.ftl.store[2][0] == 7);
}

TEST_CASE("an FUA write completes when the FTL has it and leaves a clean line", "[ssd][cache]") {
  CacheRig rig(small_uni());
  CacheOp w{0, IoOp::Write, 3, 2, 0x50};
  w.fua = true;
  rig.run({w, {20 * kUs, IoOp::Read, 3, 2}});
  CHECK(rig.done[0] == kFtlTime);  // the FTL's 10 us, after which both pages are on flash
  CHECK(rig.ftl.count(IoOp::Write) == 2);  // one per page, in each page's write order
  CHECK(rig.cache.tags()->dirty_lines() == 0);
  CHECK(rig.done[1] == 20 * kUs + kDramTime);  // both pages hit
  CHECK(rig.page_is(1, 0, 0x50));
  CHECK(rig.page_is(1, 1, 0x51));
  CHECK(rig.stat("ssd.cache.write_throughs") == 1);
}

TEST_CASE("with the write cache switched off writes go through", "[ssd][cache]") {
  CacheRig rig(small_uni());
  rig.cache.set_write_cache(false);
  CHECK_FALSE(rig.cache.volatile_write_cache());
  rig.run({{0, IoOp::Write, 7, 1, 0x70}});
  CHECK(rig.done[0] == kFtlTime);
  CHECK(rig.ftl.store[7][0] == 0x70);
}

TEST_CASE("without a cache every request goes to the FTL as it is", "[ssd][cache]") {
  CacheRig rig(Sets{{"ssd.cache.organisation", "none"}});
  CHECK_FALSE(rig.cache.volatile_write_cache());
  rig.run({{0, IoOp::Write, 1, 1, 0x42}, {20 * kUs, IoOp::Read, 1}});
  CHECK(rig.done[0] == kFtlTime);
  CHECK(rig.done[1] == 20 * kUs + kFtlTime);
  CHECK(rig.page_is(1, 0, 0x42));
  CHECK(rig.dram.reads + rig.dram.writes == 0);
}

TEST_CASE("an FUA write that bypasses a busy burst entry goes to the FTL once", "[ssd][cache]") {
  // Burst buffer (direct mapped, 4 entries): writing 4 at 1 us evicts 0 (at
  // the FTL 1-11 us), so entry 0 is busy when an FUA write of 8 comes at
  // 2 us: it bypasses the buffer, and being FUA must not be sent again by
  // the write-through: the FTL sees 8 once, done at 2 + 10 us.
  CacheRig rig(small_burst());
  CacheOp fua{2 * kUs, IoOp::Write, 8, 1, 0xC0};
  fua.fua = true;
  rig.run({{0, IoOp::Write, 0, 1, 0xA0}, {1 * kUs, IoOp::Write, 4, 1, 0xB0}, fua});
  size_t eights = 0;
  for (const auto& s : rig.ftl.seen) eights += s.op == IoOp::Write && s.lpn == 8;
  CHECK(eights == 1);
  CHECK(rig.done[2] == 2 * kUs + kFtlTime);
  CHECK(rig.ftl.store[8][0] == 0xC0);
}
