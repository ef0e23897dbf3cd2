// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The FTL's view of every flash block: state, erase count, valid pages (a
// bitmap), programs still in flight, and per plane the free-block pool.
// Which logical page a physical page holds is in the page's spare area
// (GC reads it with the page). Blocks left full by preconditioning keep no
// bitmap until more than a few of their pages are invalidated.
#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include "vp/core/Units.hpp"
#include "vp/flash/FlashTypes.hpp"

namespace vp::ssd {

enum class BlockState : uint8_t { Free, Open, Full, Victim, Meta };

struct BlockInfo {
  static constexpr uint32_t kHoles = 4;
  std::unique_ptr<uint64_t[]> valid_bits;  // null: pages [0, rule_pages) valid but the holes
  Tick last_write = 0;
  uint32_t valid = 0;
  uint32_t erase_count = 0;
  uint32_t rule_pages = 0;
  uint16_t programming = 0;  // programs issued and not finished (at most a block's pages): not a GC victim yet
  uint16_t used[3] = {0, 0, 0};  // pages programmed or skipped, by page type
  // A block full by rule keeps its first few invalidated pages here, not in
  // a bitmap: random writes over a large drive leave most blocks with one or two.
  uint16_t holes[kHoles] = {0, 0, 0, 0};
  uint8_t nholes = 0;
  BlockState state = BlockState::Free;
  bool lsb_opened = false;  // opened for urgent LSB-only writes (FastDrain)
};

class BlockManager {
 public:
  BlockManager(const flash::FlashGeometry& g, bool wear_aware);

  const flash::FlashGeometry& geometry() const { return geo_; }
  bool wear_aware() const { return wear_aware_; }
  uint64_t blocks() const { return info_.size(); }
  uint32_t pages_of_type() const { return geo_.pages_per_block / geo_.bits_per_cell; }
  BlockInfo& operator[](uint64_t b) { return info_[b]; }
  const BlockInfo& operator[](uint64_t b) const { return info_[b]; }
  uint64_t plane_of(uint64_t block) const { return block / geo_.blocks_per_plane; }

  // Free pools: per physical plane, least-erased first when wear aware.
  void add_free(uint64_t block);
  bool take_free(uint64_t plane, uint64_t& block);
  uint32_t free_count(uint64_t plane) const { return static_cast<uint32_t>(free_[plane].size()); }
  uint64_t free_total() const { return free_total_; }

  // Opens a free block for writing: fresh summary and bitmap.
  void open(uint64_t block, Tick now);
  // The next page of `type` in the block, or false when that type is used up
  // (or, for CSB/MSB, its word line's lower page is not written yet).
  bool next_page(uint64_t block, flash::PageType type, uint32_t& page) const;
  // The lowest-numbered unused page (sequential programming).
  bool next_sequential(uint64_t block, uint32_t& page) const;
  void use(uint64_t block, uint32_t page, Tick now);  // allocated, valid
  void skip(uint64_t block, uint32_t page);                         // left unprogrammed (wasted)
  uint32_t used(uint64_t block) const;
  bool full(uint64_t block) const { return used(block) == geo_.pages_per_block; }

  bool valid(uint64_t block, uint32_t page) const;
  void invalidate(uint64_t block, uint32_t page);
  // Full from preconditioning: pages [0, pages) valid.
  void fill_by_rule(uint64_t block, uint32_t pages);
  void erased(uint64_t block);  // back to free, one more erase

  uint64_t host_bytes() const { return bitmap_blocks_ * bitmap_words() * 8 + info_.size() * sizeof(BlockInfo); }

 private:
  uint32_t bitmap_words() const { return (geo_.pages_per_block + 63) / 64; }
  void materialise(uint64_t block);
  uint32_t page_index(flash::PageType t, uint32_t k) const {
    return k * geo_.bits_per_cell +
           (t == flash::PageType::LSB ? 0 : t == flash::PageType::MSB ? geo_.bits_per_cell - 1 : 1);
  }

  flash::FlashGeometry geo_;
  bool wear_aware_;
  std::vector<BlockInfo> info_;
  using Entry = std::pair<uint32_t, uint64_t>;  // erase count, block (ties: lower block first)
  std::vector<std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>>> free_;
  uint64_t free_total_ = 0, bitmap_blocks_ = 0, fifo_seq_ = 0;
};

}  // namespace vp::ssd
