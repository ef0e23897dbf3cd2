// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Entries of a node-based map that come and go once per I/O (a job per
// command, a page being programmed) reuse the nodes of erased ones (C++17
// node handles) instead of a malloc and a free each: dozens are live at a
// time, more of one size than malloc's per-thread cache keeps. The map
// itself is unchanged: same buckets, same lookups.
#include <utility>
#include <vector>

namespace vp {

template <class Map>
class RecycledNodes {
 public:
  // m[key]: the entry for `key`, made (its value value-initialised) in a
  // kept node when there is one.
  typename Map::mapped_type& entry(Map& m, const typename Map::key_type& key) {
    if (spare_.empty()) return m[key];
    if (auto it = m.find(key); it != m.end()) return it->second;
    typename Map::node_type n = std::move(spare_.back());
    spare_.pop_back();
    n.key() = key;
    n.mapped() = typename Map::mapped_type{};
    return m.insert(std::move(n)).position->second;
  }
  // m.erase(it), the node kept for the next entry.
  void erase(Map& m, typename Map::iterator it) { spare_.push_back(m.extract(it)); }

 private:
  std::vector<typename Map::node_type> spare_;
};

}  // namespace vp
