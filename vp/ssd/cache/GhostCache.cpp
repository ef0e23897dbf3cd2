// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/cache/GhostCache.hpp"

namespace vp::ssd {

GhostCache::GhostCache(uint32_t sets, uint32_t ways, uint32_t granularity)
    : tags_(sets, ways), granularity_(granularity), ways_(ways) {}

bool GhostCache::access(uint64_t lpn, uint64_t end, bool write) {
  int64_t l = tags_.find(lpn);
  if (l >= 0) {
    tags_.touch(l);
    return true;
  }
  insert(lpn);
  if (write) return false;
  ++misses_;
  // The real cache reads ahead after the request's last page, skipping pages it holds.
  if (granularity_ && end != run_end_) {
    run_end_ = end;
    for (uint64_t p = end; p < end + granularity_; ++p)
      if (tags_.find(p) < 0) insert(p);
  }
  return false;
}

void GhostCache::insert(uint64_t lpn) {
  int64_t v = tags_.victim(lpn, [this](unsigned w) { return w < ways_; });
  if (v >= 0) tags_.fill(v, lpn, 0);
}

void GhostCache::resize(uint32_t ways) {
  if (ways > tags_.ways()) ways = tags_.ways();
  if (ways < ways_)
    for (uint32_t s = 0; s < tags_.sets(); ++s)
      for (uint32_t w = ways; w < ways_; ++w) tags_.invalidate(int64_t(s) * tags_.ways() + w);
  ways_ = ways;
}

}  // namespace vp::ssd
