// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/ftl/PageAllocator.hpp"

#include <string>

#include "vp/core/SimControl.hpp"

namespace vp::ssd {

using flash::PageType;

void PageAllocator::declare_params(const ParamScope& ftl) {
  ftl.choice("stripe_order", "channel,die,plane",
             {"channel,die,plane", "channel,plane,die", "die,channel,plane", "die,plane,channel", "plane,channel,die",
              "plane,die,channel"},
             "order in which consecutive writes visit allocation units (planes); the first varies fastest");
  ftl.choice("shard_partition", "block", {"block", "channel"},
             "what a shard writes: blocks on every plane (block-interleaved), or only its own channels");
  ftl.choice("page_alloc", "sequential", {"sequential", "lsb_skip", "lsb_group"},
             "page choice in a block: in order; urgent writes skip to the next LSB page (wasting the skipped); "
             "FastDrain's LSB/CSB/MSB groups (urgent writes take LSB pages across planes, others the upper pages)");
  ftl.size("lsb_region", "64GiB",
           "most data held in LSB pages whose word line is not yet complete (FastDrain's max LSB-only region)");
}

PageAllocator::PageAllocator(FtlState& s, const ScopedConfig& ftl, const ShardMap& shards, const StatGroup& stats,
                             Waves& waves)
    : s_(s),
      shard_map_(shards),
      alloc_(ftl.get_enum<Alloc>("page_alloc", {{"sequential", Alloc::Sequential},
                                                {"lsb_skip", Alloc::LsbSkip},
                                                {"lsb_group", Alloc::LsbGroup}})),
      lsb_limit_pages_(ftl.get_size("lsb_region") / s.geo.page_size),
      wasted_(stats.counter("wasted_pages", "pages", "pages skipped unprogrammed by LSB-first allocation")),
      lsb_urgent_(stats.counter("lsb_group_pages", "pages", "urgent pages given LSB pages from the groups")),
      min_free_(stats.counter("free_blocks_min", "blocks", "fewest free blocks seen (all planes)")),
      padded_(stats.counter("padded_units", "units",
                            "sub-page mapping: units of pages programmed before they were full, left empty")) {
  const auto& geo = s.geo;
  // Allocation units in stripe order: the first named dimension varies fastest.
  std::string order = ftl.get_string("stripe_order");
  std::vector<std::string> dims;
  for (size_t b = 0, e; b <= order.size(); b = e + 1) {
    e = order.find(',', b);
    if (e == std::string::npos) e = order.size();
    dims.push_back(order.substr(b, e - b));
  }
  for (uint64_t u = 0; u < s.planes; ++u) {
    uint64_t rest = u, ch = 0, die = 0, pl = 0;
    for (const auto& d : dims) {
      uint64_t n = d == "channel" ? geo.channels : d == "die" ? geo.dies_per_channel() : geo.planes_per_die;
      (d == "channel" ? ch : d == "die" ? die : pl) = rest % n;
      rest /= n;
    }
    unit_plane_.push_back((ch * geo.dies_per_channel() + die) * geo.planes_per_die + pl);
  }
  bool channel_partition = ftl.is("shard_partition", "channel");
  uint32_t n = shard_map_.shards;
  shard_units_.resize(n);
  shard_rr_.assign(n, 0);
  shard_last_.assign(n, -1);
  for (uint64_t u = 0; u < s.planes; ++u) {
    uint64_t ch = unit_plane_[u] / (uint64_t(geo.dies_per_channel()) * geo.planes_per_die);
    for (uint32_t k = 0; k < n; ++k)
      if (!channel_partition || ch % n == k) shard_units_[k].push_back(u);
  }
  host_open_.assign(uint64_t(n) * s.planes, -1);
  gc_open_.assign(s.planes, -1);
  lsb_blocks_.resize(s.planes);
  if (waves.enabled())
    waves.trace(free_blocks_signal_, Waves::signal_name(ftl.scope(), "free_blocks"), Waves::group_name(ftl.scope()));
}

void PageAllocator::started() {
  if (s_.units_per_page() > 1) {
    auto seal = [&](int64_t b) {
      if (b < 0 || s_.blocks[uint64_t(b)].state != BlockState::Open) return;
      s_.blocks.round_up_to_pages(uint64_t(b));
      close_if_full(uint64_t(b));
    };
    for (int64_t b : host_open_) seal(b);
    for (int64_t b : gc_open_) seal(b);
    for (const auto& l : lsb_blocks_)
      for (uint64_t b : l) seal(int64_t(b));
  }
  free_blocks_signal_ = s_.blocks.free_total();
  min_free_.value = s_.blocks.free_total();
}

void PageAllocator::reset() {
  std::fill(shard_last_.begin(), shard_last_.end(), -1);
  std::fill(host_open_.begin(), host_open_.end(), -1);
  std::fill(gc_open_.begin(), gc_open_.end(), -1);
  for (auto& l : lsb_blocks_) l.clear();
  lsb_only_pages_ = 0;
}

bool PageAllocator::open_block(uint64_t plane, int64_t& slot, bool for_gc) {
  auto& blocks = s_.blocks;
  if (!for_gc && blocks.free_count(plane) <= kGcReserve) return false;
  uint64_t b;
  if (!blocks.take_free(plane, b)) return false;
  blocks.open(b, now_ps());
  slot = static_cast<int64_t>(b);
  free_blocks_signal_ = blocks.free_total();
  if (blocks.free_total() < min_free_.value) min_free_.value = blocks.free_total();
  return true;
}

void PageAllocator::place(uint64_t block, uint32_t page) {
  s_.blocks.use(block, page, now_ps());
  close_if_full(block);
}

void PageAllocator::close_if_full(uint64_t block) {
  if (s_.blocks.full(block)) s_.blocks[block].state = BlockState::Full;
}

bool PageAllocator::alloc_gc(uint64_t plane, uint64_t& ppn) {
  int64_t& slot = gc_open_[plane];
  if (slot < 0 || s_.blocks[slot].state != BlockState::Open)
    if (!open_block(plane, slot, true)) return false;
  uint32_t page;
  s_.blocks.next_sequential(slot, page);
  place(slot, page);
  ppn = s_.to_ppn(slot, page);
  return true;
}

uint32_t PageAllocator::pad(uint64_t last, bool timed, flash::FlashUse use, bool background) {
  // From the block's next unit of that type: another writer may have gone
  // on in this page since (a host slot still naming a block GC reopened).
  const uint32_t u = s_.units_per_page();
  const uint64_t block = s_.block_of(last);
  const auto in_block = static_cast<uint32_t>(last % s_.geo.pages_per_block);
  const uint32_t first = s_.blocks.next_of_type(block, s_.geo.page_type(in_block));
  const uint32_t end = (in_block / u + 1) * u;
  const uint32_t n = first / u == in_block / u ? end - first : 0;
  for (uint32_t k = 0; k < n; ++k) {
    s_.blocks.skip(block, first + k);
    if (!timed) continue;
    flash::FlashTransaction t;  // no client: the flash takes only its place in the page
    t.op = flash::FlashOp::Program;
    t.addr = flash::address_of(s_.geo, block * s_.geo.pages_per_block + first + k);
    t.use = use;
    t.background = background;
    s_.flash->submit(t);
  }
  close_if_full(block);
  padded_ += n;
  return n;
}

bool PageAllocator::alloc_lsb(uint64_t plane, uint64_t& ppn) {
  auto& list = lsb_blocks_[plane];
  uint32_t page;
  if (list.empty() || !s_.blocks.next_page(list.back(), PageType::LSB, page)) {
    int64_t slot;
    if (!open_block(plane, slot, false)) return false;
    s_.blocks[slot].lsb_opened = true;
    list.push_back(slot);
    s_.blocks.next_page(slot, PageType::LSB, page);
  }
  place(list.back(), page);
  ppn = s_.to_ppn(list.back(), page);
  ++lsb_only_pages_;
  return true;
}

bool PageAllocator::alloc_upper(uint64_t plane, uint64_t& ppn) {
  auto& list = lsb_blocks_[plane];
  for (size_t i = 0; i < list.size();) {
    uint64_t b = list[i];
    if (s_.blocks[b].state != BlockState::Open) {  // filled up
      list.erase(list.begin() + static_cast<long>(i));
      continue;
    }
    // The lowest free upper page: word lines complete in order.
    uint32_t csb, msb;
    bool has_csb = s_.blocks.next_page(b, PageType::CSB, csb), has_msb = s_.blocks.next_page(b, PageType::MSB, msb);
    if (has_csb || has_msb) {
      uint32_t page = has_csb && (!has_msb || csb < msb) ? csb : msb;
      if (s_.geo.page_type(page) == PageType::MSB) --lsb_only_pages_;  // the word line is complete
      place(b, page);
      ppn = s_.to_ppn(b, page);
      return true;
    }
    ++i;
  }
  return false;
}

bool PageAllocator::alloc_in_plane(uint64_t plane, uint32_t shard, bool urgent, uint64_t& ppn) {
  if (alloc_ == Alloc::LsbGroup && !urgent) {
    // Upper pages of the LSB groups first, then their LSB pages (FastDrain).
    if (alloc_upper(plane, ppn)) return true;
    uint32_t page;
    auto& list = lsb_blocks_[plane];
    if (!list.empty() && s_.blocks.next_page(list.back(), PageType::LSB, page)) return alloc_lsb(plane, ppn);
  }
  int64_t& slot = host_open_[uint64_t(shard) * s_.planes + plane];
  for (;;) {
    if (slot < 0 || s_.blocks[slot].state != BlockState::Open)
      if (!open_block(plane, slot, false)) return false;
    uint32_t page;
    s_.blocks.next_sequential(slot, page);
    if (urgent && alloc_ == Alloc::LsbSkip && s_.geo.page_type(page) != PageType::LSB) {
      s_.blocks.skip(slot, page);
      ++wasted_;
      close_if_full(slot);
      continue;
    }
    place(slot, page);
    ppn = s_.to_ppn(slot, page);
    return true;
  }
}

bool PageAllocator::alloc_host(uint32_t lpn, bool urgent, uint64_t& ppn) {
  uint32_t shard = shard_map_.of(lpn);
  auto& units = shard_units_[shard];
  uint32_t& rr = shard_rr_[shard];
  // Sub-page mapping: the shard stays on a plane while its page fills; a
  // page closed meanwhile (padded) sends it on to the next plane.
  if (int64_t& last = shard_last_[shard]; last >= 0) {
    const uint64_t b = s_.block_of(uint64_t(last));
    const auto in = static_cast<uint32_t>(uint64_t(last) % s_.geo.pages_per_block);
    if (s_.blocks[b].state != BlockState::Open || s_.blocks.next_of_type(b, s_.geo.page_type(in)) != in + 1)
      rr = static_cast<uint32_t>((rr + 1) % units.size());
    last = -1;
  }
  if (urgent && alloc_ == Alloc::LsbGroup && lsb_only_pages_ < lsb_limit_pages_) {
    for (size_t k = 0; k < units.size(); ++k) {
      size_t idx = (rr + k) % units.size();
      if (alloc_lsb(unit_plane_[units[idx]], ppn)) {
        // The next plane once this page is whole (sub-page mapping packs a page first).
        rr = static_cast<uint32_t>((idx + (s_.page_ends_at(ppn) ? 1 : 0)) % units.size());
        if (!s_.page_ends_at(ppn)) shard_last_[shard] = int64_t(ppn);
        ++lsb_urgent_;
        return true;
      }
    }
  }
  uint64_t plane = unit_plane_[units[rr]];
  blocked_plane_ = plane;
  if (!alloc_in_plane(plane, shard, urgent, ppn)) return false;
  if (!s_.page_ends_at(ppn)) {  // the page's next unit goes here too
    shard_last_[shard] = int64_t(ppn);
    return true;
  }
  rr = static_cast<uint32_t>((rr + 1) % units.size());
  // The shard's next write goes to the next plane. On a large drive its open
  // block's records are not in the CPU cache (zssd has 1,024 planes, each
  // written once in 1,024 writes): they are fetched now, a write ahead.
  const int64_t next = host_open_[uint64_t(shard) * s_.planes + unit_plane_[units[rr]]];
  if (next >= 0) {
    s_.blocks.prefetch(uint64_t(next));
    s_.flash->prefetch(s_.to_ppn(uint64_t(next), 0));
  }
  return true;
}

void PageAllocator::report(nlohmann::json& j) const {
  j["wasted_pages"] = wasted_.value;
  j["free_blocks"] = s_.blocks.free_total();
  j["free_blocks_min"] = min_free_.value;
}

}  // namespace vp::ssd
