// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/buffer/FastDrainBuffer.hpp"

#include <algorithm>

namespace vp::ssd {

namespace {
// FastDrain's CDW3 counts the host's 4 KiB pages.
constexpr uint64_t kHostPage = 4096;
}  // namespace

void FastDrainBuffer::declare_params(const ParamScope& r) {
  r.real("high_watermark", 0.8,
         "fastdrain: buffer level (fraction of its lines) at which it reports full and a foreground drain starts")
      .range(0.0, 1.0);
  r.real("low_watermark", 0.2,
         "fastdrain: level a foreground drain goes down to, at or below which the buffer reports drained")
      .range(0.0, 1.0);
  r.integer("drain_depth", 0,
            "fastdrain: pages per plane of the drive a foreground drain keeps at the FTL at once, the rest of it "
            "waiting in the buffer for their turn (0: a drain sends all its pages at once)")
      .range(0, 65536);
  r.integer("bg_pages", 8, "fastdrain: most background evictions at the FTL at once (pages sent per round)")
      .range(1, 65536);
  // A round re-arms while lines are dirty, also when it may not send: a
  // period far below a flash operation only spins.
  r.time("bg_interval", "100us", "fastdrain: time between background eviction rounds").at_least(double(1 * US));
  r.time("hint_lapse", "1ms",
         "fastdrain: a victimization event's announced pages not sent after this long without a tagged write "
         "no longer count (the host announces every dirty page, an fsync writes back one file's)");
  r.time("series_step", "10us",
         "fastdrain: time step of the buffer-level series (summary write_buffer, write_buffer.csv)");
}

FastDrainBuffer::FastDrainBuffer(Services& svc, const std::string& scope, EventQueue& eq, CacheLines& lines,
                                 const CacheTags& tags, uint32_t page_bytes, uint64_t stripe_pages, bool cache_reads)
    : eq_(eq),
      cache_reads_(cache_reads),
      lines_(lines),
      tags_(tags),
      page_(page_bytes),
      fg_window_([&] {
        uint64_t d = static_cast<uint64_t>(ScopedConfig(svc.cfg, scope).get_int("drain_depth"));
        return d ? d * std::max<uint64_t>(1, stripe_pages) : UINT64_MAX;
      }()),
      bg_pages_(static_cast<uint32_t>(ScopedConfig(svc.cfg, scope).get_int("bg_pages"))),
      bg_interval_(ScopedConfig(svc.cfg, scope).get_time("bg_interval")),
      hint_lapse_(ScopedConfig(svc.cfg, scope).get_time("hint_lapse")),
      dirty_order_(tags),
      fg_evictions_(StatGroup(svc.stats, scope)
                        .counter("foreground_evictions", "pages",
                                 "pages drained urgently (LSB first) because the buffer would pass its high watermark")),
      bg_evictions_(StatGroup(svc.stats, scope)
                        .counter("background_evictions", "pages",
                                 "pages evicted in background rounds while no host work was at the FTL")),
      fg_events_(StatGroup(svc.stats, scope)
                     .counter("foreground_drains", "drains",
                              "foreground drains started (level plus announced pages above the high watermark)")),
      level_high_water_(StatGroup(svc.stats, scope)
                            .counter("level_high_water", "pages",
                                     "most buffer pages not yet on flash at once (dirty lines and copies in flight)")),
      stalls_(StatGroup(svc.stats, scope)) {
  ScopedConfig cfg(svc.cfg, scope);
  level_ = std::make_unique<WriteBufferLevel>(tags.lines(), cfg.get_real("high_watermark"),
                                              cfg.get_real("low_watermark"), cfg.get_time("series_step"));
  level_->attach(svc.waves, scope);
}

// The write buffer's DRAM is full of lines and copies still being written:
// the write waits for space (in order) as a real buffer's would.
bool FastDrainBuffer::admit(FtlRequest& r) {
  return stalls_.admit(r, [this](uint64_t pages) { return fits(pages); });
}

void FastDrainBuffer::resume() {
  stalls_.release([this](uint64_t pages) { return fits(pages); }, lines_);
  if (fg_waiting_ && drain_foreground()) changed();
}

void FastDrainBuffer::write_queued(bool buffered, CacheDrain mode) {
  draining_ += buffered;
  bg_out_ += mode == CacheDrain::Background;
  fg_out_ += mode == CacheDrain::Foreground;
}

void FastDrainBuffer::write_done(uint64_t, uint64_t, bool buffered, CacheDrain mode) {
  draining_ -= buffered;
  bg_out_ -= mode == CacheDrain::Background;
  fg_out_ -= mode == CacheDrain::Foreground;
}

void FastDrainBuffer::changed() {
  level_->update(tags_.dirty_lines() + draining_, now_ps());
  level_high_water_.value = level_->high_water();
}

// Lines are drained oldest dirty first: the order they became dirty in.
void FastDrainBuffer::dirtied(int64_t l) { dirty_order_.dirtied(l); }

// After a write is in the buffer: the future level is the level now plus
// what the current victimization event announced and has not sent yet. Past
// the high watermark, a foreground drain to all dies (urgent writes) goes
// down to the low watermark; while it is at the FTL or waiting for room in
// its window, new dirty pages above the low watermark join it.
void FastDrainBuffer::after_write(const FtlRequest& r) {
  if (r.victim) {
    uint64_t announced = (uint64_t(r.victim_pages) * kHostPage + page_ - 1) / page_;
    if (announced != event_pages_ || expected() == 0) expected_ = event_pages_ = announced;  // a new event
    expected_ -= std::min<uint64_t>(expected_, r.pages);
    hint_at_ = now_ps();
  }
  changed();
  if (level_->level() + expected() > level_->high_pages() || fg_out_ > 0 || fg_waiting_) {
    bool starts = fg_out_ == 0 && !fg_waiting_;
    if (drain_foreground() && starts) ++fg_events_;
    changed();
  }
  arm_background();
}

// Sends the drain's oldest dirty pages down to the low watermark, no more
// than its window at the FTL at once: the rest waits in the buffer, and a
// read meets at most drain_depth of its programs at each plane.
uint64_t FastDrainBuffer::drain_foreground() {
  uint64_t sent = 0;
  while (tags_.dirty_lines() > level_->low_pages() && fg_out_ < fg_window_) {
    int64_t l = dirty_order_.oldest();
    if (l < 0) break;
    lines_.drain_line(l, CacheDrain::Foreground);
    ++sent;
  }
  fg_waiting_ = tags_.dirty_lines() > level_->low_pages() && fg_out_ >= fg_window_;
  fg_evictions_ += sent;
  return sent;
}

// Background rounds run while lines are dirty, every bg_interval; none is
// scheduled while the buffer is clean.
void FastDrainBuffer::arm_background() {
  if (bg_armed_ || tags_.dirty_lines() == 0) return;
  bg_armed_ = true;
  eq_.after(bg_interval_, [this] {
    bg_armed_ = false;
    background_round();
    arm_background();
  });
}

// A round sends up to bg_pages oldest dirty pages, fewer by the background
// evictions still at the FTL, when the future level is under the high
// watermark and the FTL has no host work of this layer nor a foreground
// drain (the cache cannot see which dies are idle, so it waits for all).
void FastDrainBuffer::background_round() {
  if (lines_.host_work_at_ftl() || fg_waiting_ || fg_out_ > 0) return;
  if (level_->level() + expected() > level_->high_pages()) return;
  uint64_t sent = 0;
  while (bg_out_ < bg_pages_) {
    int64_t l = dirty_order_.oldest();
    if (l < 0) break;
    lines_.drain_line(l, CacheDrain::Background);
    ++sent;
  }
  bg_evictions_ += sent;
  changed();
}

}  // namespace vp::ssd
