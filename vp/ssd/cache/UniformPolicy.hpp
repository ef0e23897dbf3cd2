// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The write buffers' placement (bulk, fastdrain, burst): every way serves
// both classes and a read miss brings in a fixed number of following pages
// (none: their read misses are not cached). The uni cache is
// FixedPrefetchPolicy, which also records epochs.
#include "vp/ssd/cache/CachePolicy.hpp"

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
