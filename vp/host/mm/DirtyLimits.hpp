// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Linux's dirty-page limits (mm/page-writeback.c, 4.9): the ratios are
// percent of the *dirtyable* memory, free pages plus file pages less the
// pages the kernel keeps in reserve (totalreserve_pages: each zone's high
// watermark and its largest lowmem reserve, mm/page_alloc.c), in Linux's
// integer arithmetic: a ratio becomes ratio x 4096 / 100 parts of 4096, and
// a background threshold at or above the hard one falls to half of it.
#include <cstdint>

namespace vp::host {

class DirtyLimits {
 public:
  // totalreserve_pages of a machine with `low_bytes` of DRAM below 4 GiB and
  // `high_bytes` above it: zones DMA (the first 16 MiB), DMA32 (the rest
  // below 4 GiB) and Normal; min_free_kbytes = sqrt(16 x lowmem KiB) in
  // [128, 65536]; watermark_scale_factor 10; lowmem_reserve_ratio 256, 256.
  static uint64_t reserve_pages(uint64_t low_bytes, uint64_t high_bytes);

  // The limits for `dirtyable` pages at the ratios (percent).
  DirtyLimits(uint64_t dirtyable, unsigned background_ratio, unsigned ratio);
  uint64_t background() const { return bg_; }  // the flusher writes back above this
  uint64_t hard() const { return hard_; }      // writers block at this (dirty + under write-back)

 private:
  uint64_t bg_, hard_;
};

}  // namespace vp::host
