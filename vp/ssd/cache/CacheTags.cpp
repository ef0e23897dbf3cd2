// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/cache/CacheTags.hpp"

#include <algorithm>

namespace vp::ssd {

CacheTags::CacheTags(uint32_t sets, uint32_t ways)
    : sets_(sets), ways_(ways), lines_(std::size_t(sets) * ways), dirty_at_(lines_.size(), 0) {}

int64_t CacheTags::find(uint64_t lpn) const {
  int64_t base = int64_t(set_of(lpn)) * ways_;
  for (uint32_t w = 0; w < ways_; ++w) {
    const Line& l = lines_[std::size_t(base + w)];
    if (l.valid && l.lpn == lpn) return base + w;
  }
  return -1;
}

void CacheTags::fill(int64_t i, uint64_t lpn, uint8_t owner) {
  set_dirty(i, false);
  Line& l = lines_[std::size_t(i)];
  l.lpn = lpn;
  l.valid = true;
  l.owner = owner;
  touch(i);
}

void CacheTags::set_dirty(int64_t i, bool d) {
  Line& l = lines_[std::size_t(i)];
  if (l.dirty == d) return;
  l.dirty = d;
  uint32_t& at = dirty_at_[std::size_t(i)];
  if (d) {
    dirty_.push_back(i);
    at = static_cast<uint32_t>(dirty_.size());
  } else {  // the last entry takes its place
    int64_t last = dirty_.back();
    dirty_[at - 1] = last;
    dirty_at_[std::size_t(last)] = at;
    dirty_.pop_back();
    at = 0;
  }
}

std::vector<int64_t> CacheTags::dirty_in_order() const {
  std::vector<int64_t> v = dirty_;
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace vp::ssd
