// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/ftl/precondition/SteadyStateAger.hpp"

#include <algorithm>
#include <stdexcept>

namespace vp::ssd {

SteadyStateAger::SteadyStateAger(const Params& p)
    : p_(p), rng_(p.seed), blocks_(p.blocks), tree_(p.blocks + 1, 0) {}

void SteadyStateAger::add_valid(uint32_t b, int64_t d) {
  blocks_[b].valid = static_cast<uint32_t>(int64_t(blocks_[b].valid) + d);
  valid_total_ = static_cast<uint64_t>(int64_t(valid_total_) + d);
  for (uint64_t i = uint64_t(b) + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += d;
}

uint32_t SteadyStateAger::draw_valid() {
  int64_t r = static_cast<int64_t>(rng_.below(valid_total_));
  uint64_t pos = 0, step = 1;
  while (step * 2 < tree_.size()) step *= 2;
  for (; step; step /= 2)
    if (pos + step < tree_.size() && tree_[pos + step] <= r) {
      pos += step;
      r -= tree_[pos];
    }
  return static_cast<uint32_t>(pos);  // 0-based block index
}

bool SteadyStateAger::take_free(uint32_t& b) {
  if (p_.wear_aware) {
    if (pool_.empty()) return false;
    b = pool_.begin()->second;
    pool_.erase(pool_.begin());
  } else {
    if (fifo_.empty()) return false;
    b = fifo_.front();
    fifo_.pop_front();
  }
  return true;
}

void SteadyStateAger::add_free(uint32_t b) {
  Block& k = blocks_[b];
  k.kind = Kind::Free;
  k.written = 0;
  if (p_.wear_aware)
    pool_.insert({k.erases, b});
  else
    fifo_.push_back(b);
}

std::vector<uint32_t> SteadyStateAger::free_order() const {
  std::vector<uint32_t> out;
  if (p_.wear_aware)
    for (const auto& e : pool_) out.push_back(e.second);
  else
    out.assign(fifo_.begin(), fifo_.end());
  return out;
}

void SteadyStateAger::place(uint32_t& slot, Kind k) {
  if (slot == UINT32_MAX || blocks_[slot].kind != k) {
    if (!take_free(slot)) throw std::logic_error("SteadyStateAger: no free block for a write");
    blocks_[slot].kind = k;
  }
  Block& b = blocks_[slot];
  ++b.written;
  add_valid(slot, 1);
  if (b.written == p_.pages_per_block) b.kind = Kind::Full;
}

// GarbageCollector::collect_now: the full block with the fewest valid pages
// (the first of equals), its valid pages to GC's open block, then erased.
void SteadyStateAger::collect() {
  uint32_t victim = UINT32_MAX;
  for (uint32_t b = 0; b < blocks_.size(); ++b) {
    const Block& k = blocks_[b];
    if (k.kind == Kind::Full && k.valid < p_.pages_per_block && (victim == UINT32_MAX || k.valid < blocks_[victim].valid))
      victim = b;
  }
  if (victim == UINT32_MAX) throw Full{};
  uint32_t n = blocks_[victim].valid;
  for (uint32_t i = 0; i < n; ++i) place(gc_, Kind::Gc);
  add_valid(victim, -int64_t(n));
  moved_ += n;
  ++blocks_[victim].erases;
  add_free(victim);
}

void SteadyStateAger::run() {
  // The fill (SequentialLayout): the plane's first blocks, the last one
  // partly written and counted full.
  const uint64_t ppb = p_.pages_per_block;
  if (p_.fill_pages > p_.blocks * ppb) throw Full{};
  uint32_t b = 0;
  for (uint64_t left = p_.fill_pages; left > 0; ++b) {
    uint32_t pages = static_cast<uint32_t>(std::min(left, ppb));
    blocks_[b].kind = Kind::Full;
    blocks_[b].written = static_cast<uint32_t>(ppb);
    add_valid(b, pages);
    left -= pages;
  }
  for (; b < blocks_.size(); ++b) add_free(b);
  auto free_count = [&] { return p_.wear_aware ? pool_.size() : fifo_.size(); };
  // Preconditioner::write: the old copy invalid, the page allocated (GC first
  // when opening a block would leave less than the reserve), then GC while
  // the plane is short of free blocks.
  for (uint64_t w = 0; w < p_.overwrites && valid_total_ > 0; ++w) {
    add_valid(draw_valid(), -1);
    bool needs_block = host_ == UINT32_MAX || blocks_[host_].kind != Kind::Host;
    while (needs_block && free_count() <= p_.reserve) collect();
    place(host_, Kind::Host);
    while (free_count() < p_.fg_threshold) collect();
  }
}

}  // namespace vp::ssd
