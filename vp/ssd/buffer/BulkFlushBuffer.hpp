// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A conventional drive's write buffer, as FastDrain (CAL'20 sec. 1-2)
// describes the baseline it improves on: written data stays in the buffer
// until a write finds no room, and then "flash firmware [writes] a bulk of
// dirty data from the built-in DRAM to the flash, which makes the SSD
// backend too busy to serve other legacy I/O requests". How much a bulk is
// follows SimpleSSD's generic cache (the simulator Amber, the paper's, is
// built on): a write miss in a set with no free line evicts, across the
// whole cache, the oldest line of every parallel unit at once, one page per
// plane of every die. Here: the set's least recently used line and the
// oldest dirty lines after it, `bulk.pages` in all (0: one per plane of the
// drive). There is no eviction before that, no watermark and no status to
// the host. Flushed lines stay as clean copies any write may take; a write
// that would take the buffer's DRAM past its capacity while copies are at
// the flash waits for programs to finish. Read misses are not cached.
#include <memory>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/ssd/cache/DirtyOrder.hpp"
#include "vp/ssd/buffer/WriteBufferPolicy.hpp"
#include "vp/ssd/buffer/WriteStalls.hpp"

namespace vp::ssd {

class BulkFlushBuffer : public WriteBufferPolicy {
 public:
  // Parameters relative to its scope (the cache layer's: ssd.cache.bulk).
  static void declare_params(const ParamScope& r);
  // `stripe_pages`: one page for every plane of the drive (the default bulk).
  BulkFlushBuffer(Services& svc, const std::string& scope, CacheLines& lines, const CacheTags& tags,
                  uint64_t stripe_pages);

  bool caches_reads() const override { return false; }
  bool admit(FtlRequest& r) override;
  void dirtied(int64_t line) override { order_.dirtied(line); }
  void replacing(int64_t line) override;
  void write_queued(bool buffered, CacheDrain mode) override;
  void write_done(uint64_t lpn, uint64_t seq, bool buffered, CacheDrain mode) override;
  void after_write(const FtlRequest&) override { changed(); }
  void changed() override;
  void resume() override;
  const WriteBufferLevel* level() const override { return level_.get(); }

 private:
  // Room for a write of `pages`: nothing is at the flash (nothing would
  // make room), or the dirty lines and copies in flight leave enough.
  bool fits(uint64_t pages) const { return draining_ == 0 || level_->level() + pages <= level_->capacity(); }

  CacheLines& lines_;
  const CacheTags& tags_;
  uint64_t bulk_pages_;
  std::unique_ptr<WriteBufferLevel> level_;
  DirtyOrder order_;
  uint64_t draining_ = 0;  // lines' copies being written to the FTL
  Counter &flushes_, &flushed_pages_, &level_high_water_;
  WriteStalls stalls_;
};

}  // namespace vp::ssd
