// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// FlashShare's partitioned cache (OSDI'18 sec. 4.2, Figures 8 and 19; the
// partitions are split-lat and split-thr in Figure 18): the sets are shared,
// the ways divided, the first ways of every set latency-critical's, the rest
// throughput's. At the end of an epoch of high demand (at least
// ssd.cache.split_demand host page accesses) the split follows the classes'
// access counts in it (proportional, rounded, at least one way each). A way
// handed over keeps its line: the old owner still reads it (read-only), a
// write of the old owner goes to a way of its own, and the page stays until
// the new owner fills the way. Each partition tunes its own prefetch
// granularity with ghost caches of its ways (PrefetchTuner).
//
// Reads are served from any line of the set, whichever class filled it: one
// page has one line, and refusing it would send the read to the FTL for
// older data than a dirty line holds.
#include "vp/ssd/cache/EpochPolicy.hpp"

namespace vp::ssd {

class SplitPolicy : public EpochPolicy {
 public:
  static void declare_params(const ParamScope& cache);
  SplitPolicy(const ScopedConfig& cache, const StatGroup& stats, Waves& waves, uint32_t sets, uint32_t ways);
  bool may_fill(unsigned way, CacheClass c) const override { return (way < lat_ways_) == (c == CacheClass::Latency); }
  bool may_use(unsigned way, CacheClass c, bool write) const override { return !write || may_fill(way, c); }
  unsigned prefetch_pages(CacheClass c) const override { return tuners_[int(c)].granularity(); }
  uint32_t lat_ways() const { return lat_ways_; }
  uint32_t thr_ways() const { return ways_ - lat_ways_; }

 private:
  void feed(uint64_t lpn, uint64_t end, CacheClass c, bool write) override;
  void describe(CacheEpoch& e) const override;
  void adapt(const CacheEpoch& e) override;
  void signals();
  uint32_t ways_, lat_ways_;
  uint64_t demand_;
  PrefetchTuner tuners_[2];  // thr, lat
  uint64_t lat_ways_signal_ = 0, thr_ways_signal_ = 0, prefetch_signal_[2] = {0, 0};  // VCD
  Counter &split_changes_, &prefetch_changes_;
};

}  // namespace vp::ssd
