// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/ftl/BlockManager.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace vp::ssd {

using flash::PageType;

// A million blocks on an 800 GB drive: each byte here is a megabyte.
static_assert(sizeof(BlockInfo) <= 48, "BlockInfo grew");

BlockManager::BlockManager(const flash::FlashGeometry& g, bool wear_aware)
    : geo_(g),
      wear_aware_(wear_aware),
      info_(g.total_blocks()),
      free_(g.total_planes()),
      changed_((g.total_blocks() + 63) / 64, ~uint64_t(0)) {
  if (g.total_blocks() % 64) changed_.back() = (uint64_t(1) << (g.total_blocks() % 64)) - 1;
}

void BlockManager::add_free(uint64_t b) {
  uint32_t erases = 0;
  BlockInfo* i = info_.find(b);
  if (!i && rule_ && rule_->fill_of(b).pages) i = &info_.at(b);
  if (i) {  // else never used: already a fresh free block
    if (i->valid_bits) --bitmap_blocks_;
    i->valid_bits.reset();
    i->valid = i->rule_pages = 0;
    i->nholes = 0;
    i->used[0] = i->used[1] = i->used[2] = 0;
    i->state = BlockState::Free;
    i->lsb_opened = false;
    erases = i->erase_count;
  }
  touch(b);
  // Without wear awareness the pool is first in, first out: a rising sequence key.
  pool_add(plane_of(b), static_cast<uint32_t>(b % geo_.blocks_per_plane), wear_aware_ ? erases : fifo_seq_++);
  ++free_total_;
}

void BlockManager::add_free_all() {
  info_.for_each_chunk([&](uint64_t first, uint64_t n, const BlockInfo* c) {
    for (uint64_t b = first; b < first + n; ++b) {
      if (c) {
        if (c[b - first].state == BlockState::Free) add_free(b);
      } else if (!rule_ || rule_->fill_of(b).pages == 0) {  // fresh, and left so
        pool_add(plane_of(b), static_cast<uint32_t>(b % geo_.blocks_per_plane), wear_aware_ ? 0 : fifo_seq_++);
        ++free_total_;
      }
    }
  });
}

void BlockManager::set_fill_rule(const flash::FillRule* rule, Tick written) {
  rule_ = rule;
  const uint32_t bits = geo_.bits_per_cell;
  const auto per_type = static_cast<uint16_t>(pages_of_type());
  info_.for_each_chunk([&](uint64_t first, uint64_t n, BlockInfo* c) {  // records made already
    for (uint64_t k = 0; c && k < n; ++k)
      if (uint32_t pages = c[k].state == BlockState::Meta ? 0 : rule->fill_of(first + k).pages) {
        fill(c[k], pages, bits, per_type);
        c[k].last_write = written;
      }
  });
  info_.set_filler([rule, bits, per_type, written](uint64_t first, uint64_t n, BlockInfo* out) {
    for (uint64_t k = 0; k < n; ++k) {
      const uint32_t pages = rule->fill_of(first + k).pages;
      if (!pages) continue;
      fill(out[k], pages, bits, per_type);
      out[k].last_write = written;
    }
  });
}

void BlockManager::pool_add(uint64_t plane, uint32_t j, uint64_t key) {
  Pool& p = free_[plane];
  Run& t = p.tail;
  // First in first out, the plane's last run is the newest: the block joins
  // it; by erase count, only a run of the same count.
  if (t.lo < t.hi && t.hi == j && (!wear_aware_ || t.key == key)) {
    ++t.hi;
  } else {
    if (t.lo < t.hi) {
      p.heap.push_back(t);
      std::push_heap(p.heap.begin(), p.heap.end(), std::greater<Run>{});
    }
    t = {key, j, j + 1};
  }
  ++p.count;
}

bool BlockManager::take_free(uint64_t plane, uint64_t& b) {
  Pool& p = free_[plane];
  if (p.count == 0) return false;
  Run& t = p.tail;
  const bool from_tail = t.lo < t.hi && (p.heap.empty() || p.heap.front() > t);
  Run& r = from_tail ? t : p.heap.front();
  b = plane * geo_.blocks_per_plane + r.lo++;
  // The heap's first run keeps its place: runs of one key never overlap.
  if (!from_tail && r.lo == r.hi) {
    std::pop_heap(p.heap.begin(), p.heap.end(), std::greater<Run>{});
    p.heap.pop_back();
  }
  --p.count;
  --free_total_;
  return true;
}

uint64_t BlockManager::host_bytes() const {
  uint64_t pools = free_.size() * sizeof(Pool);
  for (const Pool& p : free_) pools += p.heap.capacity() * sizeof(Run);
  return bitmap_blocks_ * bitmap_words() * 8 + info_.host_bytes() + pools;
}

BlockManager::Wear BlockManager::wear() const {
  Wear w;
  w.min = UINT32_MAX;
  info_.for_each_chunk([&](uint64_t, uint64_t n, const BlockInfo* c) {
    if (!c) {  // never used: never erased
      w.blocks += n;
      w.min = 0;
      return;
    }
    for (uint64_t k = 0; k < n; ++k) {
      if (c[k].state == BlockState::Meta) continue;
      w.sum += c[k].erase_count;
      w.min = std::min(w.min, c[k].erase_count);
      w.max = std::max(w.max, c[k].erase_count);
      ++w.blocks;
    }
  });
  if (w.blocks == 0) w.min = 0;
  return w;
}

