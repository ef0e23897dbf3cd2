#include "vp/ssd/CacheTags.hpp"

namespace vp::ssd {

CacheTags::CacheTags(uint32_t sets, uint32_t ways) : sets_(sets), ways_(ways), lines_(std::size_t(sets) * ways) {}

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
  if (l.dirty != d) dirty_ += d ? 1 : -1;
  l.dirty = d;
}

}  // namespace vp::ssd
