// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The level of FastDrain's write buffer (CAL'20 sec. 3.2): the buffer's
// pages not yet on flash (dirty lines plus copies being written) against its
// capacity and the high / low watermarks, the status every completion
// reports (nvme::buffer_status), the highest level reached, a VCD signal of
// the level beside the two watermarks, and a level-over-time series (one
// row per step in which the level changed: its highest and last value) for
// summary.json and a CSV to plot.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "vp/core/Units.hpp"
#include "vp/core/Waves.hpp"

namespace vp::ssd {

class WriteBufferLevel {
 public:
  // Watermarks are fractions of the capacity; `step`: the series' time step.
  WriteBufferLevel(uint64_t capacity, double high, double low, Tick step);
  // Traces the level and watermarks as <scope>.level_pages, ... (the buffer's scope).
  void attach(Waves& w, const std::string& scope);

  void add(uint64_t pages, Tick now) { set(level_ + pages, now); }
  void remove(uint64_t pages, Tick now) { set(level_ - pages, now); }
  // The level is `pages` now (no row in the series if it did not change).
  void update(uint64_t pages, Tick now) {
    if (pages != level_) set(pages, now);
  }
  uint64_t level() const { return level_; }
  uint64_t capacity() const { return capacity_; }
  // The watermarks in pages: full at or above high_pages, drained at or below low_pages.
  uint64_t high_pages() const { return high_; }
  uint64_t low_pages() const { return low_; }
  uint64_t high_water() const { return high_water_; }
  uint8_t percent() const;
  // What a completion carries (nvme::buffer_status: state and percent).
  uint32_t status() const;

  nlohmann::json summary() const;
  // time_us, max_pages, end_pages, end_percent: one row per series step.
  void write_csv(std::ostream& os) const;

 private:
  void set(uint64_t level, Tick now);
  struct Row {
    Tick step_start;
    uint64_t max, end;
  };
  uint64_t capacity_, high_, low_;
  Tick step_;
  uint64_t level_ = 0, high_water_ = 0;
  uint64_t high_signal_, low_signal_;  // constants shown beside the level in GTKWave
  std::vector<Row> rows_;
};

}  // namespace vp::ssd
