// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/cache/EpochPolicy.hpp"

#include <algorithm>

namespace vp::ssd {

void EpochPolicy::declare_params(const ParamScope& r) {
  // Time rather than an access count: FlashShare collects the accesses of
  // each class "at each epoch" and tests for high demand, a rate.
  r.time("epoch", "1ms",
         "uni-dyn, split: length of an epoch; at its end the prefetch granularity (and split's way split) adapt")
      .at_least(1);
  r.string("ghost_granularities", "0,4,16,64,128",
           "uni-dyn, split: prefetch granularities (pages after a read miss's request) the ghost caches try, "
           "comma separated; the cache starts with the smallest");
  r.rule([](const ScopedConfig& c) {
    if (PrefetchTuner::parse(c.get_string("ghost_granularities")).empty())
      c.fail("ghost_granularities", "is not a comma-separated list of page counts (0-999999)");
  });
}

EpochPolicy::EpochPolicy(const ScopedConfig& cache, const StatGroup& stats)
    : cfg_(cache),
      epoch_(cache.get_time("epoch")),
      epochs_(stats.counter("epochs", "epochs", "epochs with host accesses (uni, uni-dyn, split)")) {}

std::vector<uint32_t> EpochPolicy::granularities() const {
  return PrefetchTuner::parse(cfg_.get_string("ghost_granularities"));
}

void EpochPolicy::open_first() {
  cur_ = CacheEpoch{};
  describe(cur_);
}

void EpochPolicy::roll(Tick now) {
  if (now < cur_.start + epoch_) return;
  if (cur_.accesses[0] + cur_.accesses[1]) {
    cur_.end = cur_.start + epoch_;
    describe(cur_);  // the ghosts' misses of the whole epoch
    adapt(cur_);
    done_.push_back(cur_);
    ++epochs_;
  }
  Tick start = now - now % epoch_;
  cur_ = CacheEpoch{};
  cur_.index = start / epoch_;
  cur_.start = start;
  describe(cur_);
}

void EpochPolicy::observe(uint64_t lpn, uint64_t end, CacheClass c, bool write, bool hit, Tick now, CacheTags&) {
  roll(now);
  int k = int(c);
  ++cur_.accesses[k];
  if (!write) ++(hit ? cur_.read_hits : cur_.read_misses)[k];
  feed(lpn, end, c, write);
}

std::vector<CacheEpoch> EpochPolicy::epochs(Tick now) const {
  std::vector<CacheEpoch> v = done_;
  if (cur_.accesses[0] + cur_.accesses[1]) {  // the running one, as it stands
    CacheEpoch e = cur_;
    describe(e);
    e.end = std::min(now, cur_.start + epoch_);
    v.push_back(e);
  }
  return v;
}

}  // namespace vp::ssd
