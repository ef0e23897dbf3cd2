// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a sampled ageing (ssd.precondition.age_model=sampled) left each
// logical page, as a rule instead of a table. Each allocation unit (plane)
// takes one of a few aged profiles (SteadyStateAger): per block, how many
// pages are valid, kept as the block's first pages. The fill's write order
// is a random permutation: the i-th logical page of it lies in unit i mod U,
// as the (i / U)-th valid page of the unit's blocks in block order. As a
// FillRule it says what each block holds: its valid pages, the (r x U + u)-th
// written for the unit's r-th valid page.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "vp/ssd/ftl/precondition/FillLayout.hpp"

namespace vp::ssd {

class AgedLayout : public FillLayout {
 public:
  // `valid[k]`: profile k's valid pages per block of a plane; unit u uses
  // profile `profile_of_unit[u]` on plane `unit_plane[u]`.
  AgedLayout(std::vector<uint64_t> unit_plane, std::vector<uint32_t> profile_of_unit,
             const std::vector<std::vector<uint32_t>>& valid, uint64_t blocks_per_plane, uint64_t pages_per_block,
             uint64_t data_pages, const RandomPermutation& order)
      : FillLayout(&order),
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
    for (uint64_t u = 0; u < units_; ++u) {
      if (plane_[u] >= unit_of_.size()) unit_of_.resize(plane_[u] + 1, kNone);
      if (unit_of_[plane_[u]] != kNone) throw std::logic_error("aged layout: two units on one plane");
      unit_of_[plane_[u]] = static_cast<uint32_t>(u);
    }
  }

  uint32_t at(uint64_t lpn) const override {
    if (lpn >= order_->size()) return MappingTable::kUnmapped;
    uint64_t i = order_->inverse(lpn);
    if (i >= data_) return MappingTable::kUnmapped;
    uint64_t u = i % units_, rank = i / units_;
    const auto& s = starts_[profile_[u]];
    uint64_t b = static_cast<uint64_t>(std::upper_bound(s.begin(), s.end(), rank) - s.begin()) - 1;
    return static_cast<uint32_t>((plane_[u] * bpp_ + b) * ppb_ + (rank - s[b]));
  }

  flash::BlockFill fill_of(uint64_t block) const override {
    const uint64_t plane = block / bpp_, j = block % bpp_;
    if (plane >= unit_of_.size() || unit_of_[plane] == kNone) return {};
    const uint64_t u = unit_of_[plane];
    const auto& s = starts_[profile_[u]];
    if (j + 1 >= s.size() || s[j + 1] == s[j]) return {};
    return flash::BlockFill{static_cast<uint32_t>(s[j + 1] - s[j]), static_cast<uint32_t>(s[j] * units_ + u),
                            static_cast<uint32_t>(units_), true};
  }

 private:
  std::vector<uint64_t> plane_;
  std::vector<uint32_t> profile_;
  uint64_t units_, bpp_, ppb_, data_;
  std::vector<std::vector<uint64_t>> starts_;  // per profile: valid pages before each block
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  std::vector<uint32_t> unit_of_;  // plane -> its unit
};

}  // namespace vp::ssd
