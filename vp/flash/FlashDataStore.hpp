// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Page contents and spare areas, stored sparsely so memory follows what was
// written, not the capacity. A block's spare-area array is allocated the
// first time one of its pages is programmed, and its array of 16-byte page
// records the first time one holds something other than zeros (the pages of
// a block are programmed together, so a flat array per block is denser than
// a map of pages). A page made wholly of verify units
// (vp/core/VerifyPattern.hpp) or zero units keeps their 16-byte names, not
// their bytes, and a run of consecutive units of one write (what a
// verifying writer leaves on nearly every page) only the first and its
// version, in the record itself. A block preconditioned with an arithmetic
// run of logical pages, or of a fill's write indices through its
// permutation, keeps only that rule. A block's record exists once the block
// is programmed, ruled or erased (vp/core/LazyTable.hpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "vp/core/LazyTable.hpp"
#include "vp/core/VerifyPattern.hpp"
#include "vp/flash/FlashTypes.hpp"

namespace vp::flash {

class FlashDataStore {
 public:
  FlashDataStore(uint32_t page_size, uint32_t pages_per_block, uint64_t blocks)
      : page_size_(page_size), ppb_(pages_per_block), blocks_(blocks) {}

  FlashDataStore(const FlashDataStore&) = delete;
  FlashDataStore& operator=(const FlashDataStore&) = delete;
  ~FlashDataStore() {
    if (!data_blocks_) return;
    blocks_.for_each_chunk([&](uint64_t, uint64_t n, Block* c) {
      for (uint64_t k = 0; c && k < n; ++k) clear_data(c[k]);
    });
  }

  uint32_t unit_size() const { return page_size_; }  // what a `ppn` here holds: a page, or a mapping unit

