// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// DeepFlash's burst buffer (FAST'20 sec. 4.3, 5.3), as the cache layer's
// write-buffer policy: a direct-mapped table (one way) whose read misses are
// not cached; a write that would replace an entry whose eviction is still in
// flight goes to the FTL instead of waiting for it.
#include <vector>

#include "vp/core/StatGroup.hpp"
#include "vp/ssd/buffer/WriteBufferPolicy.hpp"

namespace vp::ssd {

class BurstBuffer : public WriteBufferPolicy {
 public:
  BurstBuffer(const CacheTags& tags, const StatGroup& stats);

  bool caches_reads() const override { return false; }
  bool bypass(int64_t line) override;
  void replaced_dirty(int64_t line, uint64_t seq) override { busy_seq_[size_t(line)] = seq; }
  void write_done(uint64_t lpn, uint64_t seq, bool buffered, CacheDrain mode) override;

 private:
  const CacheTags& tags_;
  std::vector<uint64_t> busy_seq_;  // the eviction in flight from each line (0: none)
  Counter& busy_bypasses_;
};

}  // namespace vp::ssd
