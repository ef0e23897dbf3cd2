// SPDX-License-Identifier: BSD-3-Clause
// The calendar's callable: small captures in place, large ones on the heap,
// each capture moved, called and destroyed exactly once.
#include <array>
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "vp/core/Callback.hpp"

using vp::Callback;

TEST_CASE("a callback runs its capture and releases it once, in place or on the heap", "[core][callback]") {
  auto token = std::make_shared<int>(0);
  std::vector<int> seen;
  {
    // In place (a shared_ptr and a pointer: 24 bytes, not trivially copyable).
    Callback small = [token, &seen] { seen.push_back(1); };
    // Over 48 bytes: kept on the heap.
    std::array<uint64_t, 8> big{};
    big[7] = 7;
    Callback large = [token, &seen, big] { seen.push_back(int(big[7])); };
    CHECK(token.use_count() == 3);
    Callback moved = std::move(small);  // the capture moves, it is not copied
    Callback moved_large = std::move(large);
    CHECK(token.use_count() == 3);
    CHECK_FALSE(small);
    CHECK_FALSE(large);
    moved();
    moved_large();
    moved = Callback([&seen] { seen.push_back(2); });  // assignment releases the old capture
    CHECK(token.use_count() == 2);
    moved();
  }
  CHECK(token.use_count() == 1);
  CHECK(seen == std::vector<int>{1, 7, 2});
}

TEST_CASE("a trivially copyable capture moves with the callback's bytes", "[core][callback]") {
  int hits = 0;
  uint64_t a = 11, b = 31;
  Callback c = [&hits, a, b] { hits += int(a + b); };
  std::vector<Callback> v;
  for (int i = 0; i < 100; ++i) v.push_back(std::move(c)), c = std::move(v.back()), v.pop_back();
  c();
  CHECK(hits == 42);
}
