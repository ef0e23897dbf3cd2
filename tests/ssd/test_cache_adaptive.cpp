// SPDX-License-Identifier: BSD-3-Clause
// FlashShare's adaptive cache organisations on the cache rig (FTL 10 us per
// request, DRAM 100 ns per access; tests/ssd/CacheRig.hpp): uni-dyn's ghost
// caches choosing the prefetch granularity, split's way split following the
// classes' accesses, and the read-only handover of OSDI'18 Figure 8.
#include <catch2/catch.hpp>

#include "tests/ssd/CacheRig.hpp"
#include "vp/ssd/cache/SplitPolicy.hpp"

using namespace vp::test;
using vp::ssd::IoOp;

namespace {
constexpr vp::Tick kUs = 1000 * kCacheNs;

// One set of 16 ways (64 KiB of 4 KiB pages), ghosts trying 0, 4 and 16
// pages of read-ahead, epochs of 100 us.
Sets uni_dyn16() {
  return {{"ssd.cache.organisation", "uni-dyn"},
          {"ssd.cache.size", "64KiB"},
          {"ssd.cache.ways", "16"},
          {"ssd.cache.ghost_granularities", "4,0,16"},  // sorted by the model
          {"ssd.cache.epoch", "100us"}};
}

// Epoch 0: pages 0..15 read one at a time, 5 us apart.
std::vector<CacheOp> sequential16() {
  std::vector<CacheOp> ops;
  for (uint64_t p = 0; p < 16; ++p) ops.push_back({p * 5 * kUs, IoOp::Read, p});
  return ops;
}

const vp::ssd::SplitPolicy& split_of(const CacheRig& rig) {
  const auto* s = dynamic_cast<const vp::ssd::SplitPolicy*>(rig.cache.policy());
  REQUIRE(s != nullptr);
  return *s;
}

// Figure 8: one set of four ways a b c d; latency-critical starts with a b,
// throughput with c d; epochs of 100 us, high demand from 8 accesses, no
// prefetch. Epoch 0: latency-critical writes 10 (into a) and 11 (into b),
// throughput writes 20 (c) and 21 (d) and reads them twice: 2 latency and
// 6 throughput accesses. Then the figure's requests: 1 = a latency-critical
// read of 11, 2..4 = throughput writes of 30, 31, 32; afterwards the test
// reads 30..32 (throughput) and 11 (latency-critical).
Sets figure8(const char* demand) {
  return {{"ssd.cache.organisation", "split"},   {"ssd.cache.size", "16KiB"},
          {"ssd.cache.ways", "4"},               {"ssd.cache.split_lat_share", "0.5"},
          {"ssd.cache.split_demand", demand},    {"ssd.cache.epoch", "100us"},
          {"ssd.cache.ghost_granularities", "0"}};
}
std::vector<CacheOp> figure8_ops() {
  return {{0, IoOp::Write, 10, 1, 0x10, 1},
          {1 * kUs, IoOp::Write, 11, 1, 0x11, 1},
          {2 * kUs, IoOp::Write, 20, 1, 0x20},
          {3 * kUs, IoOp::Write, 21, 1, 0x21},
          {4 * kUs, IoOp::Read, 20},
          {5 * kUs, IoOp::Read, 21},
          {6 * kUs, IoOp::Read, 20},
          {7 * kUs, IoOp::Read, 21},
          {100 * kUs, IoOp::Read, 11, 1, 0, 1},  // request 1
          {101 * kUs, IoOp::Write, 30, 1, 0x30},  // request 2
          {102 * kUs, IoOp::Write, 31, 1, 0x31},  // request 3
          {103 * kUs, IoOp::Write, 32, 1, 0x32},  // request 4
          {150 * kUs, IoOp::Read, 30, 3},
          {160 * kUs, IoOp::Read, 11, 1, 0, 1}};
}
}  // namespace

TEST_CASE("uni-dyn adopts the large prefetch granularity after a sequential epoch", "[ssd][cache][adaptive]") {
  CacheRig rig(uni_dyn16());
  auto ops = sequential16();
  ops.push_back({100 * kUs, IoOp::Read, 200});  // the first access of epoch 1
  rig.run(ops);
  auto ep = rig.cache.epochs(vp::now_ps());
  REQUIRE(ep.size() == 2);
  CHECK(ep[0].granularities == std::vector<uint32_t>{0, 4, 16});
  // Ghost 0 misses all 16 pages. Ghost 4 misses 0 (bringing 1-4), 5, 10,
  // 15: 4. Ghost 16 misses 0 and brings 1-16: 1 (page 0, least recently
  // used, gives way to page 16 in the 16-way set, but is not read again).
  CHECK(ep[0].ghost_misses[0] == std::vector<uint64_t>{16, 4, 1});
  CHECK(ep[0].prefetch[0] == 0);       // the cache starts with the smallest
  CHECK(ep[0].read_misses[0] == 16);   // so the real cache missed every page
  CHECK(ep[0].accesses[0] == 16);
  CHECK(ep[1].index == 1);
  CHECK(ep[1].prefetch[0] == 16);
  // Page 200 misses in epoch 1: the FTL gets it and then 201..216, a page each.
  REQUIRE(rig.ftl.seen.size() == 16 + 1 + 16);
  for (uint64_t i = 0; i <= 16; ++i) {
    CHECK(rig.ftl.seen[16 + i].lpn == 200 + i);
    CHECK(rig.ftl.seen[16 + i].pages == 1);
  }
  CHECK(rig.stat("ssd.cache.prefetched_pages") == 16);
  CHECK(rig.stat("ssd.cache.prefetch_changes") == 1);
  CHECK(rig.stat("ssd.cache.epochs") == 1);
}

