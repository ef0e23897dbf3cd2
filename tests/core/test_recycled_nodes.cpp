// SPDX-License-Identifier: BSD-3-Clause
// A map whose erased nodes are reused: it reads as the same map made with
// operator[] and erase, and a reused node starts from a fresh value.
#include <catch2/catch.hpp>
#include <unordered_map>
#include <utility>

#include "vp/core/RecycledNodes.hpp"

using vp::RecycledNodes;

TEST_CASE("a map that reuses erased nodes reads as one made with operator[] and erase", "[core]") {
  using Map = std::unordered_map<uint32_t, std::pair<int, int>>;
  Map m, plain;
  RecycledNodes<Map> nodes;
  // Pages written, and their programs ending in another order, as the FTL does.
  for (uint32_t k = 0; k < 8; ++k) {
    nodes.entry(m, k).first = int(k);
    ++nodes.entry(m, k).second;
    plain[k].first = int(k);
    ++plain[k].second;
  }
  for (uint32_t k : {5u, 1u, 6u}) {
    nodes.erase(m, m.find(k));
    plain.erase(k);
  }
  const std::pair<int, int>* kept = &m.at(0);  // a live entry does not move when others come and go
  // Three nodes are kept: new keys take them, each from a value-initialised pair.
  for (uint32_t k : {40u, 41u, 42u, 43u}) {
    auto& v = nodes.entry(m, k);
    CHECK(v == std::pair<int, int>{0, 0});
    v.second = 7;
    plain[k].second = 7;
  }
  // A key already there is found, not made again.
  ++nodes.entry(m, 2).second;
  ++plain[2].second;
  CHECK(m == plain);
  CHECK(m.size() == 9);
  CHECK(&m.at(0) == kept);
  CHECK(m.at(2) == std::pair<int, int>{2, 2});
}
