// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The FTL's view of every flash block: state, erase count, valid pages (a
// bitmap), programs still in flight, and per plane the free-block pool.
// Which logical page a physical page holds is in the page's spare area
// (GC reads it with the page). Blocks left full by preconditioning keep no
// bitmap until more than a few of their pages are invalidated. A block's
// record exists once the block is written (vp/core/LazyTable.hpp), and a
// free pool holds runs of blocks, so a fresh terabyte drive costs no
// per-block memory until it is used.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "vp/core/LazyTable.hpp"
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
  // The block's record, made on first use; through a const manager a block
  // never used reads as a fresh one (free, never erased) and nothing is made.
  BlockInfo& operator[](uint64_t b) { return info_.at(b); }
  const BlockInfo& operator[](uint64_t b) const { return info_[b]; }
  void prefetch(uint64_t b) const { info_.prefetch(b); }  // a hint for the CPU cache
  // Reserved for metadata (always a record of its own): asks without making one.
  bool is_meta(uint64_t b) const {
    const BlockInfo* i = info_.find(b);
    return i && i->state == BlockState::Meta;
  }
  // The block's record if made (null: fresh, or as the fill rule has it).
  const BlockInfo* find(uint64_t b) const { return info_.find(b); }
  const flash::FillRule* fill_rule() const { return rule_; }
  // Blocks whose state, programs in flight or erase count may have changed
  // since take_changed last ran (all of them at first): what a checkpoint
  // saves of the block table. Marked by the manager's own changes and by
  // touch() where the FTL changes a record itself.
  void touch(uint64_t b) { changed_[b >> 6] |= uint64_t(1) << (b & 63); }
  template <class F>
  void take_changed(F&& f) {
    for (uint64_t w = 0; w < changed_.size(); ++w)
      for (uint64_t bits = std::exchange(changed_[w], 0); bits; bits &= bits - 1)
        f(w * 64 + uint64_t(__builtin_ctzll(bits)));
  }
  uint64_t plane_of(uint64_t block) const { return block / geo_.blocks_per_plane; }

  // Free pools: per physical plane, least-erased first when wear aware.
  void add_free(uint64_t block);
  // add_free for every block in state Free, in block order (start-up).
  void add_free_all();
  bool take_free(uint64_t plane, uint64_t& block);
  uint32_t free_count(uint64_t plane) const { return free_[plane].count; }
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
  // The next unit of `type` the block would give (past its end: used up).
  uint32_t next_of_type(uint64_t block, flash::PageType type) const {
    return page_index(type, info_[block].used[int(type)]);
  }
  // Sub-page mapping: the units left in the block's partly used pages are
  // never written (a block set up functionally starts its run on whole pages).
  void round_up_to_pages(uint64_t block);
  uint32_t used(uint64_t block) const;
  bool full(uint64_t block) const { return used(block) == geo_.pages_per_block; }

  bool valid(uint64_t block, uint32_t page) const;
  void invalidate(uint64_t block, uint32_t page);
  // Full from preconditioning: pages [0, pages) valid.
  void fill_by_rule(uint64_t block, uint32_t pages);
  // fill_by_rule(b, rule->fill_of(b).pages) for every block with pages, last
  // written at `written`, each done when the block's record is first made;
  // `rule` outlives the manager's use.
  void set_fill_rule(const flash::FillRule* rule, Tick written = 0);
  void erased(uint64_t block);  // back to free, one more erase

  uint64_t host_bytes() const;
  // Erase counts over the blocks not reserved for metadata.
  struct Wear {
    uint64_t blocks = 0, sum = 0;
    uint32_t min = 0, max = 0;
  };
  Wear wear() const;

 private:
  uint32_t bitmap_words() const { return (geo_.pages_per_block + 63) / 64; }
  void materialise(uint64_t block);
  static void fill(BlockInfo& i, uint32_t pages, uint32_t bits_per_cell, uint16_t pages_of_type);
  // The k-th page of type t; with sub-page mapping, the k-th unit of pages of that type.
  uint32_t page_index(flash::PageType t, uint32_t k) const {
    const uint32_t u = geo_.units_per_page;
    return ((k / u) * geo_.bits_per_cell +
            (t == flash::PageType::LSB ? 0 : t == flash::PageType::MSB ? geo_.bits_per_cell - 1 : 1)) * u + k % u;
  }

  // Free blocks lo..hi-1 of a plane (indices within it) sharing one key:
  // the erase count when wear aware (ties: lower block first), else the
  // order added, first in first out. Runs never overlap, so ordering them by
  // (key, lo) orders their blocks.
  struct Run {
    uint64_t key;
    uint32_t lo, hi;
    bool operator>(const Run& o) const { return key != o.key ? key > o.key : lo > o.lo; }
  };
  // A plane's pool: the run added last, open to the next block added if it
  // follows on with the same key, and a heap of the others.
  struct Pool {
    std::vector<Run> heap;
    Run tail{0, 0, 0};
    uint32_t count = 0;
  };
  void pool_add(uint64_t plane, uint32_t j, uint64_t key);

  flash::FlashGeometry geo_;
  bool wear_aware_;
  LazyTable<BlockInfo, 8> info_;
  const flash::FillRule* rule_ = nullptr;
  std::vector<Pool> free_;
  std::vector<uint64_t> changed_;  // a bit a block
  uint64_t free_total_ = 0, bitmap_blocks_ = 0, fifo_seq_ = 0;
};

}  // namespace vp::ssd