TEST_CASE("uni-dyn drops the prefetch again after an epoch of random reads", "[ssd][cache][adaptive]") {
  CacheRig rig(uni_dyn16());
  auto ops = sequential16();
  // Epoch 1: 1000, 2000, 3000, 4000 read twice, 12 us apart, then 5000 at 200 us.
  uint64_t pages[4] = {1000, 2000, 3000, 4000};
  for (int k = 0; k < 8; ++k) ops.push_back({(100 + 12 * uint64_t(k)) * kUs, IoOp::Read, pages[k % 4]});
  ops.push_back({200 * kUs, IoOp::Read, 5000});
  rig.run(ops);
  auto ep = rig.cache.epochs(vp::now_ps());
  REQUIRE(ep.size() == 3);
  CHECK(ep[1].prefetch[0] == 16);  // the sequential epoch 0 chose 16
  // Ghost 0: the four pages miss once, then hit: 4. Ghost 4: each miss
  // takes 5 lines, 20 > 16, so 4000's run pushes out 1000 and its first
  // three followers and every read misses: 8. Ghost 16: each miss takes 17
  // lines, more than the set: 8.
  CHECK(ep[1].ghost_misses[0] == std::vector<uint64_t>{4, 8, 8});
  // The real cache, prefetching 16 into a 16-way set, lost each page to its
  // own read-ahead: 8 misses, 8 x 16 pages prefetched.
  CHECK(ep[1].read_misses[0] == 8);
  CHECK(rig.stat("ssd.cache.prefetched_pages") == 128);
  CHECK(ep[2].prefetch[0] == 0);
  // 5000 in epoch 2 goes alone: no read-ahead.
  CHECK(rig.ftl.seen.back().lpn == 5000);
  CHECK(rig.ftl.seen.back().pages == 1);
  CHECK(rig.stat("ssd.cache.prefetch_changes") == 2);
}

TEST_CASE("split follows the classes access counts at the end of a busy epoch", "[ssd][cache][adaptive]") {
  // One set of 8 ways, 4 each at first; high demand from 8 accesses per 100 us epoch.
  CacheRig rig({{"ssd.cache.organisation", "split"},
                {"ssd.cache.size", "32KiB"},
                {"ssd.cache.ways", "8"},
                {"ssd.cache.split_demand", "8"},
                {"ssd.cache.epoch", "100us"},
                {"ssd.cache.ghost_granularities", "0"}});
  std::vector<CacheOp> ops;
  auto at = [&](vp::Tick base, int i) { return base * kUs + vp::Tick(i) * 2 * kUs; };
  int i = 0;
  // Epoch 0: 3 latency-critical and 5 throughput reads: 8 x 3/8 = 3 ways.
  for (int k = 0; k < 3; ++k) ops.push_back({at(0, i++), IoOp::Read, uint64_t(100 + k), 1, 0, 1});
  for (int k = 0; k < 5; ++k) ops.push_back({at(0, i++), IoOp::Read, uint64_t(200 + k)});
  // Epoch 1: 8 throughput reads: 8 x 0/8 = 0, at least one way: 1.
  i = 0;
  for (int k = 0; k < 8; ++k) ops.push_back({at(100, i++), IoOp::Read, uint64_t(300 + k)});
  // Epoch 2: 6 latency-critical reads and 1 throughput: 7 < 8, low demand, no change.
  i = 0;
  for (int k = 0; k < 6; ++k) ops.push_back({at(200, i++), IoOp::Read, uint64_t(400 + k), 1, 0, 1});
  ops.push_back({at(200, i++), IoOp::Read, 500});
  ops.push_back({300 * kUs, IoOp::Read, 600});  // closes epoch 2
  rig.run(ops);
  auto ep = rig.cache.epochs(vp::now_ps());
  REQUIRE(ep.size() == 4);
  CHECK(ep[0].ways[1] == 4);
  CHECK(ep[0].ways[0] == 4);
  CHECK(ep[0].accesses[1] == 3);
  CHECK(ep[0].accesses[0] == 5);
  CHECK(ep[1].ways[1] == 3);
  CHECK(ep[1].ways[0] == 5);
  CHECK(ep[2].ways[1] == 1);
  CHECK(ep[2].ways[0] == 7);
  CHECK(ep[3].ways[1] == 1);
  CHECK(split_of(rig).lat_ways() == 1);
  CHECK(rig.stat("ssd.cache.split_changes") == 2);
  // Throughput fills only its ways 1..7: the 8 reads of epoch 1 and 500,
  // 600 after it leave way 0 with a latency-critical page.
  const auto* tags = rig.cache.tags();
  CHECK(tags->line(0).owner == 1);
}

