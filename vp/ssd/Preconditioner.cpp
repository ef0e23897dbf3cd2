// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/Preconditioner.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace vp::ssd {

using flash::FlashOob;

void Preconditioner::declare_params(const ParamScope& p) {
  p.real("fill", 1.0, "fraction of the logical space written before the run").range(0.0, 1.0);
  p.choice("pattern", "sequential", {"sequential", "random"}, "order of the preconditioning writes");
  p.real("age", 0.0,
         "random overwrites after the fill, as a multiple of the filled space (about 2-3 reach GC steady state)")
      .range(0.0, 1000.0);
}

Preconditioner::Preconditioner(FtlState& s, PageAllocator& alloc, GarbageCollector& gc, FtlMapping& mapping,
                               const ScopedConfig& p, std::string overprovision_key, uint64_t seed)
    : s_(s),
      alloc_(alloc),
      gc_(gc),
      mapping_(mapping),
      fill_(p.get_real("fill")),
      age_(p.get_real("age")),
      sequential_(p.is("pattern", "sequential")),
      seed_(seed),
      scope_(p.scope()),
      overprovision_key_(std::move(overprovision_key)) {}

Preconditioner::~Preconditioner() = default;

void Preconditioner::run() {
  auto& blocks = s_.blocks;
  uint64_t logical = s_.logical_pages, planes = s_.planes;
  uint64_t n = static_cast<uint64_t>(std::llround(fill_ * double(logical)));
  uint64_t ppb = s_.geo.pages_per_block, bpp = s_.geo.blocks_per_plane;
  const auto& stripe = alloc_.stripe();
  s_.seq = 1;
  if (n > 0) {
    if (!sequential_) order_ = std::make_unique<RandomPermutation>(logical, Rng::derive(seed_, 0xF71));
    layout_ = std::make_unique<SequentialLayout>(stripe, bpp, ppb, n, logical, s_.map_pages, order_.get());
    const SequentialLayout& lay = *layout_;
    // The same layout block by block. A block of consecutive pages keeps its
    // spare areas as a rule in the flash too; a random fill's are stored.
    auto fill = [&](uint64_t total, uint64_t first_lpn, bool tps) {
      for (uint64_t u = 0; u < planes; ++u) {
        uint64_t count = lay.count(total, u), base = tps ? lay.tp_base(u) : 0;
        for (uint64_t k = 0; k * ppb < count; ++k) {
          uint64_t b = stripe[u] * bpp + base + k;
          uint32_t pages = static_cast<uint32_t>(std::min(ppb, count - k * ppb));
          uint64_t first = u + planes * k * ppb;  // write index of the block's first page
          blocks.fill_by_rule(b, pages);
          if (tps || !order_) {
            s_.flash->preload_block(b, pages, static_cast<uint32_t>(first_lpn + first), static_cast<uint32_t>(planes),
                                    1);
          } else {
            for (uint32_t p = 0; p < pages; ++p)
              s_.flash->preload_page(b * ppb + p, FlashOob{static_cast<uint32_t>(lay.lpn_written(first + planes * p)), 1});
          }
        }
      }
    };
    fill(n, 0, false);
    fill(s_.map_pages, logical, true);
    s_.map.set_rule(layout_.get());
    s_.layout = layout_.get();
    s_.follows_layout = true;
    writes_ = n + s_.map_pages;
  }
  for (uint64_t b = 0; b < blocks.blocks(); ++b)
    if (blocks[b].state == BlockState::Free) blocks.add_free(b);
  // Ageing overwrites pages of the filled space chosen uniformly (a random
  // fill's pages are found by drawing until a mapped one comes up).
  auto overwrites = static_cast<uint64_t>(std::llround(age_ * double(n)));
  Rng rng(Rng::derive(seed_, 0xA6E));
  for (uint64_t i = 0; i < overwrites && n > 0; ++i) {
    uint64_t lpn;
    do lpn = rng.below(sequential_ ? n : logical);
    while (s_.map.get(lpn) == MappingTable::kUnmapped);
    write(static_cast<uint32_t>(lpn), nullptr);
    ++writes_;
  }
}

void Preconditioner::collect(uint64_t plane) {
  if (!gc_.collect_now(plane, moved_))
    throw ConfigError(fmt::format("{}{}: plane {} filled with valid data and nothing to reclaim; raise {}", scope_,
                                  loaded_ ? " and the pages loaded before the run" : "", plane, overprovision_key_));
}

void Preconditioner::write(uint32_t lpn, const uint8_t* data) {
  uint64_t ppn;
  while (!alloc_.alloc_host(lpn, false, ppn)) collect(alloc_.blocked_plane());
  s_.remap(lpn, static_cast<uint32_t>(ppn));
  s_.flash->preload_page(ppn, FlashOob{lpn, s_.next_seq()}, data);
  uint64_t plane = s_.plane_of_ppn(ppn);
  while (gc_.short_of_blocks(plane)) collect(plane);
}

void Preconditioner::load(uint64_t lpn, const uint8_t* data) {
  if (lpn >= s_.logical_pages)
    throw std::out_of_range(
        fmt::format("FTL: load of logical page {}, beyond the {} the host has", lpn, s_.logical_pages));
  write(static_cast<uint32_t>(lpn), data);
  ++loaded_;
  // With a cached map, the page's translation page is on flash too, as on a
  // drive that was written.
  uint64_t map_lpn;
  if (mapping_.map_page_of(lpn, map_lpn) && s_.map.get(map_lpn) == MappingTable::kUnmapped)
    write(static_cast<uint32_t>(map_lpn), nullptr);
}

void Preconditioner::report(nlohmann::json& j) const {
  j["precondition"] = {{"writes", writes_}, {"gc_pages_moved", moved_}};
  j["loaded_pages"] = loaded_;
}

}  // namespace vp::ssd
