// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What distinguishes one organisation of the SSD's DRAM cache from another
// (ssd.cache.organisation), as CacheLayer asks it: which ways of a set a
// request's class may fill and read, how many pages a read miss prefetches,
// and what it learns from each access (epochs, ghost caches). CacheLayer
// does the rest: tags and LRU (CacheTags), data in DRAM, misses, write-back
// and eviction to the FTL.
#include <cstdint>
#include <vector>

#include "vp/core/Units.hpp"
#include "vp/ssd/cache/CacheEpoch.hpp"

namespace vp::ssd {

class CacheTags;

// A request's class: the FlashShare workload attribute, non-zero for latency-critical.
enum class CacheClass : uint8_t { Throughput = 0, Latency = 1 };

class CachePolicy {
 public:
  virtual ~CachePolicy() = default;
  // A host request arrives at `now`: time-driven organisations move to its
  // epoch before it is looked up.
  virtual void advance(Tick /*now*/) {}
  // May a request of class `c` put a page into `way`?
  virtual bool may_fill(unsigned way, CacheClass c) const = 0;
  // May it use the page found in `way` (a read; `write`: overwrite it)?
  virtual bool may_use(unsigned way, CacheClass c, bool write) const = 0;
  // Pages after a read miss's last page to bring in with it.
  virtual unsigned prefetch_pages(CacheClass c) const = 0;
  // One host page access, of a request whose last page is end - 1, was a hit or a miss.
  virtual void observe(uint64_t lpn, uint64_t end, CacheClass c, bool write, bool hit, Tick now,
                       CacheTags& tags) = 0;
  // A host read of class `c` hit a page a prefetch brought in (its first use).
  virtual void prefetch_hit(CacheClass /*c*/) {}
  // The epochs so far (adaptive organisations), the running one up to `now` last.
  virtual std::vector<CacheEpoch> epochs(Tick /*now*/) const { return {}; }
};

}  // namespace vp::ssd
