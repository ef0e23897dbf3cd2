// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The write-back caches' write buffer (organisations uni, uni-dyn, split): a
// dirty line replaced or written back leaves a copy in the drive's write
// buffer (ssd.write_buffer.size) until its program is on flash, as a
// controller keeps a page's data until the program succeeds. A host write
// that could add more copies than the buffer holds waits, keeping its
// command slot, until programs complete; without that bound a drive
// acknowledges writes faster than its flash programs them and the copies in
// flight grow without limit (and past what power-loss protection can drain).
#include <cstdint>

#include "vp/core/StatGroup.hpp"
#include "vp/ssd/buffer/WriteBufferPolicy.hpp"
#include "vp/ssd/buffer/WriteStalls.hpp"

namespace vp::ssd {

class WriteBackCache : public WriteBufferPolicy {
 public:
  // `buffer_pages`: copies the write buffer holds; statistics in `stats`
  // (the cache layer's group: write_buffer.stalled_writes, .stall_ps, .copies_max).
  WriteBackCache(uint64_t buffer_pages, CacheLines& lines, const StatGroup& stats);

  bool admit(FtlRequest& r) override;
  void write_queued(bool buffered, CacheDrain mode) override;
  void write_done(uint64_t lpn, uint64_t seq, bool buffered, CacheDrain mode) override;
  void resume() override;

  uint64_t copies() const { return copies_; }
  nlohmann::json summary() const override;

 private:
  // Room for a write of `pages`: a write larger than the whole buffer goes
  // once the buffer is empty.
  bool fits(uint64_t pages) const { return copies_ == 0 || copies_ + pages <= capacity_; }

  uint64_t capacity_;
  CacheLines& lines_;
  uint64_t copies_ = 0;
  Counter& copies_max_;
  WriteStalls stalls_;
};

}  // namespace vp::ssd
