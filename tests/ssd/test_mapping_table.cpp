// SPDX-License-Identifier: BSD-3-Clause
// The FTL's mapping table: entries set over a rule, a chunk holding only
// what was set until it is many, and memory counted by hand.
#include <catch2/catch.hpp>

#include "vp/ssd/ftl/MappingTable.hpp"

using vp::ssd::MappingTable;

namespace {
// A sequential layout: lpn k on ppn 1000 + k.
struct Layout : vp::ssd::MapRule {
  uint32_t at(uint64_t lpn) const override { return lpn < 600 ? 1000 + static_cast<uint32_t>(lpn) : MappingTable::kUnmapped; }
};
}  // namespace

TEST_CASE("entries set over a rule read back, the others follow the rule, and memory is what was set",
          "[ssd][ftl][map]") {
  Layout rule;
  MappingTable t(1000);  // 4 chunks of 256 (the last has 232)
  t.set_rule(&rule);
  // The chunks' pointers come 512 to a page, made at the first set: one
  // pointer to the page before, and the page's 512 after.
  const uint64_t untouched = sizeof(void*), pointers = untouched + 512 * sizeof(void*);
  CHECK(t.host_bytes() == untouched);
  CHECK(t.get(5) == 1005);
  CHECK(t.get(700) == MappingTable::kUnmapped);
  CHECK_FALSE(t.touched(5));
  // Three entries of chunk 0, set out of order: 2 header words and 4 pairs of capacity.
  t.set(200, 7);
  t.set(3, 8);
  t.set(100, 9);
  CHECK(t.touched(0));
  CHECK(t.host_bytes() == pointers + 4 * (2 + 2 * 4));
  CHECK(t.get(3) == 8);
  CHECK(t.get(100) == 9);
  CHECK(t.get(200) == 7);
  CHECK(t.get(4) == 1004);  // not set: still the rule
  t.set(100, 10);           // set again: replaced, no growth
  CHECK(t.get(100) == 10);
  CHECK(t.host_bytes() == pointers + 4 * (2 + 2 * 4));
  // 32 pairs fill the sparse form (capacity 32); the 33rd makes the chunk whole.
  for (uint64_t k = 0; k < 32; ++k) t.set(256 + 2 * k, uint32_t(k));
  CHECK(t.host_bytes() == pointers + 4 * (2 + 2 * 4) + 4 * (2 + 2 * 32));
  t.set(256 + 101, 77);
  CHECK(t.host_bytes() == pointers + 4 * (2 + 2 * 4) + 4 * (2 + 256));
  for (uint64_t k = 0; k < 32; ++k) CHECK(t.get(256 + 2 * k) == k);
  CHECK(t.get(256 + 101) == 77);
  CHECK(t.get(256 + 1) == 1000 + 257);  // the rest from the rule
  CHECK(t.get(511) == 1000 + 511);
  // The short last chunk, without a rule after clear(): unmapped but what is set.
  t.clear();
  CHECK(t.host_bytes() == untouched);
  t.set(999, 5);
  CHECK(t.get(999) == 5);
  CHECK(t.get(998) == MappingTable::kUnmapped);
  CHECK(t.get(3) == MappingTable::kUnmapped);
  for (uint64_t k = 768; k < 1000; ++k) t.set(k, uint32_t(k));
  for (uint64_t k = 768; k < 1000; ++k) CHECK(t.get(k) == k);
  CHECK(t.host_bytes() == pointers + 4 * (2 + 256));
}
