// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a sampled ageing (ssd.precondition.age_model=sampled) left each
// logical page, as a rule instead of a table. Each allocation unit (plane)
// takes one of a few aged profiles (SteadyStateAger): per block, how many
// pages are valid, kept as the block's first pages. The fill's write order
// is a random permutation: the i-th logical page of it lies in unit i mod U,
// as the (i / U)-th valid page of the unit's blocks in block order.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "vp/core/Rng.hpp"
#include "vp/ssd/MappingTable.hpp"

namespace vp::ssd {

class AgedLayout : public MapRule {
 public:
  // `valid[k]`: profile k's valid pages per block of a plane; unit u uses
  // profile `profile_of_unit[u]` on plane `unit_plane[u]`.
  AgedLayout(std::vector<uint64_t> unit_plane, std::vector<uint32_t> profile_of_unit,
             const std::vector<std::vector<uint32_t>>& valid, uint64_t blocks_per_plane, uint64_t pages_per_block,
             uint64_t data_pages, const RandomPermutation& order)
      : order_(order),
        plane_(std::move(unit_plane)),
        profile_(std::move(profile_of_unit)),
        units_(plane_.size()),
        bpp_(blocks_per_plane),
        ppb_(pages_per_block),
        data_(data_pages) {
    for (const auto& v : valid) {
      std::vector<uint64_t> starts(v.size() + 1, 0);
      for (size_t b = 0; b < v.size(); ++b) starts[b + 1] = starts[b] + v[b];
      starts_.push_back(std::move(starts));
    }
  }

  uint32_t at(uint64_t lpn) const override {
    if (lpn >= order_.size()) return MappingTable::kUnmapped;
    uint64_t i = order_.inverse(lpn);
    if (i >= data_) return MappingTable::kUnmapped;
    uint64_t u = i % units_, rank = i / units_;
    const auto& s = starts_[profile_[u]];
    uint64_t b = static_cast<uint64_t>(std::upper_bound(s.begin(), s.end(), rank) - s.begin()) - 1;
    return static_cast<uint32_t>((plane_[u] * bpp_ + b) * ppb_ + (rank - s[b]));
  }

 private:
  const RandomPermutation& order_;
  std::vector<uint64_t> plane_;
  std::vector<uint32_t> profile_;
  uint64_t units_, bpp_, ppb_, data_;
  std::vector<std::vector<uint64_t>> starts_;  // per profile: valid pages before each block
};

}  // namespace vp::ssd
