// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The order a write buffer's lines became dirty in, oldest first: the
// write buffers drain (FastDrain) or flush (a conventional buffer) their
// oldest dirty data first. A line dirtied again goes to the back; entries
// of lines written back, replaced or dirtied since are skipped lazily.
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "vp/ssd/cache/CacheTags.hpp"

namespace vp::ssd {

class DirtyOrder {
 public:
  explicit DirtyOrder(const CacheTags& tags) : tags_(tags), stamp_of_(tags.lines(), 0) {}
  void dirtied(int64_t line) {
    stamp_of_[size_t(line)] = ++stamp_;
    order_.emplace_back(line, stamp_);
  }
  // The oldest dirty line, or -1.
  int64_t oldest() {
    while (!order_.empty()) {
      auto [l, stamp] = order_.front();
      if (tags_.line(l).dirty && stamp_of_[size_t(l)] == stamp) return l;
      order_.pop_front();
    }
    return -1;
  }

 private:
  const CacheTags& tags_;
  std::deque<std::pair<int64_t, uint64_t>> order_;  // (line, stamp) as lines became dirty
  std::vector<uint64_t> stamp_of_;                   // each line's latest stamp
  uint64_t stamp_ = 0;
};

}  // namespace vp::ssd
