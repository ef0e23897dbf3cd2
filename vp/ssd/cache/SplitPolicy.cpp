// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/cache/SplitPolicy.hpp"

#include <algorithm>
#include <cmath>

namespace vp::ssd {

namespace {
uint32_t clamp_split(int64_t lat, uint32_t ways) {
  return static_cast<uint32_t>(std::clamp<int64_t>(lat, 1, int64_t(ways) - 1));
}
}  // namespace

void SplitPolicy::declare_params(const ParamScope& r) {
  r.real("split_lat_share", 0.5,
         "split: share of the ways the latency-critical partition starts with (rounded, at least one way each)")
      .range(0, 1);
  r.integer("split_demand", 128,
            "split: host page accesses in an epoch from which demand is high and the way split follows the "
            "classes' access counts")
      .at_least(1);
  r.rule([](const ScopedConfig& c) {
    if (c.is("organisation", "split") && c.get_int("ways") < 2)
      c.fail({"ways", "organisation"}, "split needs at least 2 ways, one per partition");
  });
}

SplitPolicy::SplitPolicy(const ScopedConfig& cache, const StatGroup& stats, Waves& waves, uint32_t sets,
                         uint32_t ways)
    : EpochPolicy(cache, stats),
      ways_(ways),
      lat_ways_(clamp_split(std::llround(ways * cache.get_real("split_lat_share")), ways)),
      demand_(static_cast<uint64_t>(cache.get_int("split_demand"))),
      tuners_{PrefetchTuner(sets, ways, ways - lat_ways_, granularities()),
              PrefetchTuner(sets, ways, lat_ways_, granularities())},
      split_changes_(stats.counter("split_changes", "epochs", "epochs after which split's way split changed")),
      prefetch_changes_(stats.counter("prefetch_changes", "epochs",
                                      "epochs after which a prefetch granularity changed (uni-dyn, split)")) {
  signals();
  if (waves.enabled()) {
    waves.trace(lat_ways_signal_, wave_name("lat_ways"), wave_group());
    waves.trace(thr_ways_signal_, wave_name("thr_ways"), wave_group());
    waves.trace(prefetch_signal_[1], wave_name("lat_prefetch_pages"), wave_group());
    waves.trace(prefetch_signal_[0], wave_name("thr_prefetch_pages"), wave_group());
  }
  open_first();
}

void SplitPolicy::signals() {
  lat_ways_signal_ = lat_ways_;
  thr_ways_signal_ = ways_ - lat_ways_;
  for (int c = 0; c < 2; ++c) prefetch_signal_[c] = tuners_[c].granularity();
}

void SplitPolicy::feed(uint64_t lpn, uint64_t end, CacheClass c, bool write) { tuners_[int(c)].access(lpn, end, write); }

void SplitPolicy::describe(CacheEpoch& e) const {
  e.granularities = tuners_[0].granularities();
  e.ways[0] = ways_ - lat_ways_;
  e.ways[1] = lat_ways_;
  for (int c = 0; c < 2; ++c) {
    e.prefetch[c] = tuners_[c].granularity();
    e.ghost_misses[c] = tuners_[c].misses();
  }
}

void SplitPolicy::adapt(const CacheEpoch& e) {
  bool changed = false;
  for (auto& t : tuners_) {
    uint32_t before = t.granularity();
    t.end_epoch();
    changed |= t.granularity() != before;
  }
  if (changed) ++prefetch_changes_;
  uint64_t total = e.accesses[0] + e.accesses[1];
  if (total >= demand_) {
    uint32_t lat = clamp_split(int64_t((uint64_t(ways_) * e.accesses[1] * 2 + total) / (2 * total)), ways_);
    if (lat != lat_ways_) {
      lat_ways_ = lat;
      tuners_[0].resize(ways_ - lat_ways_);
      tuners_[1].resize(lat_ways_);
      ++split_changes_;
    }
  }
  signals();
}

}  // namespace vp::ssd
