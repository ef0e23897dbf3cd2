// SPDX-License-Identifier: BSD-3-Clause
// The FTL's block table: a block full by rule keeps its first invalidated
// pages inline and takes a bitmap only past them, with the same answers.
#include <catch2/catch.hpp>

#include <vector>

#include "vp/ssd/ftl/BlockManager.hpp"

using vp::ssd::BlockInfo;
using vp::ssd::BlockManager;

namespace {
vp::flash::FlashGeometry one_plane() {
  vp::flash::FlashGeometry g;
  g.channels = g.packages_per_channel = g.dies_per_package = g.planes_per_die = 1;
  g.blocks_per_plane = 4;
  g.pages_per_block = 128;
  return g;
}
}  // namespace

TEST_CASE("a block full by rule keeps its first four invalidated pages inline, then a bitmap", "[ssd][blocks]") {
  BlockManager m(one_plane(), true);
  m.fill_by_rule(1, 100);  // pages 0-99 valid, 100-127 never written
  const uint64_t no_bitmap = m.host_bytes();
  for (uint32_t p : {7u, 99u, 0u, 64u}) m.invalidate(1, p);
  CHECK(m[1].valid == 96);
  CHECK(m.host_bytes() == no_bitmap);  // four holes: still no bitmap
  for (uint32_t p : {7u, 99u, 0u, 64u, 100u, 127u}) CHECK_FALSE(m.valid(1, p));
  CHECK(m.valid(1, 1));
  CHECK(m.valid(1, 98));
  // Invalidating a hole again, or a page past the rule, is a logic error.
  CHECK_THROWS_AS(m.invalidate(1, 64), std::logic_error);
  CHECK_THROWS_AS(m.invalidate(1, 100), std::logic_error);
  // The fifth takes the bitmap (2 words of 64 pages), which keeps the holes.
  m.invalidate(1, 50);
  CHECK(m.host_bytes() == no_bitmap + 2 * 8);
  CHECK(m[1].valid == 95);
  uint32_t valid = 0;
  for (uint32_t p = 0; p < 128; ++p) valid += m.valid(1, p);
  CHECK(valid == 95);
  for (uint32_t p : {7u, 99u, 0u, 64u, 50u}) CHECK_FALSE(m.valid(1, p));
  CHECK_THROWS_AS(m.invalidate(1, 7), std::logic_error);
  // Erased and reused: no holes left behind.
  m.erased(1);
  m.fill_by_rule(1, 10);
  CHECK(m[1].nholes == 0);
  CHECK(m.valid(1, 7));
  CHECK(sizeof(BlockInfo) <= 48);
}

namespace {
vp::flash::FlashGeometry two_planes() {
  vp::flash::FlashGeometry g;
  g.channels = g.packages_per_channel = g.dies_per_package = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = 8;
  g.pages_per_block = 128;
  return g;
}
std::vector<uint64_t> drain(BlockManager& m, uint64_t plane) {
  std::vector<uint64_t> order;
  for (uint64_t b; m.take_free(plane, b);) order.push_back(b);
  return order;
}
}  // namespace

