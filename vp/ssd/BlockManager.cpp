// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/BlockManager.hpp"

#include <stdexcept>

namespace vp::ssd {

using flash::PageType;

// A million blocks on an 800 GB drive: each byte here is a megabyte.
static_assert(sizeof(BlockInfo) <= 48, "BlockInfo grew");

BlockManager::BlockManager(const flash::FlashGeometry& g, bool wear_aware)
    : geo_(g), wear_aware_(wear_aware), info_(g.total_blocks()), free_(g.total_planes()) {}

void BlockManager::add_free(uint64_t b) {
  BlockInfo& i = info_[b];
  if (i.valid_bits) --bitmap_blocks_;
  i.valid_bits.reset();
  i.valid = i.rule_pages = 0;
  i.nholes = 0;
  i.used[0] = i.used[1] = i.used[2] = 0;
  i.state = BlockState::Free;
  i.lsb_opened = false;
  // Without wear awareness the pool is first in, first out: a rising sequence key.
  uint32_t key = wear_aware_ ? i.erase_count : static_cast<uint32_t>(fifo_seq_++);
  free_[plane_of(b)].push({key, b});
  ++free_total_;
}

bool BlockManager::take_free(uint64_t plane, uint64_t& b) {
  auto& q = free_[plane];
  if (q.empty()) return false;
  b = q.top().second;
  q.pop();
  --free_total_;
  return true;
}

void BlockManager::open(uint64_t b, Tick now) {
  BlockInfo& i = info_[b];
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
  // A word line's upper pages are programmed after its lower ones.
  if (t == PageType::CSB && k >= i.used[0]) return false;
  if (t == PageType::MSB && k >= i.used[geo_.bits_per_cell == 3 ? 1 : 0]) return false;
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
  BlockInfo& i = info_[b];
  ++i.used[int(geo_.page_type(page))];
  i.valid_bits[page / 64] |= uint64_t(1) << (page % 64);
  ++i.valid;
  i.last_write = now;
}

void BlockManager::skip(uint64_t b, uint32_t page) { ++info_[b].used[int(geo_.page_type(page))]; }

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
  BlockInfo& i = info_[b];
  if (i.valid_bits) return;
  // Only the bitmap: a preconditioned block's logical pages still follow its rule.
  i.valid_bits.reset(new uint64_t[bitmap_words()]());
  for (uint32_t p = 0; p < i.rule_pages; ++p) i.valid_bits[p / 64] |= uint64_t(1) << (p % 64);
  for (uint8_t k = 0; k < i.nholes; ++k) i.valid_bits[i.holes[k] / 64] &= ~(uint64_t(1) << (i.holes[k] % 64));
  i.nholes = 0;
  ++bitmap_blocks_;
}

void BlockManager::invalidate(uint64_t b, uint32_t page) {
  BlockInfo& i = info_[b];
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
  BlockInfo& i = info_[b];
  i.state = BlockState::Full;
  i.rule_pages = pages;
  i.valid = pages;
  i.nholes = 0;
  // The pages past the rule are never written: the block counts as full.
  for (uint32_t t = 0; t < 3; ++t) i.used[t] = t < geo_.bits_per_cell ? static_cast<uint16_t>(pages_of_type()) : 0;
}

void BlockManager::erased(uint64_t b) {
  ++info_[b].erase_count;
  add_free(b);
}

}  // namespace vp::ssd
