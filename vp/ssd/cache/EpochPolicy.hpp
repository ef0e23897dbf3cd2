// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What FlashShare's adaptive organisations (uni-dyn, split) share: time cut
// into epochs of ssd.cache.epoch, the accesses, hits and misses of each
// class counted per epoch, and a decision at the end of each one. The clock
// is the accesses' own: an epoch is closed by the first access at or after
// its end (a firmware would use a timer; without accesses nothing changes,
// so the decisions are the same), and epochs without accesses are skipped.
#include <vector>

#include "vp/core/Param.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/core/Waves.hpp"
#include "vp/ssd/cache/CachePolicy.hpp"
#include "vp/ssd/cache/PrefetchTuner.hpp"

namespace vp::ssd {

class EpochPolicy : public CachePolicy {
 public:
  // epoch and ghost_granularities, in the cache's scope.
  static void declare_params(const ParamScope& cache);
  void observe(uint64_t lpn, uint64_t end, CacheClass c, bool write, bool hit, Tick now, CacheTags& tags) final;
  void advance(Tick now) override { roll(now); }
  void prefetch_hit(CacheClass c) override { ++cur_.prefetch_hits[int(c)]; }
  std::vector<CacheEpoch> epochs(Tick now) const override;

 protected:
  // `cache`, `stats`: the cache layer's scope and statistics group.
  EpochPolicy(const ScopedConfig& cache, const StatGroup& stats);
  // The ghost granularities of the configuration.
  std::vector<uint32_t> granularities() const;
  // Feeds an access to the ghosts.
  virtual void feed(uint64_t lpn, uint64_t end, CacheClass c, bool write) = 0;
  // The ways and granularities in force and the ghosts' misses so far.
  virtual void describe(CacheEpoch& e) const = 0;
  // The epoch `e` is over: adapt.
  virtual void adapt(const CacheEpoch& e) = 0;
  // Starts the first epoch's record (subclasses call it once they are set up).
  void open_first();

  // Signal names and group under the cache's scope (ssd.cache.lat_ways, "ssd cache").
  std::string wave_name(const std::string& rel) const { return Waves::signal_name(cfg_.scope(), rel); }
  std::string wave_group() const { return Waves::group_name(cfg_.scope()); }

  ScopedConfig cfg_;

 private:
  void roll(Tick now);
  Tick epoch_;
  CacheEpoch cur_;
  std::vector<CacheEpoch> done_;
  Counter& epochs_;
};

}  // namespace vp::ssd
