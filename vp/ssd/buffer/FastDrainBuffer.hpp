// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// FastDrain's write buffer (CAL'20 sec. 3.2), as the cache layer's
// write-buffer policy: a time-driven eviction engine keeps the buffer's level
// (WriteBufferLevel: dirty lines plus their copies being written) under its
// watermarks. Background rounds send a few of the oldest dirty pages while
// no host work is at the FTL; a foreground drain of urgent (LSB-first)
// writes goes down to the low watermark when the level plus the pages a
// victimization hint still announces would pass the high one, all at once
// or a window of pages at a time (drain_depth); every
// completion carries the buffer status; a write waits while the buffer's
// DRAM is full of lines and copies in flight. Read misses are not cached,
// unless it is the write side of a read cache (cache_reads: the level is the
// dirty share of all the cache's lines).
#include <memory>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/ssd/cache/DirtyOrder.hpp"
#include "vp/ssd/buffer/WriteBufferPolicy.hpp"
#include "vp/ssd/buffer/WriteStalls.hpp"

namespace vp::ssd {

class FastDrainBuffer : public WriteBufferPolicy {
 public:
  // Parameters relative to its scope (the cache layer's: ssd.cache.fastdrain).
  static void declare_params(const ParamScope& r);
  // `scope`: where its parameters, statistics and waves are named.
  FastDrainBuffer(Services& svc, const std::string& scope, EventQueue& eq, CacheLines& lines, const CacheTags& tags,
                  uint32_t page_bytes, uint64_t stripe_pages, bool cache_reads = false);

  bool caches_reads() const override { return cache_reads_; }
  bool admit(FtlRequest& r) override;
  void dirtied(int64_t line) override;
  void write_queued(bool buffered, CacheDrain mode) override;
  void write_done(uint64_t lpn, uint64_t seq, bool buffered, CacheDrain mode) override;
  void after_write(const FtlRequest& r) override;
  void changed() override;
  void resume() override;
  bool status(uint32_t& out) const override {
    out = level_->status();
    return true;
  }
  const WriteBufferLevel* level() const override { return level_.get(); }

 private:
  // The pages the current victimization event announced and has not sent,
  // while its announcement holds.
  uint64_t expected() const { return now_ps() - hint_at_ > hint_lapse_ ? 0 : expected_; }
  // Room for a write of `pages`: nothing is being drained (nothing would
  // make room), or the lines and copies in flight leave enough.
  bool fits(uint64_t pages) const { return draining_ == 0 || level_->level() + pages <= level_->capacity(); }
  uint64_t drain_foreground();  // pages sent
  void arm_background();
  void background_round();

  EventQueue& eq_;
  bool cache_reads_;
  CacheLines& lines_;
  const CacheTags& tags_;
  uint32_t page_;
  uint64_t fg_window_;  // foreground evictions at the FTL at most (drain_depth pages a plane)
  std::unique_ptr<WriteBufferLevel> level_;
  uint32_t bg_pages_;
  Tick bg_interval_, hint_lapse_;
  DirtyOrder dirty_order_;
  uint64_t draining_ = 0;             // lines' copies being written to the FTL
  uint64_t bg_out_ = 0, fg_out_ = 0;  // background and foreground evictions at the FTL
  uint64_t event_pages_ = 0, expected_ = 0;  // the victimization event announced, its pages not yet here
  Tick hint_at_ = 0;                         // the last tagged write
  bool bg_armed_ = false;
  bool fg_waiting_ = false;  // a foreground drain's window is full and pages above the low watermark wait
  Counter &fg_evictions_, &bg_evictions_, &fg_events_, &level_high_water_;
  WriteStalls stalls_;
};

}  // namespace vp::ssd
