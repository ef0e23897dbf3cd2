// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The transactions a die runs as one operation: one, or one per plane when
// the scheduler joins a multi-plane read, program or erase.
#include <algorithm>
#include <array>
#include <cstdint>

#include "vp/flash/FlashTypes.hpp"

namespace vp::flash {

struct FlashBatch {
  static constexpr unsigned kMaxPlanes = 16;  // ssd.flash.planes_per_die is at most 16
  FlashOp op = FlashOp::Read;
  uint8_t n = 0;
  // The first n are set; the rest are never read, so a batch is neither
  // zero-filled when made nor copied beyond them (a die makes and copies
  // one per operation).
  std::array<FlashTransaction*, kMaxPlanes> t;

  FlashBatch() = default;
  FlashBatch(const FlashBatch& o) : op(o.op), n(o.n) { std::copy_n(o.t.data(), o.n, t.data()); }
  FlashBatch& operator=(const FlashBatch& o) {
    op = o.op;
    n = o.n;
    std::copy_n(o.t.data(), o.n, t.data());
    return *this;
  }

  bool empty() const { return n == 0; }
  void add(FlashTransaction* x) { t[n++] = x; }
  void clear() { n = 0; }
  FlashTransaction** begin() { return t.data(); }
  FlashTransaction** end() { return t.data() + n; }
};

}  // namespace vp::flash
