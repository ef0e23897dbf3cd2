// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// FlashShare's uniform cache (uni-no, uni-128 in OSDI'18 Figure 18): every
// way serves both classes, and a read miss brings in a fixed number of
// following pages (ssd.cache.prefetch_pages: 0 for uni-no, 128 for uni-128).
#include "vp/ssd/CachePolicy.hpp"

namespace vp::ssd {

class UniformPolicy : public CachePolicy {
 public:
  explicit UniformPolicy(unsigned prefetch) : prefetch_(prefetch) {}
  bool may_fill(unsigned, CacheClass) const override { return true; }
  bool may_use(unsigned, CacheClass, bool) const override { return true; }
  unsigned prefetch_pages(CacheClass) const override { return prefetch_; }
  void observe(uint64_t, uint64_t, CacheClass, bool, bool, Tick, CacheTags&) override {}

 private:
  unsigned prefetch_;
};

}  // namespace vp::ssd
