// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// DeepFlash's index lock (ILOCK, FAST'20 sec. 4.2, 5.2): the logical space
// in ranges of `range_pages` pages (256 KiB by default; one page is the
// page lock it is compared with), each range held by one NVMQ thread at a
// time, in an ordered tree indexed by range. The holder may take a range it
// already holds again (a count); anyone else gets the holder's id back, so
// it can forward its request there (ownership forwarding) or wait.
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace vp::ssd {

class IndexLock {
 public:
  static constexpr int kFree = -1;
  explicit IndexLock(uint32_t range_pages) : range_pages_(range_pages) {}
  uint32_t range_pages() const { return range_pages_; }
  uint64_t first_range(uint64_t lpn) const { return lpn / range_pages_; }
  uint64_t last_range(uint64_t lpn, uint32_t pages) const { return (lpn + (pages ? pages : 1) - 1) / range_pages_; }
  // Take every range of [lpn, lpn + pages) for `owner`, all or none: kFree
  // when taken, else the holder of the first range held by another.
  // `conflict` (if given) gets that range.
  int acquire(uint64_t lpn, uint32_t pages, int owner, uint64_t* conflict = nullptr);
  // True when `owner` holds every range (a forwarded request can go on
  // without asking again; the ranges are then counted once more).
  bool holds(uint64_t lpn, uint32_t pages, int owner) const;
  void retain(uint64_t lpn, uint32_t pages);
  // Give back one count of each range; returns the ranges that became free.
  std::vector<uint64_t> release(uint64_t lpn, uint32_t pages);
  int holder(uint64_t range) const;
  std::size_t nodes() const { return held_.size(); }
  // Levels of a balanced tree of the current nodes: what a lookup walks.
  uint32_t depth() const;

 private:
  struct Node {
    int owner;
    uint32_t count;
  };
  uint32_t range_pages_;
  std::map<uint64_t, Node> held_;
};

}  // namespace vp::ssd
