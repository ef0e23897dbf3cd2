// SPDX-License-Identifier: BSD-3-Clause
// The block-count model of one plane's ageing (SteadyStateAger), worked by
// hand on planes small enough to follow write by write.
#include <catch2/catch.hpp>

#include <numeric>

#include "vp/ssd/ftl/precondition/SteadyStateAger.hpp"

using vp::ssd::SteadyStateAger;
using Kind = SteadyStateAger::Kind;

namespace {
SteadyStateAger::Params plane(uint64_t blocks, uint64_t ppb, uint64_t fill, uint64_t overwrites) {
  SteadyStateAger::Params p;
  p.blocks = blocks;
  p.pages_per_block = ppb;
  p.fill_pages = fill;
  p.overwrites = overwrites;
  p.seed = 7;
  return p;
}
uint64_t valid(const SteadyStateAger& a) {
  uint64_t v = 0;
  for (const auto& b : a.blocks()) v += b.valid;
  return v;
}
}  // namespace

TEST_CASE("the fill takes the plane's first blocks, the last one partly and counted full", "[ssd][ageing]") {
  SteadyStateAger a(plane(8, 4, 10, 0));  // 10 pages: blocks 0 and 1 full, block 2 with 2 valid
  a.run();
  const auto& b = a.blocks();
  CHECK(b[0].kind == Kind::Full);
  CHECK(b[0].valid == 4);
  CHECK(b[1].valid == 4);
  CHECK(b[2].kind == Kind::Full);
  CHECK(b[2].written == 4);
  CHECK(b[2].valid == 2);
  CHECK(b[3].kind == Kind::Free);
  CHECK(a.free_order() == std::vector<uint32_t>{3, 4, 5, 6, 7});
  CHECK(a.moved() == 0);
}

TEST_CASE("overwrites keep the valid pages, fill the host block in order and open the next free one", "[ssd][ageing]") {
  // 8 blocks of 4, 10 valid: 6 overwrites fill block 3 (4 pages) and put 2
  // in block 4; free blocks 5-7 stay at 3, above the GC threshold of 2, so
  // nothing is collected.
  SteadyStateAger a(plane(8, 4, 10, 6));
  a.run();
  const auto& b = a.blocks();
  CHECK(valid(a) == 10);
  CHECK(b[3].kind == Kind::Full);
  CHECK(b[3].written == 4);
  CHECK(b[4].kind == Kind::Host);
  CHECK(b[4].written == 2);
  CHECK(a.free_order() == std::vector<uint32_t>{5, 6, 7});
  CHECK(a.moved() == 0);
  // The 6 invalidations fell on the 10 pages there were (the fill's or the
  // new ones): blocks 0-2 lost what blocks 3-4 gained over their 6 writes.
  CHECK(b[0].valid + b[1].valid + b[2].valid + (b[3].valid + b[4].valid) == 10);
  CHECK(b[3].valid + b[4].valid <= 6);
}

TEST_CASE("GC keeps two free blocks and moves only what is valid, least-erased blocks reused first", "[ssd][ageing]") {
  // 4 valid pages in 12 blocks of 4: at least 8 full blocks hold nothing
  // valid once written over, so every victim GC picks (the fewest valid)
  // is empty: no page ever moves, whatever the draws. 200 overwrites of 4
  // pages a block: 50 blocks opened for the host, so about 48 collected.
  SteadyStateAger a(plane(12, 4, 4, 200));
  a.run();
  CHECK(a.moved() == 0);
  CHECK(valid(a) == 4);
  CHECK(a.free_order().size() == 2);
  uint64_t erases = 0;
  for (const auto& b : a.blocks()) erases += b.erases;
  // 51 blocks were written (the fill's and 50 host blocks) on 12: at the
  // end the last host block is full and the pool holds the 2 GC keeps (it
  // collects as soon as opening a block leaves 1), so 51 - (12 - 2) = 41
  // erases.
  CHECK(erases == 41);
  // Wear aware: the pool hands out its least-erased block first.
  auto order = a.free_order();
  for (size_t i = 1; i < order.size(); ++i) CHECK(a.blocks()[order[i - 1]].erases <= a.blocks()[order[i]].erases);
}

TEST_CASE("a full plane with nothing to reclaim is reported, not looped on", "[ssd][ageing]") {
  // 3 blocks of 4, 8 pages valid: the first overwrite invalidates a page of
  // block 0 or 1 and needs a host block with only the reserve left, so GC
  // moves that block's 3 valid pages to block 2 and erases it; the reserve
  // is still all there is, and the other full block has no invalid page.
  SteadyStateAger a(plane(3, 4, 8, 1));
  CHECK_THROWS_AS(a.run(), SteadyStateAger::Full);
  // A fill larger than the plane is reported the same way.
  SteadyStateAger b(plane(2, 4, 9, 0));
  CHECK_THROWS_AS(b.run(), SteadyStateAger::Full);
}

TEST_CASE("same seed, same aged plane", "[ssd][ageing]") {
  auto p = plane(64, 32, 1500, 3000);
  SteadyStateAger a(p), b(p);
  a.run();
  b.run();
  for (size_t i = 0; i < a.blocks().size(); ++i) CHECK(a.blocks()[i].valid == b.blocks()[i].valid);
  CHECK(a.moved() == b.moved());
  CHECK(a.moved() > 0);
}
