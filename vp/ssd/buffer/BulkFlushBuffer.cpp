// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/buffer/BulkFlushBuffer.hpp"

namespace vp::ssd {

void BulkFlushBuffer::declare_params(const ParamScope& r) {
  r.integer("pages", 0,
            "bulk: pages one flush writes to flash when a write finds its set full of dirty lines (the set's least "
            "recently used line, then the oldest dirty ones); 0: one page for every plane of every die, as "
            "SimpleSSD's generic cache evicts when full")
      .range(0, 1 << 24);
  r.time("series_step", "10us", "bulk: time step of the buffer-level series (summary write_buffer, write_buffer.csv)");
}

BulkFlushBuffer::BulkFlushBuffer(Services& svc, const std::string& scope, CacheLines& lines, const CacheTags& tags,
                                 uint64_t stripe_pages)
    : lines_(lines),
      tags_(tags),
      bulk_pages_([&] {
        uint64_t p = static_cast<uint64_t>(ScopedConfig(svc.cfg, scope).get_int("pages"));
        return p ? p : std::max<uint64_t>(1, stripe_pages);
      }()),
      order_(tags),
      flushes_(StatGroup(svc.stats, scope)
                   .counter("flushes", "flushes", "bulk flushes: writes that found their set full of dirty lines")),
      flushed_pages_(StatGroup(svc.stats, scope).counter("flushed_pages", "pages", "dirty pages bulk flushes wrote")),
      level_high_water_(StatGroup(svc.stats, scope)
                            .counter("level_high_water", "pages",
                                     "most buffer pages not yet on flash at once (dirty lines and copies in flight)")),
      stalls_(StatGroup(svc.stats, scope)) {
  // No watermarks: the level is reported against the whole buffer.
  level_ = std::make_unique<WriteBufferLevel>(tags.lines(), 1.0, 0.0,
                                              ScopedConfig(svc.cfg, scope).get_time("series_step"));
  level_->attach(svc.waves, scope);
}

bool BulkFlushBuffer::admit(FtlRequest& r) {
  return stalls_.admit(r, [this](uint64_t pages) { return fits(pages); });
}

void BulkFlushBuffer::resume() {
  stalls_.release([this](uint64_t pages) { return fits(pages); }, lines_);
}

// The written page's set has no clean or free line: flush a bulk, the
// set's victim first so the write can take it.
void BulkFlushBuffer::replacing(int64_t line) {
  if (!tags_.line(line).dirty) return;
  ++flushes_;
  lines_.drain_line(line, CacheDrain::Bulk);
  uint64_t sent = 1;
  for (int64_t l; sent < bulk_pages_ && (l = order_.oldest()) >= 0; ++sent) lines_.drain_line(l, CacheDrain::Bulk);
  flushed_pages_ += sent;
  changed();
}

void BulkFlushBuffer::write_queued(bool buffered, CacheDrain) { draining_ += buffered; }

void BulkFlushBuffer::write_done(uint64_t, uint64_t, bool buffered, CacheDrain) { draining_ -= buffered; }

void BulkFlushBuffer::changed() {
  level_->update(tags_.dirty_lines() + draining_, now_ps());
  level_high_water_.value = level_->high_water();
}

}  // namespace vp::ssd