  bool programmed(uint64_t ppn) const {
    const Block& b = blocks_[ppn / ppb_];
    uint32_t p = static_cast<uint32_t>(ppn % ppb_);
    return b.oob ? b.oob[p].seq != 0 || b.oob[p].lpn != kNoLpn : p < b.rule_pages;
  }
  // `data` may be null: the page holds zeros.
  void program(uint64_t ppn, const uint8_t* data, const FlashOob& oob) {
    Block& b = materialise(ppn / ppb_);
    const uint32_t at = static_cast<uint32_t>(ppn % ppb_);
    b.oob[at] = oob;
    if (data && !all_zero(data, page_size_)) {
      if (!b.data) {
        b.data.reset(new Page[ppb_]);
        ++data_blocks_;
      }
      Page& p = b.data[at];
      drop(p);
      if (!encode(data, p)) {
        p.kind = Kind::Raw;
        p.heap = new uint8_t[page_size_];
        std::memcpy(p.heap, data, page_size_);
      }
      count(p, +1);
    } else if (b.data) {
      drop(b.data[at]);
    }
  }
  void prefetch(uint64_t ppn) const { blocks_.prefetch(ppn / ppb_); }
  // A page never programmed reads as zeros with an empty spare area. Without
  // `oob` the block's state is not touched (a host read: one cache miss
  // fewer on a large device).
  void read(uint64_t ppn, uint8_t* data, FlashOob* oob) const {
    if (data) {
      const Page* p = page(ppn);
      if (p)
        decode(*p, data);
      else
        std::memset(data, 0, page_size_);
    }
    if (oob) *oob = programmed(ppn) ? oob_of(ppn) : FlashOob{};
  }
  // Same die and plane copy without the data leaving the chip; `spare`, if
  // given, replaces the spare area (copy-back with data input).
  void copy(uint64_t src, uint64_t dst, const FlashOob* spare = nullptr) {
    FlashOob o = spare ? *spare : oob_of(src);
    const Page* p = page(src);
    if (!p) return program(dst, nullptr, o);
    std::vector<uint8_t> bytes(page_size_);
    decode(*p, bytes.data());
    program(dst, bytes.data(), o);
  }
  // Pages [0, pages) hold lpn first_lpn + p x stride, or with `order` that
  // value through it (one permutation for the whole store).
  void set_rule(uint64_t block, uint32_t pages, uint32_t first_lpn, uint32_t stride, uint32_t seq,
                const RandomPermutation* order = nullptr) {
    clear(block);
    if (order) {
      if (order_ && order_ != order) throw std::logic_error("flash store: two permutations of preconditioned pages");
      if (stride & kPermuted) throw std::logic_error("flash store: a permuted rule's stride must be below 2^31");
      order_ = order;
      stride |= kPermuted;
    }
    Block& b = blocks_.at(block);
    b.rule_pages = pages;
    b.first_lpn = first_lpn;
    b.stride = stride;
    b.seq = seq;
    b.as_filled = true;
  }
  // Every block untouched so far holds what set_rule would put there for
  // rule->fill_of(block), made when the block is first read or changed.
  void set_fill_rule(const FillRule* rule, uint32_t seq, const RandomPermutation* order) {
    if (order) {
      if (order_ && order_ != order) throw std::logic_error("flash store: two permutations of preconditioned pages");
      order_ = order;
    }
    blocks_.for_each_chunk([&](uint64_t first, uint64_t n, const Block* made) {  // blocks made already
      for (uint64_t k = first; made && k < first + n; ++k)
        if (const BlockFill f = rule->fill_of(k); f.pages)
          set_rule(k, f.pages, f.first_lpn, f.lpn_stride, seq, f.permuted ? order : nullptr);
    });
    fill_rule_ = true;
    blocks_.set_filler([rule, seq, order](uint64_t first, uint64_t n, Block* out) {
      for (uint64_t k = 0; k < n; ++k) {
        out[k].as_filled = true;
        const BlockFill f = rule->fill_of(first + k);
        if (!f.pages) continue;
        if (f.permuted && (!order || (f.lpn_stride & kPermuted)))
          throw std::logic_error("flash store: a permuted fill without a permutation or with a stride past 2^31");
        out[k].rule_pages = f.pages;
        out[k].first_lpn = f.first_lpn;
        out[k].stride = f.lpn_stride | (f.permuted ? kPermuted : 0);
        out[k].seq = seq;
      }
    });
  }
  // Erasing counts one program/erase cycle of the block.
  void erase(uint64_t block) {
    clear(block);
    ++blocks_.at(block).erases;
  }
  uint32_t erase_count(uint64_t block) const {
    const Block* c = blocks_.find(block);  // a block never made was never erased
    return c ? c->erases : 0;
  }
  // The block holds just what preconditioning's rule put there (the fill
  // rule's, nothing where it left the block free, or set_rule's): neither
  // erased nor programmed since.
  bool as_filled(uint64_t block) const {
    const Block* c = blocks_.find(block);
    return c ? c->as_filled : fill_rule_;
  }
  // Some page of the block is programmed. A block never made holds nothing,
  // or what the fill rule puts there (made then: the filler knows).
  bool holds_pages(uint64_t block) const {
    const Block* c = blocks_.find(block);
    if (!c && !fill_rule_) return false;
    const Block& b = c ? *c : blocks_[block];
    if (!b.oob) return b.rule_pages > 0;
    for (uint32_t p = 0; p < ppb_; ++p)
      if (b.oob[p].seq != 0 || b.oob[p].lpn != kNoLpn) return true;
    return false;
  }
  // Calls f(first, count, erase count) for runs of blocks, in order.
  template <class F>
  void for_each_erase_count(F&& f) const {
    blocks_.for_each_chunk([&](uint64_t first, uint64_t n, const Block* c) {
      if (!c) return f(first, n, uint32_t(0));
      for (uint64_t k = 0; k < n; ++k) f(first + k, uint64_t(1), c[k].erases);
    });
  }
  uint64_t blocks() const { return blocks_.size(); }
  // Bytes the store holds for page data and spare areas.
  uint64_t stored_bytes() const {
    return data_bytes_ + data_blocks_ * ppb_ * sizeof(Page) + oob_blocks_ * ppb_ * sizeof(FlashOob);
  }
  uint64_t verify_pages() const { return verify_pages_; }  // pages held as verify units' names

