// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/firmware/IndexLock.hpp"

namespace vp::ssd {

int IndexLock::acquire(uint64_t lpn, uint32_t pages, int owner, uint64_t* conflict) {
  uint64_t first = first_range(lpn), last = last_range(lpn, pages);
  for (auto it = held_.lower_bound(first); it != held_.end() && it->first <= last; ++it)
    if (it->second.owner != owner) {
      if (conflict) *conflict = it->first;
      return it->second.owner;
    }
  for (uint64_t r = first; r <= last; ++r) {
    auto [it, fresh] = held_.try_emplace(r, Node{owner, 0});
    ++it->second.count;
  }
  return kFree;
}

bool IndexLock::holds(uint64_t lpn, uint32_t pages, int owner) const {
  for (uint64_t r = first_range(lpn), last = last_range(lpn, pages); r <= last; ++r) {
    auto it = held_.find(r);
    if (it == held_.end() || it->second.owner != owner) return false;
  }
  return true;
}

void IndexLock::retain(uint64_t lpn, uint32_t pages) {
  for (uint64_t r = first_range(lpn), last = last_range(lpn, pages); r <= last; ++r) ++held_.at(r).count;
}

std::vector<uint64_t> IndexLock::release(uint64_t lpn, uint32_t pages) {
  std::vector<uint64_t> freed;
  for (uint64_t r = first_range(lpn), last = last_range(lpn, pages); r <= last; ++r) {
    auto it = held_.find(r);
    if (it == held_.end()) continue;
    if (--it->second.count == 0) {
      held_.erase(it);
      freed.push_back(r);
    }
  }
  return freed;
}

int IndexLock::holder(uint64_t range) const {
  auto it = held_.find(range);
  return it == held_.end() ? kFree : it->second.owner;
}

uint32_t IndexLock::depth() const {
  uint32_t d = 0;
  for (std::size_t n = held_.size(); n; n >>= 1) ++d;
  return d;
}

}  // namespace vp::ssd
