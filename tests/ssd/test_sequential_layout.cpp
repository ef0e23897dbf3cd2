// SPDX-License-Identifier: BSD-3-Clause
// SequentialLayout as a FillRule: what it says each block holds is what a
// preconditioning pass writing the blocks one by one leaves.
#include <catch2/catch.hpp>

#include <map>

#include "vp/ssd/ftl/precondition/SequentialLayout.hpp"

using vp::flash::BlockFill;
using vp::ssd::SequentialLayout;

TEST_CASE("a sequential layout says what each block holds: data from the plane's first block, then translation pages",
          "[ssd][ftl][layout]") {
  // 4 units on planes 2, 0, 3, 1 (of 8 blocks of 4 pages); 50 data pages and
  // 9 translation pages from lpn 64.
  const std::vector<uint64_t> stripe{2, 0, 3, 1};
  const uint64_t bpp = 8, ppb = 4, data = 50, tps = 9, tp_first = 64, units = 4;
  for (bool permuted : {false, true}) {
    vp::RandomPermutation order(64, 3);
    SequentialLayout lay(stripe, bpp, ppb, data, tp_first, tps, permuted ? &order : nullptr);
    // The pass, block by block: unit u's i-th page is the (u + 4i)-th written,
    // 13 data pages for units 0 and 1 (4 blocks, the last with one page), 12
    // for 2 and 3 (3 full blocks); 3, 2, 2, 2 translation pages after them.
    std::map<uint64_t, BlockFill> want;
    for (uint64_t u = 0; u < units; ++u) {
      const uint64_t d = data / units + (u < data % units), t = tps / units + (u < tps % units);
      for (uint64_t k = 0; k * ppb < d; ++k)
        want[stripe[u] * bpp + k] = {uint32_t(std::min(ppb, d - k * ppb)), uint32_t(u + units * k * ppb), 4, permuted};
      const uint64_t base = (d + ppb - 1) / ppb;
      for (uint64_t k = 0; k * ppb < t; ++k)
        want[stripe[u] * bpp + base + k] = {uint32_t(std::min(ppb, t - k * ppb)), uint32_t(tp_first + u + units * k * ppb), 4,
                                            false};
    }
    CHECK(want.size() == 4 + 4 + 3 + 3 + 4);
    CHECK(want.at(2 * 8 + 3).pages == 1);  // unit 0: 13 pages, the fourth block holds one
    CHECK(want.at(2 * 8 + 4).first_lpn == 64);
    for (uint64_t b = 0; b < 4 * bpp; ++b) {
      const BlockFill got = lay.fill_of(b);
      const BlockFill w = want.count(b) ? want.at(b) : BlockFill{};
      INFO("block " << b);
      CHECK(got.pages == w.pages);
      if (!w.pages) continue;
      CHECK(got.first_lpn == w.first_lpn);
      CHECK(got.lpn_stride == w.lpn_stride);
      CHECK(got.permuted == w.permuted);
      // The rule's pages are where the map's rule puts their logical pages.
      for (uint32_t p = 0; p < got.pages; ++p) {
        uint64_t i = got.first_lpn + uint64_t(p) * got.lpn_stride;
        uint64_t lpn = got.permuted ? order(i) : i;
        CHECK(lay.at(lpn) == b * ppb + p);
      }
    }
  }
}
