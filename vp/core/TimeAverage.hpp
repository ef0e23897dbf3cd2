// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A level that changes at instants (commands held, pages buffered), with
// its time-weighted mean and its maximum, as gem5's Stats::Average does
// over simulated time. The maximum is a counter registered by the owner.
#include <algorithm>
#include <cstdint>

#include "vp/core/Counter.hpp"
#include "vp/core/Units.hpp"

namespace vp {

class TimeAverage {
 public:
  explicit TimeAverage(Counter& max) : max_(max) {}
  void set(uint64_t level, Tick now) {
    area_ += static_cast<long double>(level_) * static_cast<long double>(now - since_);
    since_ = now;
    level_ = level;
    max_.value = std::max(max_.value, level);
  }
  uint64_t level() const { return level_; }
  // Mean level over [0, now].
  double mean(Tick now) const {
    if (now == 0) return 0.0;
    long double a = area_ + static_cast<long double>(level_) * static_cast<long double>(now - since_);
    return static_cast<double>(a / static_cast<long double>(now));
  }

 private:
  Counter& max_;
  uint64_t level_ = 0;
  Tick since_ = 0;
  long double area_ = 0;
};

}  // namespace vp
