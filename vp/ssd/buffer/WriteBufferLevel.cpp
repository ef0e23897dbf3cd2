// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/buffer/WriteBufferLevel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "vp/nvme/NvmeSpec.hpp"

namespace vp::ssd {

// Whole pages, rounded so that 0.8 of 10 is 8 and not 8.000000001.
WriteBufferLevel::WriteBufferLevel(uint64_t capacity, double high, double low, Tick step)
    : capacity_(capacity),
      high_(static_cast<uint64_t>(std::ceil(high * double(capacity) - 1e-9))),
      low_(static_cast<uint64_t>(std::floor(low * double(capacity) + 1e-9))),
      step_(std::max<Tick>(1, step)),
      high_signal_(high_),
      low_signal_(low_) {}

void WriteBufferLevel::attach(Waves& w, const std::string& scope) {
  if (!w.enabled()) return;
  const std::string g = Waves::group_name(scope);
  w.trace(level_, Waves::signal_name(scope, "level_pages"), g);
  w.trace(high_signal_, Waves::signal_name(scope, "high_watermark_pages"), g);
  w.trace(low_signal_, Waves::signal_name(scope, "low_watermark_pages"), g);
}

uint8_t WriteBufferLevel::percent() const {
  return static_cast<uint8_t>(std::min<uint64_t>(100, capacity_ ? level_ * 100 / capacity_ : 0));
}

uint32_t WriteBufferLevel::status() const {
  nvme::BufferState s = level_ >= high_ ? nvme::BUF_FULL : level_ <= low_ ? nvme::BUF_DRAINED : nvme::BUF_BETWEEN;
  return nvme::buffer_status(s, percent());
}

void WriteBufferLevel::set(uint64_t level, Tick now) {
  level_ = level;
  high_water_ = std::max(high_water_, level);
  Tick start = now - now % step_;
  if (rows_.empty() || rows_.back().step_start != start) {
    rows_.push_back({start, level, level});
  } else {
    rows_.back().max = std::max(rows_.back().max, level);
    rows_.back().end = level;
  }
}

nlohmann::json WriteBufferLevel::summary() const {
  nlohmann::json series = nlohmann::json::array();
  for (const Row& r : rows_) series.push_back({double(r.step_start) / 1e6, r.max, r.end});
  return {{"capacity_pages", capacity_},
          {"high_watermark_pages", high_},
          {"low_watermark_pages", low_},
          {"level_pages", level_},
          {"high_water_pages", high_water_},
          {"series_step_us", double(step_) / 1e6},
          {"series_columns", {"time_us", "max_pages", "end_pages"}},
          {"series", series}};
}

void WriteBufferLevel::write_csv(std::ostream& os) const {
  os << "time_us,max_pages,end_pages,end_percent,high_watermark_pages,low_watermark_pages\n";
  for (const Row& r : rows_)
    os << fmt::format("{:.3f},{},{},{},{},{}\n", double(r.step_start) / 1e6, r.max, r.end,
                      capacity_ ? r.end * 100 / capacity_ : 0, high_, low_);
}

}  // namespace vp::ssd
