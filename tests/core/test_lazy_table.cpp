// SPDX-License-Identifier: BSD-3-Clause
// LazyTable: a chunk exists once one of its entries is written (or, with a
// filler, read); memory counted by hand.
#include <catch2/catch.hpp>

#include <tuple>
#include <utility>
#include <vector>

#include "vp/core/LazyTable.hpp"

using vp::LazyTable;

TEST_CASE("a lazy table makes a chunk at the first write to it, and reads of the others are T{}", "[core][lazy]") {
  LazyTable<uint64_t, 2> t(10);  // chunks of 4: [0,4) [4,8) [8,10)
  const uint64_t directory = sizeof(uint64_t);  // the bitmap of chunks made: one word
  CHECK(t.size() == 10);
  CHECK(t.host_bytes() == directory);
  CHECK(t[9] == 0);
  CHECK(t.find(5) == nullptr);
  CHECK(t.host_bytes() == directory);  // reading made nothing
  t.at(5) = 55;
  CHECK(t.host_bytes() == directory + 4 * sizeof(uint64_t));
  CHECK(t[5] == 55);
  CHECK(t[4] == 0);
  REQUIRE(t.find(6) != nullptr);
  *t.find(6) = 66;
  CHECK(t[6] == 66);
  t.at(9) = 99;  // the short last chunk is a whole chunk in memory
  CHECK(t.host_bytes() == directory + 8 * sizeof(uint64_t));
  std::vector<std::tuple<uint64_t, uint64_t, bool>> seen;
  std::as_const(t).for_each_chunk([&](uint64_t first, uint64_t n, const uint64_t* c) { seen.emplace_back(first, n, c != nullptr); });
  CHECK(seen == std::vector<std::tuple<uint64_t, uint64_t, bool>>{{0, 4, false}, {4, 4, true}, {8, 2, true}});
  t.clear();
  CHECK(t.host_bytes() == directory);
  CHECK(t[5] == 0);
  // Moved whole: the entries go with it.
  t.at(1) = 11;
  LazyTable<uint64_t, 2> u(std::move(t));
  CHECK(u[1] == 11);
}

TEST_CASE("a lazy table with a filler reads its rule, and makes the chunk read or written", "[core][lazy]") {
  LazyTable<uint32_t, 2> t(10);
  t.at(1) = 7;  // made before the filler: kept as it is
  int calls = 0;
  t.set_filler([&](uint64_t first, uint64_t n, uint32_t* out) {
    ++calls;
    for (uint64_t k = 0; k < n; ++k) out[k] = static_cast<uint32_t>(100 + first + k);
  });
  CHECK(t[1] == 7);
  CHECK(t[0] == 0);
  CHECK(calls == 0);
  t.prefetch(5);  // a cache hint: makes nothing, runs no filler
  t.prefetch(9);
  CHECK(calls == 0);
  CHECK(t.host_bytes() == sizeof(uint64_t) + 4 * sizeof(uint32_t));
  CHECK(t[9] == 109);  // the short last chunk: entries 8 and 9 only
  CHECK(calls == 1);
  CHECK(t[8] == 108);
  CHECK(calls == 1);  // made once
  t.at(5) += 1;
  CHECK(t[5] == 106);
  CHECK(t[4] == 104);
  CHECK(calls == 2);
  CHECK(t.host_bytes() == sizeof(uint64_t) + 3 * 4 * sizeof(uint32_t));
}
