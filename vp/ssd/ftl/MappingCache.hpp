// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The cached mapping table of a DFTL-style FTL: which translation pages
// (one flash page of map entries each) are in SSD DRAM, least recently used
// first out, and which of them changed since they were read. Pure
// bookkeeping: the FTL does the flash reads and write-backs.
#include <cstdint>
#include <list>
#include <unordered_map>

namespace vp::ssd {

class MappingCache {
 public:
  explicit MappingCache(uint64_t capacity) : capacity_(capacity) {}

  uint64_t capacity() const { return capacity_; }
  bool contains(uint32_t tp) const { return index_.count(tp) != 0; }
  // A hit moves the page to the most recently used end.
  bool touch(uint32_t tp) {
    auto it = index_.find(tp);
    if (it == index_.end()) return false;
    lru_.splice(lru_.end(), lru_, it->second.pos);
    return true;
  }
  bool mark_dirty(uint32_t tp) {
    auto it = index_.find(tp);
    if (it == index_.end()) return false;
    it->second.dirty = true;
    return true;
  }
  // Inserts a page just read; when that overflows the cache the least
  // recently used page leaves: returns true and names it, with its dirt.
  bool insert(uint32_t tp, uint32_t& evicted, bool& dirty) {
    if (touch(tp)) return false;
    lru_.push_back(tp);
    index_[tp] = Entry{std::prev(lru_.end()), false};
    if (lru_.size() <= capacity_) return false;
    evicted = lru_.front();
    lru_.pop_front();
    auto it = index_.find(evicted);
    dirty = it->second.dirty;
    index_.erase(it);
    return true;
  }
  void clear() {
    lru_.clear();
    index_.clear();
  }

 private:
  struct Entry {
    std::list<uint32_t>::iterator pos;
    bool dirty;
  };
  uint64_t capacity_;
  std::list<uint32_t> lru_;
  std::unordered_map<uint32_t, Entry> index_;
};

}  // namespace vp::ssd