TEST_CASE("free pools: first in first out, or least erased then lowest block, over runs of blocks", "[ssd][blocks]") {
  for (bool wear : {false, true}) {
    BlockManager m(two_planes(), wear);
    m.add_free_all();
    CHECK(m.free_count(0) == 8);
    CHECK(m.free_total() == 16);
    uint64_t b;
    for (uint64_t want : {0u, 1u, 2u, 3u}) {
      REQUIRE(m.take_free(0, b));
      CHECK(b == want);
    }
    // Back in the order 3, 1, 2, 0, each erased once more.
    for (uint64_t e : {3u, 1u, 2u, 0u}) m.erased(e);
    CHECK(m.free_count(0) == 8);
    // Fresh blocks first either way; then the order they came back, or by block.
    std::vector<uint64_t> want = wear ? std::vector<uint64_t>{4, 5, 6, 7, 0, 1, 2, 3} : std::vector<uint64_t>{4, 5, 6, 7, 3, 1, 2, 0};
    CHECK(drain(m, 0) == want);
    CHECK(m.free_count(0) == 0);
    CHECK_FALSE(m.take_free(0, b));
    CHECK(drain(m, 1) == std::vector<uint64_t>{8, 9, 10, 11, 12, 13, 14, 15});
  }
  // By erase count: a block erased twice goes after those erased once.
  BlockManager m(two_planes(), true);
  m.add_free_all();
  uint64_t b;
  for (int k = 0; k < 8; ++k) m.take_free(0, b);
  for (uint64_t e : {5u, 6u, 7u}) m.erased(e);
  REQUIRE(m.take_free(0, b));
  CHECK(b == 5);
  m.erased(5);  // twice now
  for (uint64_t e : {0u, 1u}) m.erased(e);
  CHECK(drain(m, 0) == std::vector<uint64_t>{0, 1, 6, 7, 5});
}

namespace {
// Blocks 0 and 1 of plane 0 and block 8 (plane 1's first) were filled.
struct Fill : vp::flash::FillRule {
  vp::flash::BlockFill fill_of(uint64_t b) const override {
    return {b == 0 ? 128u : b == 1 ? 100u : b == 8 ? 50u : 0u, 0, 1, false};
  }
};
}  // namespace

TEST_CASE("blocks filled by a rule keep no record until used, and read as filled", "[ssd][blocks]") {
  Fill rule;
  BlockManager m(two_planes(), false);
  const uint64_t empty = m.host_bytes();
  m.set_fill_rule(&rule);
  m.add_free_all();
  CHECK(m.host_bytes() == empty);  // one run per plane, no record
  CHECK(m.free_count(0) == 6);
  CHECK(m.free_count(1) == 7);
  const BlockManager& cm = m;
  CHECK(cm[1].state == vp::ssd::BlockState::Full);
  CHECK(cm[1].valid == 100);
  CHECK(m.host_bytes() == empty + 256 * sizeof(BlockInfo));  // reading a filled block made its chunk of 256
  CHECK(m.valid(1, 99));
  CHECK_FALSE(m.valid(1, 100));
  CHECK(m.full(1));
  m.invalidate(8, 3);
  CHECK(cm[8].valid == 49);
  CHECK(cm[2].state == vp::ssd::BlockState::Free);
  uint64_t b;
  REQUIRE(m.take_free(0, b));
  CHECK(b == 2);
  REQUIRE(m.take_free(1, b));
  CHECK(b == 9);
  const auto w = m.wear();
  CHECK(w.blocks == 16);
  CHECK(w.max == 0);
}

TEST_CASE("a fresh terabyte drive's block table costs its directory and pools, not 48 bytes a block", "[ssd][blocks]") {
  vp::flash::FlashGeometry g;  // FlashShare's Z-SSD: 16 x 8 x 8 = 1024 planes of 1024 blocks of 512 pages
  g.channels = 16;
  g.packages_per_channel = 1;
  g.dies_per_package = 8;
  g.planes_per_die = 8;
  g.blocks_per_plane = 1024;
  g.pages_per_block = 512;
  BlockManager m(g, false);
  m.add_free_all();
  CHECK(m.free_total() == (uint64_t(1) << 20));
  // 2^20 blocks: 2^12 chunk pointers (32 KiB) and 1024 pools of a few words
  // (under 64 KiB); a record per block would be 48 MiB.
  CHECK(m.host_bytes() < 96 * 1024);
  uint64_t b;
  REQUIRE(m.take_free(1023, b));
  CHECK(b == 1023 * 1024);
  m.open(b, 0);
  m.use(b, 0, 0);
  CHECK(m.host_bytes() < 96 * 1024 + 256 * sizeof(BlockInfo) + 64);
  const auto w = m.wear();
  CHECK(w.blocks == (uint64_t(1) << 20));
  CHECK(w.min == 0);
}
