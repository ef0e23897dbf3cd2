// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A ghost cache (FlashShare OSDI'18 Figure 9): the tags of a cache with the
// real cache's sets and a given number of ways, no data, that prefetches
// `granularity` pages after each request whose page missed. Fed the same
// host accesses as the real cache, its read misses tell how the real cache
// would have done with that granularity.
#include <cstdint>

#include "vp/ssd/cache/CacheTags.hpp"

namespace vp::ssd {

class GhostCache {
 public:
  GhostCache(uint32_t sets, uint32_t ways, uint32_t granularity);
  uint32_t granularity() const { return granularity_; }
  uint32_t ways() const { return ways_; }
  // One host page access of a request whose last page is end - 1; true if
  // the page was in the ghost. A miss takes a line (write allocate, as the
  // real cache); a read miss also brings in [end, end + granularity) as the
  // real cache's read-ahead would, once per request.
  bool access(uint64_t lpn, uint64_t end, bool write);
  // The partition it models now has `ways` ways (at most those it was made
  // with): lines beyond them are dropped.
  void resize(uint32_t ways);
  uint64_t misses() const { return misses_; }  // read misses since new_epoch()
  void new_epoch() { misses_ = 0; }

 private:
  void insert(uint64_t lpn);
  CacheTags tags_;
  uint32_t granularity_, ways_;
  uint64_t misses_ = 0;
  uint64_t run_end_ = ~uint64_t(0);  // the request whose read-ahead was last brought in
};

}  // namespace vp::ssd