void BlockManager::open(uint64_t b, Tick now) {
  touch(b);
  BlockInfo& i = info_.at(b);
  i.state = BlockState::Open;
  i.last_write = now;
  i.valid_bits.reset(new uint64_t[bitmap_words()]());
  i.rule_pages = 0;
  i.nholes = 0;
  ++bitmap_blocks_;
}

bool BlockManager::next_page(uint64_t b, PageType t, uint32_t& page) const {
  const BlockInfo& i = info_[b];
  if ((t == PageType::CSB && geo_.bits_per_cell < 3) || (t == PageType::MSB && geo_.bits_per_cell < 2)) return false;
  uint32_t k = i.used[int(t)];
  if (k >= pages_of_type()) return false;
  // A word line's upper pages are programmed after its lower ones (all the
  // lower page's units, with sub-page mapping).
  const uint32_t u = geo_.units_per_page, lower = (k / u + 1) * u;
  if (t == PageType::CSB && lower > i.used[0]) return false;
  if (t == PageType::MSB && lower > i.used[geo_.bits_per_cell == 3 ? 1 : 0]) return false;
  page = page_index(t, k);
  return true;
}

bool BlockManager::next_sequential(uint64_t b, uint32_t& page) const {
  const BlockInfo& i = info_[b];
  bool found = false;
  for (uint32_t t = 0; t < geo_.bits_per_cell; ++t) {
    PageType ty = t == 0 ? PageType::LSB : t + 1 == geo_.bits_per_cell ? PageType::MSB : PageType::CSB;
    uint32_t k = i.used[int(ty)];
    if (k >= pages_of_type()) continue;
    uint32_t p = page_index(ty, k);
    if (!found || p < page) page = p;
    found = true;
  }
  return found;
}

void BlockManager::use(uint64_t b, uint32_t page, Tick now) {
  touch(b);
  BlockInfo& i = info_.at(b);
  ++i.used[int(geo_.page_type(page))];
  i.valid_bits[page / 64] |= uint64_t(1) << (page % 64);
  ++i.valid;
  i.last_write = now;
}

void BlockManager::skip(uint64_t b, uint32_t page) {
  touch(b);
  ++info_.at(b).used[int(geo_.page_type(page))];
}

void BlockManager::round_up_to_pages(uint64_t b) {
  BlockInfo& i = info_.at(b);
  for (auto& used : i.used)
    while (used % geo_.units_per_page) ++used;
}

uint32_t BlockManager::used(uint64_t b) const {
  const BlockInfo& i = info_[b];
  return uint32_t(i.used[0]) + i.used[1] + i.used[2];
}

bool BlockManager::valid(uint64_t b, uint32_t page) const {
  const BlockInfo& i = info_[b];
  if (i.valid_bits) return (i.valid_bits[page / 64] >> (page % 64)) & 1;
  if (page >= i.rule_pages) return false;
  for (uint8_t k = 0; k < i.nholes; ++k)
    if (i.holes[k] == page) return false;
  return true;
}

void BlockManager::materialise(uint64_t b) {
  BlockInfo& i = info_.at(b);
  if (i.valid_bits) return;
  // Only the bitmap: a preconditioned block's logical pages still follow its rule.
  i.valid_bits.reset(new uint64_t[bitmap_words()]());
  for (uint32_t p = 0; p < i.rule_pages; ++p) i.valid_bits[p / 64] |= uint64_t(1) << (p % 64);
  for (uint8_t k = 0; k < i.nholes; ++k) i.valid_bits[i.holes[k] / 64] &= ~(uint64_t(1) << (i.holes[k] % 64));
  i.nholes = 0;
  ++bitmap_blocks_;
}

void BlockManager::invalidate(uint64_t b, uint32_t page) {
  BlockInfo& i = info_.at(b);
  if (!i.valid_bits && i.nholes < BlockInfo::kHoles) {
    if (!valid(b, page)) throw std::logic_error("FTL: invalidating a page that is not valid");
    i.holes[i.nholes++] = static_cast<uint16_t>(page);
    --i.valid;
    return;
  }
  materialise(b);
  uint64_t bit = uint64_t(1) << (page % 64);
  if (!(i.valid_bits[page / 64] & bit)) throw std::logic_error("FTL: invalidating a page that is not valid");
  i.valid_bits[page / 64] &= ~bit;
  --i.valid;
}

void BlockManager::fill_by_rule(uint64_t b, uint32_t pages) {
  touch(b);
  fill(info_.at(b), pages, geo_.bits_per_cell, static_cast<uint16_t>(pages_of_type()));
}

void BlockManager::fill(BlockInfo& i, uint32_t pages, uint32_t bits_per_cell, uint16_t pages_of_type) {
  i.state = BlockState::Full;
  i.rule_pages = pages;
  i.valid = pages;
  i.nholes = 0;
  // The pages past the rule are never written: the block counts as full.
  for (uint32_t t = 0; t < 3; ++t) i.used[t] = t < bits_per_cell ? pages_of_type : 0;
}

void BlockManager::erased(uint64_t b) {
  touch(b);
  ++info_.at(b).erase_count;
  add_free(b);
}

}  // namespace vp::ssd