 private:
  // The first byte is zero and every byte equals the next: memcmp's
  // vectorised compare instead of a byte loop (most pages written without
  // verify are zeros, and this ran for every 2 KiB programmed).
  static bool all_zero(const uint8_t* p, size_t n) { return n == 0 || (p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0); }
  void clear(uint64_t block) {
    Block& b = blocks_.at(block);
    if (b.oob) --oob_blocks_;
    clear_data(b);
    b = Block{{}, {}, 0, 0, 0, 0, b.erases, false};
  }
  // The stride's top bit: the rule's values go through order_.
  static constexpr uint32_t kPermuted = 0x80000000u;
  // A page's data: its bytes, or the names of its verify units (version 0: a
  // unit of zeros), or, as a random 4 KiB write leaves nearly every page,
  // a run of consecutive units of one write: the first unit and the version
  // alone, with no allocation.
  struct Unit {
    uint64_t unit;
    uint32_t version;
  };
  enum class Kind : uint32_t { Zero, Run, Units, Raw };
  struct Page {
    union {
      uint64_t run_unit = 0;
      uint8_t* heap;  // Raw: the page's bytes; Units: its Unit names
    };
    uint32_t run_version = 0;
    Kind kind = Kind::Zero;
  };
  static_assert(sizeof(Page) == 16);
  struct Block {
    std::unique_ptr<FlashOob[]> oob;  // per page, once programmed page by page
    std::unique_ptr<Page[]> data;     // per page, once one holds more than zeros
    uint32_t rule_pages = 0, first_lpn = 0, stride = 0, seq = 0;  // preconditioned by rule
    uint32_t erases = 0;
    bool as_filled = false;  // made by the fill rule and not changed since
  };
  const Page* page(uint64_t ppn) const {
    if (!data_blocks_) return nullptr;  // a run that wrote no data touches no block
    const Block& b = blocks_[ppn / ppb_];
    if (!b.data) return nullptr;
    const Page& p = b.data[ppn % ppb_];
    return p.kind == Kind::Zero ? nullptr : &p;
  }
  void clear_data(Block& b) {
    if (!b.data) return;
    for (uint32_t p = 0; p < ppb_; ++p) drop(b.data[p]);
    b.data.reset();
    --data_blocks_;
  }
  FlashOob by_rule(const Block& b, uint32_t p) const {
    uint64_t v = b.first_lpn + uint64_t(p) * (b.stride & ~kPermuted);
    return FlashOob{static_cast<uint32_t>(b.stride & kPermuted ? (*order_)(v) : v), b.seq};
  }
  FlashOob oob_of(uint64_t ppn) const {
    const Block& b = blocks_[ppn / ppb_];
    uint32_t p = static_cast<uint32_t>(ppn % ppb_);
    if (b.oob) return b.oob[p];
    if (p < b.rule_pages) return by_rule(b, p);
    return FlashOob{};
  }
  Block& materialise(uint64_t block) {
    Block& b = blocks_.at(block);
    b.as_filled = false;
    if (!b.oob) {
      b.oob.reset(new FlashOob[ppb_]);
      ++oob_blocks_;
      for (uint32_t p = 0; p < b.rule_pages; ++p) b.oob[p] = by_rule(b, p);
      b.rule_pages = 0;
    }
    return b;
  }

  uint32_t units_per_page() const { return page_size_ / verify_pattern::kUnit; }
  // Adds (+1) or removes (-1) what `p` holds from the totals.
  void count(const Page& p, int sign) {
    const uint64_t bytes = p.kind == Kind::Raw     ? page_size_
                           : p.kind == Kind::Units ? units_per_page() * sizeof(Unit)
                                                   : 0;  // a run is in the block's record
    data_bytes_ += sign > 0 ? bytes : -bytes;
    if (p.kind == Kind::Run || p.kind == Kind::Units) verify_pages_ += sign > 0 ? 1 : -1;
  }
  void drop(Page& p) {
    if (p.kind == Kind::Zero) return;
    count(p, -1);
    if (p.kind == Kind::Raw || p.kind == Kind::Units) delete[] p.heap;
    p = Page{};
  }
  bool encode(const uint8_t* data, Page& p) {
    const uint32_t n = units_per_page();
    if (n == 0 || page_size_ % verify_pattern::kUnit) return false;
    std::vector<Unit> u(n);
    bool run = true;
    for (uint32_t k = 0; k < n; ++k) {
      const uint8_t* d = data + uint64_t(k) * verify_pattern::kUnit;
      if (!verify_pattern::recognise(d, u[k].unit, u[k].version)) {
        if (!all_zero(d, verify_pattern::kUnit)) return false;
        u[k] = Unit{0, 0};
      }
      run = run && u[k].version != 0 && u[k].version == u[0].version && u[k].unit == u[0].unit + k;
    }
    if (run) {
      p.kind = Kind::Run;
      p.run_unit = u[0].unit;
      p.run_version = u[0].version;
      return true;
    }
    p.kind = Kind::Units;
    p.heap = new uint8_t[n * sizeof(Unit)];
    std::memcpy(p.heap, u.data(), n * sizeof(Unit));
    return true;
  }
  void decode(const Page& p, uint8_t* data) const {
    if (p.kind == Kind::Raw) return void(std::memcpy(data, p.heap, page_size_));
    for (uint32_t k = 0; k < units_per_page(); ++k) {
      uint8_t* d = data + uint64_t(k) * verify_pattern::kUnit;
      Unit u{p.run_unit + k, p.run_version};
      if (p.kind == Kind::Units) std::memcpy(&u, p.heap + uint64_t(k) * sizeof(Unit), sizeof u);
      if (u.version)
        verify_pattern::fill(d, u.unit, u.version);
      else
        std::memset(d, 0, verify_pattern::kUnit);
    }
  }

  uint32_t page_size_, ppb_;
  const RandomPermutation* order_ = nullptr;
  LazyTable<Block, 8> blocks_;
  bool fill_rule_ = false;
  uint64_t oob_blocks_ = 0, data_blocks_ = 0, data_bytes_ = 0, verify_pages_ = 0;
};

}  // namespace vp::flash
