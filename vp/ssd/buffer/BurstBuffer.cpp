// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/buffer/BurstBuffer.hpp"

namespace vp::ssd {

BurstBuffer::BurstBuffer(const CacheTags& tags, const StatGroup& stats)
    : tags_(tags),
      busy_seq_(tags.lines(), 0),
      busy_bypasses_(stats.counter("busy_bypasses", "pages",
                                   "burst: writes that went to the FTL as their entry's eviction was in flight")) {}

bool BurstBuffer::bypass(int64_t line) {
  if (!busy_seq_[size_t(line)]) return false;
  ++busy_bypasses_;
  return true;
}

// The entry that evicted this page takes writes again.
void BurstBuffer::write_done(uint64_t lpn, uint64_t seq, bool, CacheDrain) {
  int64_t base = int64_t(tags_.set_of(lpn)) * tags_.ways();
  for (uint32_t w = 0; w < tags_.ways(); ++w)
    if (busy_seq_[size_t(base + w)] == seq) busy_seq_[size_t(base + w)] = 0;
}

}  // namespace vp::ssd
