// SPDX-License-Identifier: BSD-3-Clause
// The flash array's page store: verify data kept as its units' names and
// made again on a read, anything else kept whole, memory counted by hand.
#include <catch2/catch.hpp>

#include <vector>

#include "vp/core/VerifyPattern.hpp"
#include "vp/flash/FlashDataStore.hpp"

using namespace vp;
using vp::flash::FlashDataStore;
using vp::flash::FlashOob;

namespace {
constexpr uint32_t kPage = 2048, kPpb = 4;
// Units 4p .. 4p+3 of `version`, as a verifying writer fills a 2 KiB page.
std::vector<uint8_t> verify_page(uint64_t first_unit, uint32_t version) {
  std::vector<uint8_t> d(kPage);
  for (uint32_t k = 0; k < kPage / verify_pattern::kUnit; ++k)
    verify_pattern::fill(d.data() + k * verify_pattern::kUnit, first_unit + k, version);
  return d;
}
std::vector<uint8_t> read(const FlashDataStore& s, uint64_t ppn) {
  std::vector<uint8_t> d(kPage, 0xEE);
  s.read(ppn, d.data(), nullptr);
  return d;
}
}  // namespace

TEST_CASE("a page of verify units is kept as their names and reads back byte for byte", "[flash][store]") {
  FlashDataStore s(kPage, kPpb, 2);
  const uint64_t oob = kPpb * sizeof(FlashOob);  // one block's spare areas, once it is programmed
  // One block's page records, once a page of it holds data: 16 bytes a
  // page (a run's first unit and version, or a pointer to what is held).
  const uint64_t rec = kPpb * 16;
  auto a = verify_page(40, 7);
  s.program(0, a.data(), FlashOob{1, 1});
  // Consecutive units of one write: the first unit's number and the
  // version, in the page's record.
  CHECK(s.stored_bytes() == oob + rec);
  CHECK(s.verify_pages() == 1);
  CHECK(read(s, 0) == a);

  // One byte off: not a verify unit any more, kept whole.
  auto b = verify_page(44, 7);
  b[1000] ^= 1;
  s.program(1, b.data(), FlashOob{2, 1});
  CHECK(s.stored_bytes() == oob + rec + kPage);
  CHECK(s.verify_pages() == 1);
  CHECK(read(s, 1) == b);

  // Zero units among verify units (a partly written page) stay names,
  // four of 16 bytes (8-byte number, 4-byte version, padded).
  auto c = verify_page(48, 9);
  std::fill(c.begin() + 512, c.begin() + 1024, 0);
  s.program(2, c.data(), FlashOob{3, 1});
  CHECK(s.stored_bytes() == oob + rec + 4 * 16 + kPage);
  CHECK(read(s, 2) == c);
  // So do units of two writes (a page two 1 KiB writes filled).
  auto e = verify_page(52, 4), e2 = verify_page(52, 5);
  std::copy(e2.begin() + 1024, e2.end(), e.begin() + 1024);
  s.program(3, e.data(), FlashOob{5, 1});
  CHECK(s.stored_bytes() == oob + rec + 2 * 4 * 16 + kPage);
  CHECK(read(s, 3) == e);
  // Reprogrammed as one run, it drops its names.
  s.program(3, e2.data(), FlashOob{5, 2});
  CHECK(s.stored_bytes() == oob + rec + 4 * 16 + kPage);
  CHECK(read(s, 3) == e2);

  // A copy-back moves the data; erasing the block frees all of it.
  s.copy(0, kPpb + 0);
  CHECK(read(s, kPpb) == a);
  CHECK(s.verify_pages() == 4);
  s.erase(0);
  CHECK(s.stored_bytes() == oob + rec);  // block 1: its spare areas and the copy
  CHECK(s.verify_pages() == 1);
  CHECK(read(s, 0) == std::vector<uint8_t>(kPage, 0));
  // A header that names a unit but data that is not its stream is kept whole.
  auto d = verify_page(60, 3);
  d[2047] ^= 0x80;
  s.program(kPpb + 1, d.data(), FlashOob{4, 1});
  CHECK(read(s, kPpb + 1) == d);
  CHECK(s.stored_bytes() == oob + rec + kPage);
  // Zeros programmed over data free it; the block keeps its records.
  s.program(kPpb + 1, nullptr, FlashOob{4, 2});
  CHECK(read(s, kPpb + 1) == std::vector<uint8_t>(kPage, 0));
  CHECK(s.stored_bytes() == oob + rec);
}

TEST_CASE("a block preconditioned by a permuted rule costs nothing per page until one is programmed",
          "[flash][store]") {
  // Block 1's pages 0-2 hold the pages written 5th, 9th and 13th (first 5,
  // stride 4) of a random fill: order(5), order(9), order(13).
  RandomPermutation order(100, 3);
  FlashDataStore s(kPage, kPpb, 2);
  s.set_rule(1, 3, 5, 4, 1, &order);
  CHECK(s.stored_bytes() == 0);
  FlashOob o;
  for (uint32_t p = 0; p < 3; ++p) {
    CHECK(s.programmed(kPpb + p));
    s.read(kPpb + p, nullptr, &o);
    CHECK(o.lpn == order(5 + 4 * p));
    CHECK(o.seq == 1);
  }
  CHECK_FALSE(s.programmed(kPpb + 3));
  // Programming page 3 keeps the rule's spare areas in the block's array.
  s.program(kPpb + 3, nullptr, FlashOob{77, 9});
  CHECK(s.stored_bytes() == kPpb * sizeof(FlashOob));
  s.read(kPpb + 1, nullptr, &o);
  CHECK(o.lpn == order(9));
  s.read(kPpb + 3, nullptr, &o);
  CHECK(o.lpn == 77);
  // An affine rule without the permutation is the index itself.
  s.set_rule(0, 2, 10, 3, 2);
  s.read(1, nullptr, &o);
  CHECK(o.lpn == 13);
  // One permutation per store.
  RandomPermutation other(100, 4);
  CHECK_THROWS_AS(s.set_rule(0, 1, 0, 1, 1, &other), std::logic_error);
}
