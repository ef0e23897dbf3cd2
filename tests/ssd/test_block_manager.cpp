// SPDX-License-Identifier: BSD-3-Clause
// The FTL's block table: a block full by rule keeps its first invalidated
// pages inline and takes a bitmap only past them, with the same answers.
#include <catch2/catch.hpp>

#include "vp/ssd/BlockManager.hpp"

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
