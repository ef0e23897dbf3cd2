// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// FlashShare's uni-dyn (OSDI'18 sec. 4.2 and Figure 18): a uniform cache
// (both classes fill and read every way) whose read-ahead after a miss
// adapts each epoch to the ghost cache that missed least (PrefetchTuner,
// its ghosts the size and associativity of the whole cache, fed every host
// access).
#include "vp/ssd/cache/EpochPolicy.hpp"

namespace vp::ssd {

class GhostPrefetchPolicy : public EpochPolicy {
 public:
  GhostPrefetchPolicy(const ScopedConfig& cache, const StatGroup& stats, Waves& waves, uint32_t sets,
                      uint32_t ways);
  bool may_fill(unsigned, CacheClass) const override { return true; }
  bool may_use(unsigned, CacheClass, bool) const override { return true; }
  uint32_t granularity() const { return tuner_.granularity(); }
  unsigned prefetch_pages(CacheClass) const override { return tuner_.granularity(); }

 private:
  void feed(uint64_t lpn, uint64_t end, CacheClass c, bool write) override;
  void describe(CacheEpoch& e) const override;
  void adapt(const CacheEpoch& e) override;
  uint32_t ways_;
  PrefetchTuner tuner_;
  uint64_t prefetch_signal_;  // VCD: the granularity in force
  Counter& changes_;
};

}  // namespace vp::ssd
