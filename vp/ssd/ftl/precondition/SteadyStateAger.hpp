// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One plane aged by uniform random overwrites the way Preconditioner's
// replay ages a whole drive (the host's open block, greedy GC into its own
// open block when the plane runs short of free blocks, the free pool's
// order), keeping only each block's page counts. Under uniform random
// writes round-robin over the planes every plane ages alike, so a few
// planes aged this way stand for all of them (ssd.precondition.age_model=
// sampled): each write here invalidates a page drawn uniformly from this
// plane's valid pages, where on the drive it invalidates one drawn from
// all planes' (the same rate per plane on average).
#include <cstdint>
#include <deque>
#include <set>
#include <utility>
#include <vector>

#include "vp/core/Rng.hpp"

namespace vp::ssd {

class SteadyStateAger {
 public:
  enum class Kind : uint8_t { Free, Full, Host, Gc };  // Host/Gc: the open block of host writes / of GC
  struct Block {
    uint32_t written = 0, valid = 0, erases = 0;
    Kind kind = Kind::Free;
  };
  struct Params {
    uint64_t blocks = 0, pages_per_block = 0;
    uint64_t fill_pages = 0;  // valid pages the fill leaves, in the plane's first blocks
    uint64_t overwrites = 0;  // host writes the plane takes while ageing
    uint32_t fg_threshold = 2;  // GC while fewer free blocks than this (gc.fg_threshold)
    uint32_t reserve = 1;       // free blocks host writes leave to GC (PageAllocator::kGcReserve)
    bool wear_aware = true;     // free pool least-erased first (else first in, first out)
    uint64_t seed = 0;
  };
  struct Full {};  // the plane filled with valid data: nothing to reclaim

  explicit SteadyStateAger(const Params& p);
  // Fills and ages the plane; throws Full when the fill does not fit or GC
  // finds no victim.
  void run();
  const std::vector<Block>& blocks() const { return blocks_; }
  // Free blocks in the order the pool hands them out.
  std::vector<uint32_t> free_order() const;
  uint64_t moved() const { return moved_; }  // GC page moves while ageing

 private:
  void add_valid(uint32_t b, int64_t d);
  uint32_t draw_valid();  // a block, with probability its share of the valid pages
  bool take_free(uint32_t& b);
  void add_free(uint32_t b);
  uint32_t open(Kind k);
  void place(uint32_t& slot, Kind k);
  void collect();

  Params p_;
  Rng rng_;
  std::vector<Block> blocks_;
  std::vector<int64_t> tree_;  // Fenwick tree of valid pages per block
  uint64_t valid_total_ = 0, moved_ = 0;
  std::set<std::pair<uint32_t, uint32_t>> pool_;  // wear aware: (erases, block)
  std::deque<uint32_t> fifo_;                     // otherwise
  uint32_t host_ = UINT32_MAX, gc_ = UINT32_MAX;
};

}  // namespace vp::ssd