TEST_CASE("Figure 8 an adjusted split keeps the old owner data readable until the new owner writes the way",
          "[ssd][cache][adaptive]") {
  CacheRig rig(figure8("8"));
  rig.run(figure8_ops());
  // Epoch 0 had 2 latency-critical and 6 throughput accesses, 8 >= 8: the
  // latency-critical ways become round(4 x 2/8) = 1, way a; b c d are throughput's.
  CHECK(split_of(rig).lat_ways() == 1);
  // Request 1 reads 11 from way b, now throughput's, read-only: a DRAM hit.
  CHECK(rig.done[8] == 100 * kUs + kDramTime);
  CHECK(rig.page_is(8, 0, 0x11));
  // Requests 2..4 take the least recently used of b c d in turn: c (20,
  // last read at 6 us), d (21, at 7 us), then b (11, read by request 1):
  // all three fit, and the later read of 30..32 hits three times.
  const auto* tags = rig.cache.tags();
  CHECK(tags->find(30) == 2);
  CHECK(tags->find(31) == 3);
  CHECK(tags->find(32) == 1);
  CHECK(rig.done[12] == 150 * kUs + kDramTime);
  CHECK(rig.stat("ssd.cache.thr.read_hits") == 7);  // 4 in epoch 0 and 30, 31, 32
  CHECK(rig.stat("ssd.cache.thr.read_misses") == 0);
  // Request 4's write ended 11's read-only life: the next read of 11 misses
  // and gets the data 11's eviction wrote to the FTL.
  CHECK(rig.stat("ssd.cache.lat.read_hits") == 1);
  CHECK(rig.stat("ssd.cache.lat.read_misses") == 1);
  CHECK(rig.done[13] == 160 * kUs + kFtlTime + kDramTime);
  CHECK(rig.page_is(13, 0, 0x11));
  // Dirty evictions: 20, 21, 11 by requests 2..4, and 10 from way a when 11 came back.
  CHECK(rig.stat("ssd.cache.dirty_evictions") == 4);
  CHECK(tags->find(11) == 0);
}

TEST_CASE("Figure 8 with a fixed split requests 2 to 4 compete for the throughput ways", "[ssd][cache][adaptive]") {
  CacheRig rig(figure8("1000"));  // demand never high: the split stays 2 and 2
  rig.run(figure8_ops());
  CHECK(split_of(rig).lat_ways() == 2);
  // Requests 2..4 go to c (20 least recent), d, then c again: 32 replaces
  // 30. Reading 30..32: 30 misses, 31 and 32 hit; 30 comes back into d,
  // replacing 31 (touched before 32 by that read). 11 stays in way b and hits twice.
  const auto* tags = rig.cache.tags();
  CHECK(tags->find(32) == 2);
  CHECK(tags->find(30) == 3);
  CHECK(tags->find(31) == -1);
  CHECK(rig.stat("ssd.cache.thr.read_misses") == 1);
  CHECK(rig.stat("ssd.cache.thr.read_hits") == 6);
  CHECK(rig.stat("ssd.cache.lat.read_hits") == 2);
  CHECK(rig.done[13] == 160 * kUs + kDramTime);
  // 30 comes back intact from the FTL its eviction wrote it to.
  CHECK(rig.page_is(12, 0, 0x30));
}

TEST_CASE("uni-dyn takes the smaller granularity when the ghosts miss alike", "[ssd][cache][adaptive]") {
  CacheRig rig(uni_dyn16());
  auto ops = sequential16();  // epoch 0 chooses 16
  // Epoch 1: three far-apart pages read once each: every ghost misses 3
  // times, a tie, so the smallest granularity, 0, is taken.
  ops.push_back({100 * kUs, IoOp::Read, 1000});
  ops.push_back({112 * kUs, IoOp::Read, 2000});
  ops.push_back({124 * kUs, IoOp::Read, 3000});
  ops.push_back({200 * kUs, IoOp::Read, 5000});
  rig.run(ops);
  auto ep = rig.cache.epochs(vp::now_ps());
  REQUIRE(ep.size() == 3);
  CHECK(ep[1].ghost_misses[0] == std::vector<uint64_t>{3, 3, 3});
  CHECK(ep[1].prefetch[0] == 16);
  CHECK(ep[2].prefetch[0] == 0);
}
