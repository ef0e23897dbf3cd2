// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/cache/FixedPrefetchPolicy.hpp"

namespace vp::ssd {

FixedPrefetchPolicy::FixedPrefetchPolicy(const ScopedConfig& cache, const StatGroup& stats, uint32_t ways)
    : EpochPolicy(cache, stats), ways_(ways), prefetch_(static_cast<unsigned>(cache.get_int("prefetch_pages"))) {
  open_first();
}

void FixedPrefetchPolicy::describe(CacheEpoch& e) const {
  for (int c = 0; c < 2; ++c) {
    e.ways[c] = ways_;
    e.prefetch[c] = prefetch_;
  }
}

}  // namespace vp::ssd
