// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// FlashShare's adjustable prefetch (OSDI'18 sec. 4.2, Figure 9) for one
// cache (uni-dyn) or one partition (split): a ghost cache per candidate
// granularity (ssd.cache.ghost_granularities), all fed the accesses the
// cache sees; at the end of each epoch the cache adopts the granularity of
// the ghost that missed least (ties: the smaller granularity). It starts
// with the smallest.
#include <cstdint>
#include <string>
#include <vector>

#include "vp/ssd/cache/GhostCache.hpp"

namespace vp::ssd {

class PrefetchTuner {
 public:
  // `ways`: ways of the tag arrays; the ghosts model `used` of them.
  PrefetchTuner(uint32_t sets, uint32_t ways, uint32_t used, const std::vector<uint32_t>& granularities);
  // "0,4,16,64" -> ascending, distinct; empty if the text is not such a list.
  static std::vector<uint32_t> parse(const std::string& text);
  void access(uint64_t lpn, uint64_t end, bool write);
  uint32_t granularity() const { return current_; }
  const std::vector<uint32_t>& granularities() const { return grans_; }
  std::vector<uint64_t> misses() const;  // this epoch's, per ghost
  // Ends the epoch: adopts the best ghost's granularity if any read was seen
  // (an epoch of writes only says nothing about prefetch), and resets the counts.
  void end_epoch();
  void resize(uint32_t used);

 private:
  std::vector<uint32_t> grans_;
  std::vector<GhostCache> ghosts_;
  uint32_t current_;
  bool reads_ = false;
};

}  // namespace vp::ssd
