// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One epoch of a cache organisation (uni, uni-dyn, split) as it is
// recorded for plotting: what each class did in the real cache, what every
// ghost cache missed, and the way split and prefetch granularities that
// were in force. Index 0 of every pair is the throughput class, 1 the
// latency-critical one (CacheClass).
#include <cstdint>
#include <string>
#include <vector>

#include "vp/core/Units.hpp"

namespace vp::ssd {

struct CacheEpoch {
  uint64_t index = 0;  // start / ssd.cache.epoch
  Tick start = 0, end = 0;
  uint64_t accesses[2] = {0, 0};  // host page reads and writes
  uint64_t read_hits[2] = {0, 0}, read_misses[2] = {0, 0};
  uint64_t prefetch_hits[2] = {0, 0};  // read hits on pages a prefetch brought in (first use)
  uint32_t ways[2] = {0, 0};      // ways each class could fill during the epoch
  uint32_t prefetch[2] = {0, 0};  // prefetch granularity in force (pages)
  std::vector<uint32_t> granularities;        // of the ghost caches, ascending
  std::vector<uint64_t> ghost_misses[2];      // read misses of each ghost (uni-dyn: the one set, in both)
};

// Writes the epochs as CSV (cache_epochs.csv): one row per epoch with
// accesses, times in microseconds; ghost misses as "granularity:misses"
// pairs separated by spaces.
void write_cache_epochs_csv(const std::string& path, const std::vector<CacheEpoch>& epochs);

}  // namespace vp::ssd
