// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// FlashShare's uniform cache with a fixed read-ahead (uni-no, uni-128 in
// OSDI'18 Figure 18; Vanilla's "dummy cache" of Figure 16b): every way
// serves both classes and a read miss brings in ssd.cache.prefetch_pages
// following pages. Nothing adapts; its epochs are recorded only so that its
// hits and misses over time can be set beside the adaptive caches'
// (cache_epochs.csv).
#include "vp/ssd/cache/EpochPolicy.hpp"

namespace vp::ssd {

class FixedPrefetchPolicy : public EpochPolicy {
 public:
  FixedPrefetchPolicy(const ScopedConfig& cache, const StatGroup& stats, uint32_t ways);
  bool may_fill(unsigned, CacheClass) const override { return true; }
  bool may_use(unsigned, CacheClass, bool) const override { return true; }
  unsigned prefetch_pages(CacheClass) const override { return prefetch_; }

 private:
  void feed(uint64_t, uint64_t, CacheClass, bool) override {}
  void describe(CacheEpoch& e) const override;
  void adapt(const CacheEpoch&) override {}
  uint32_t ways_;
  unsigned prefetch_;
};

}  // namespace vp::ssd
