// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a preconditioning pass put each logical page, as a rule instead of
// a table: the i-th page written went to allocation unit i mod U, at index
// i / U of that unit's pages, blocks filled from the plane's first; the
// translation pages of a cached map follow on the blocks after the data. A
// sequential fill writes page i i-th; a random one writes the pages in the
// order of a random permutation, whose inverse finds a page's place. As a
// FillRule it says what each block holds, so neither the FTL's block table
// nor the flash keeps a record of a block the run does not use.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "vp/ssd/ftl/precondition/FillLayout.hpp"

namespace vp::ssd {

class SequentialLayout : public FillLayout {
 public:
  SequentialLayout(std::vector<uint64_t> unit_plane, uint64_t blocks_per_plane, uint64_t pages_per_block,
                   uint64_t data_pages, uint64_t tp_first_lpn, uint64_t tp_pages,
                   const RandomPermutation* order = nullptr)
      : FillLayout(order),
        plane_(std::move(unit_plane)),
        units_(plane_.size()),
        bpp_(blocks_per_plane),
        ppb_(pages_per_block),
        data_(data_pages),
        tp_first_(tp_first_lpn),
        tps_(tp_pages),
        tp_base_(units_) {
    for (uint64_t u = 0; u < units_; ++u) {
      tp_base_[u] = (count(data_, u) + ppb_ - 1) / ppb_;
      if (plane_[u] >= unit_of_.size()) unit_of_.resize(plane_[u] + 1, kNone);
      if (unit_of_[plane_[u]] != kNone) throw std::logic_error("sequential layout: two units on one plane");
      unit_of_[plane_[u]] = static_cast<uint32_t>(u);
    }
  }

  // Pages a fill of `total` pages gives unit u.
  uint64_t count(uint64_t total, uint64_t u) const { return total / units_ + (u < total % units_ ? 1 : 0); }
  // First block (within its plane) of unit u's translation pages.
  uint64_t tp_base(uint64_t u) const { return tp_base_[u]; }

  // The logical page written i-th.
  uint64_t lpn_written(uint64_t i) const { return order_ ? (*order_)(i) : i; }

  uint32_t at(uint64_t lpn) const override {
    uint64_t base = 0;
    if (lpn >= tp_first_ && lpn < tp_first_ + tps_) {
      lpn -= tp_first_;
      base = tp_base_[lpn % units_];
    } else {
      if (order_ && lpn < tp_first_) lpn = order_->inverse(lpn);
      if (lpn >= data_) return MappingTable::kUnmapped;
    }
    return place(lpn % units_, lpn / units_, base);
  }
  // Unit u's k-th block of data holds its pages k x ppb on, the i-th of them
  // written (u + k x ppb x U + i x U)-th; its translation pages' blocks follow.
  flash::BlockFill fill_of(uint64_t block) const override {
    const uint64_t plane = block / bpp_, j = block % bpp_;
    if (plane >= unit_of_.size() || unit_of_[plane] == kNone) return {};
    const uint64_t u = unit_of_[plane], data_blocks = tp_base_[u];
    auto fill = [&](uint64_t total, uint64_t k, uint64_t first_lpn, bool permuted) {
      return flash::BlockFill{static_cast<uint32_t>(std::min(ppb_, count(total, u) - k * ppb_)),
                              static_cast<uint32_t>(first_lpn + u + units_ * k * ppb_),
                              static_cast<uint32_t>(units_), permuted};
    };
    if (j < data_blocks) return fill(data_, j, 0, order_ != nullptr);
    if ((j - data_blocks) * ppb_ < count(tps_, u)) return fill(tps_, j - data_blocks, tp_first_, false);
    return {};
  }

  // Consecutive data pages step through the units: one division per run.
  void fill(uint64_t first, uint32_t n, uint32_t* out) const override {
    if (order_ || first + n > data_) {
      for (uint32_t k = 0; k < n; ++k) out[k] = at(first + k);
      return;
    }
    uint64_t u = first % units_, idx = first / units_;
    for (uint32_t k = 0; k < n; ++k) {
      out[k] = place(u, idx, 0);
      if (++u == units_) {
        u = 0;
        ++idx;
      }
    }
  }

 private:
  uint32_t place(uint64_t unit, uint64_t idx, uint64_t base) const {
    return static_cast<uint32_t>((plane_[unit] * bpp_ + base + idx / ppb_) * ppb_ + idx % ppb_);
  }

  std::vector<uint64_t> plane_;
  uint64_t units_, bpp_, ppb_, data_, tp_first_, tps_;
  std::vector<uint64_t> tp_base_;
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  std::vector<uint32_t> unit_of_;  // plane -> its unit
};

}  // namespace vp::ssd
