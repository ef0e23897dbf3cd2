// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The tag array of a set-associative page cache: `sets` sets of `ways`
// lines, a logical page in set lpn mod sets, least recently used
// replacement within the ways a request may fill. A line remembers which
// class filled it (the partitioned cache's way owner).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vp::ssd {

class CacheTags {
 public:
  struct Line {
    uint64_t lpn = 0;
    uint64_t used = 0;  // LRU stamp
    bool valid = false, dirty = false;
    uint8_t owner = 0;  // class that filled it
  };

  CacheTags(uint32_t sets, uint32_t ways);
  uint32_t sets() const { return sets_; }
  uint32_t ways() const { return ways_; }
  uint64_t lines() const { return uint64_t(sets_) * ways_; }
  uint32_t set_of(uint64_t lpn) const { return static_cast<uint32_t>(lpn % sets_); }
  // The line holding lpn (index set * ways + way), or -1.
  int64_t find(uint64_t lpn) const;
  Line& line(int64_t i) { return lines_[static_cast<std::size_t>(i)]; }
  const Line& line(int64_t i) const { return lines_[static_cast<std::size_t>(i)]; }
  unsigned way_of(int64_t i) const { return static_cast<unsigned>(i % ways_); }
  // The line of lpn's set to replace among the ways `allowed(way)` says:
  // an invalid one first, else the least recently used; -1 if none allowed.
  template <class Allowed>
  int64_t victim(uint64_t lpn, Allowed allowed) const {
    int64_t best = -1;
    int64_t base = int64_t(set_of(lpn)) * ways_;
    for (uint32_t w = 0; w < ways_; ++w) {
      if (!allowed(w)) continue;
      const Line& l = lines_[std::size_t(base + w)];
      if (!l.valid) return base + w;
      if (best < 0 || l.used < lines_[std::size_t(best)].used) best = base + w;
    }
    return best;
  }
  void touch(int64_t i) { lines_[std::size_t(i)].used = ++clock_; }
  void fill(int64_t i, uint64_t lpn, uint8_t owner);
  void invalidate(int64_t i) {
    set_dirty(i, false);
    lines_[std::size_t(i)] = Line{};
  }
  uint64_t dirty_lines() const { return dirty_.size(); }
  // The dirty lines in line order (a Flush writes them back without
  // walking every line of a large cache).
  std::vector<int64_t> dirty_in_order() const;
  void set_dirty(int64_t i, bool d);

 private:
  uint32_t sets_, ways_;
  std::vector<Line> lines_;
  uint64_t clock_ = 0;
  std::vector<int64_t> dirty_;     // the dirty lines, unordered
  std::vector<uint32_t> dirty_at_;  // per line: its place in dirty_ + 1, 0 if clean
};

}  // namespace vp::ssd
