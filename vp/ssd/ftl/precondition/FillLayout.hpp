// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a preconditioning pass left, as rules: where each logical page lies
// (the map's rule) and what each block holds (the flash's and the block
// table's). Recovery after a power loss reads a block still as the pass
// left it by these rules instead of page by page.
#include <cstdint>

#include "vp/core/Rng.hpp"
#include "vp/flash/FlashTypes.hpp"
#include "vp/ssd/ftl/MappingTable.hpp"

namespace vp::ssd {

class FillLayout : public MapRule, public flash::FillRule {
 public:
  // The logical page on page p of a block filled as `f` says.
  uint64_t lpn_at(const flash::BlockFill& f, uint32_t p) const {
    const uint64_t i = f.first_lpn + uint64_t(p) * f.lpn_stride;
    return f.permuted ? (*order_)(i) : i;
  }

 protected:
  // `order`: the fill's write order, a permutation (null: in order).
  explicit FillLayout(const RandomPermutation* order) : order_(order) {}
  const RandomPermutation* order_;
};

}  // namespace vp::ssd
