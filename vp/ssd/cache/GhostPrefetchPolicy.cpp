// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/cache/GhostPrefetchPolicy.hpp"

namespace vp::ssd {

GhostPrefetchPolicy::GhostPrefetchPolicy(const ScopedConfig& cache, const StatGroup& stats, Waves& waves,
                                         uint32_t sets, uint32_t ways)
    : EpochPolicy(cache, stats),
      ways_(ways),
      tuner_(sets, ways, ways, granularities()),
      prefetch_signal_(tuner_.granularity()),
      changes_(stats.counter("prefetch_changes", "epochs",
                             "epochs after which a prefetch granularity changed (uni-dyn, split)")) {
  if (waves.enabled()) waves.trace(prefetch_signal_, wave_name("prefetch_pages"), wave_group());
  open_first();
}

void GhostPrefetchPolicy::feed(uint64_t lpn, uint64_t end, CacheClass, bool write) { tuner_.access(lpn, end, write); }

void GhostPrefetchPolicy::describe(CacheEpoch& e) const {
  e.granularities = tuner_.granularities();
  for (int c = 0; c < 2; ++c) {
    e.ways[c] = ways_;
    e.prefetch[c] = tuner_.granularity();
    e.ghost_misses[c] = tuner_.misses();
  }
}

void GhostPrefetchPolicy::adapt(const CacheEpoch&) {
  uint32_t before = tuner_.granularity();
  tuner_.end_epoch();
  if (tuner_.granularity() != before) ++changes_;
  prefetch_signal_ = tuner_.granularity();
}

}  // namespace vp::ssd
