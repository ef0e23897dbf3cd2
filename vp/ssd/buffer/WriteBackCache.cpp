// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/buffer/WriteBackCache.hpp"

#include <algorithm>

namespace vp::ssd {

WriteBackCache::WriteBackCache(uint64_t buffer_pages, CacheLines& lines, const StatGroup& stats)
    : capacity_(buffer_pages),
      lines_(lines),
      copies_max_(stats.counter("write_buffer.copies_max", "pages",
                                "most replaced or written-back pages in the write buffer at once, awaiting their "
                                "programs")),
      stalls_(stats.counter("write_buffer.stalled_writes", "commands",
                            "host writes that waited for room in the write buffer"),
              stats.counter("write_buffer.stall_ps", "ps", "time host writes waited for the write buffer, summed")) {}

nlohmann::json WriteBackCache::summary() const {
  return {{"capacity_pages", capacity_},
          {"copies_max", copies_max_.value},
          {"stalled_writes", stalls_.held()},
          {"stall_s", double(stalls_.stall_ps()) / double(SEC)}};
}

bool WriteBackCache::admit(FtlRequest& r) {
  return stalls_.admit(r, [this](uint64_t pages) { return fits(pages); });
}

void WriteBackCache::write_queued(bool buffered, CacheDrain) {
  copies_ += buffered;
  copies_max_.value = std::max(copies_max_.value, copies_);
}

void WriteBackCache::write_done(uint64_t, uint64_t, bool buffered, CacheDrain) { copies_ -= buffered; }

void WriteBackCache::resume() {
  stalls_.release([this](uint64_t pages) { return fits(pages); }, lines_);
}

}  // namespace vp::ssd
