// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/ftl/PageMappingFtl.hpp"

#include <algorithm>
#include <utility>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <memory>

#include "vp/core/SimControl.hpp"
#include "vp/flash/FlashArray.hpp"
#include "vp/ssd/ftl/CachedMapping.hpp"
#include "vp/ssd/ftl/FlatMapping.hpp"
#include "vp/ssd/ftl/SubPageFlash.hpp"

namespace vp::ssd {

using flash::FlashOob;
using flash::FlashOp;
using flash::FlashTransaction;

namespace {
// A cached map's translation pages: one per unit / 4 logical units.
uint64_t translation_pages_for(const ScopedConfig& ftl, const flash::FlashGeometry& g) {
  if (!ftl.get_size("map_cache")) return 0;
  uint64_t epp = PageMappingFtl::geometry_for(ftl, g).page_size / sizeof(uint32_t);
  return (PageMappingFtl::logical_pages_for(ftl, g) + epp - 1) / epp;
}

std::unique_ptr<FtlMapping> mapping_for(const ScopedConfig& ftl, FtlState& s, MappingClient& client,
                                        MapCacheStats& stats) {
  if (uint64_t cache = ftl.get_size("map_cache")) return std::make_unique<CachedMapping>(s, client, cache, stats);
  return std::make_unique<FlatMapping>(s.logical_pages);
}
}  // namespace

void PageMappingFtl::declare_params(const ParamScope& ftl) {
  ftl.real("overprovision", 0.27, "fraction of the data blocks hidden from the host (spare for GC)").range(0.0, 0.9);
  ftl.integer("shards", 1, "translation shards (DeepFlash TRANS threads) the logical space is split over")
      .range(1, 4096);
  ftl.choice("shard_hash", "modulo", {"modulo", "xor"},
             "logical page -> shard: lpn mod shards, or an XOR fold of the lpn's bit groups (DeepFlash)");
  ftl.integer("shard_chunk", 1,
              "logical pages in a row that belong to one shard (the split's stripe unit): the shard is the hash of "
              "lpn / shard_chunk; 1 stripes pages over the shards as a page-striping FTL stripes them over channels")
      .range(1, 1 << 30);
  ftl.size("map_unit", "0B",
           "what one map entry covers (0: a flash page); a unit smaller than the page (sub-page mapping, 4 KiB "
           "in 8 or 16 KiB pages) packs units of any logical address into whole pages, reads a unit's page to "
           "read the unit, and moves valid units in GC");
  ftl.time("pack_wait", "0s",
           "sub-page mapping: how long a page partly filled with host units waits for more before it is "
           "programmed with the rest of its units empty (0: the units at hand at that instant)");
  ftl.size("map_cache", "0B",
           "SSD DRAM for a cached mapping table (DFTL): translation pages of page_size / 4 entries are read from "
           "flash on a miss and written back when evicted dirty (0: the whole map stays in DRAM)");
  PageAllocator::declare_params(ftl);
  GarbageCollector::declare_params(ftl);
  FtlJournal::declare_params(ftl);
  ftl.rule([](const ScopedConfig& c) {
    auto shards = static_cast<uint32_t>(c.get_int("shards"));
    if (c.is("shard_hash", "xor") && (shards & (shards - 1)))
      c.fail({"shards", "shard_hash"}, "the XOR hash needs a power of two of shards");
  });
}

uint32_t PageMappingFtl::units_per_page(const ScopedConfig& ftl, const flash::FlashGeometry& g) {
  const uint64_t unit = ftl.get_size("map_unit");
  return unit && unit < g.page_size ? static_cast<uint32_t>(g.page_size / unit) : 1;
}

flash::FlashGeometry PageMappingFtl::geometry_for(const ScopedConfig& ftl, const flash::FlashGeometry& pages) {
  return flash::in_units(pages, units_per_page(ftl, pages));
}

uint64_t PageMappingFtl::logical_pages_for(const ScopedConfig& ftl, const flash::FlashGeometry& flash_pages) {
  const flash::FlashGeometry g = geometry_for(ftl, flash_pages);
  double op = ftl.get_real("overprovision");
  uint64_t data_blocks = g.blocks_per_plane - std::min(g.blocks_per_plane, FtlJournal::reserved_blocks(ftl));
  uint64_t per_plane = data_blocks * g.pages_per_block;
  uint64_t pages = static_cast<uint64_t>(std::floor(double(per_plane) * (1.0 - op))) * g.total_planes();
  // With a cached map the translation pages live in that space too: one per unit / 4 logical units.
  uint64_t epp = g.page_size / sizeof(uint32_t);
  return ftl.get_size("map_cache") ? pages * epp / (epp + 1) : pages;
}

ShardMap PageMappingFtl::shard_map_from(const ScopedConfig& ftl) {
  return {static_cast<uint32_t>(ftl.get_int("shards")), ftl.is("shard_hash", "xor"),
          static_cast<uint32_t>(ftl.get_int("shard_chunk"))};
}

PageMappingFtl::PageMappingFtl(sc_core::sc_module_name name, Services& svc, const flash::FlashGeometry& geometry,
                               const std::string& scope, const std::string& precondition_scope)
    : sc_module(name),
      target("target"),
      flash("flash"),
      cfg_(svc.cfg, scope),
      stats_(svc.stats, scope),
      eq_("eq"),
      pack_wait_(cfg_.get_time("pack_wait")),
      s_(geometry_for(cfg_, geometry), logical_pages_for(cfg_, geometry), translation_pages_for(cfg_, geometry),
         cfg_.get_bool("wl.dynamic"), eq_),
      map_cache_stats_(stats_),
      mapping_(mapping_for(cfg_, s_, callbacks_, map_cache_stats_)),
      alloc_(s_, cfg_, shard_map_from(cfg_), stats_, svc.waves),
      gc_(s_, alloc_, *mapping_, callbacks_, cfg_, stats_, svc.waves),
      journal_(s_, cfg_, stats_),
      pre_(s_, alloc_, gc_, *mapping_, ScopedConfig(svc.cfg, precondition_scope), cfg_.key("overprovision"), svc.seed),
      shards_(shard_map_from(cfg_)),
      host_reads_(stats_.counter("page_reads", "pages", "logical pages read by the host")),
      host_writes_(stats_.counter("page_writes", "pages", "logical pages (mapping units) written by the host")),
      unmapped_reads_(stats_.counter("unmapped_reads", "pages", "reads of unwritten pages (zeros)")),
      map_bytes_(stats_.counter("map_table_bytes", "bytes",
                                "SSD DRAM the page-level map occupies (4 bytes per mapping unit)")),
      trimmed_(stats_.counter("trimmed_pages", "pages", "logical pages deallocated")),
      urgent_pages_(stats_.counter("urgent_pages", "pages", "pages written marked urgent")),
      waits_(stats_.counter("write_waits", "events", "times a write waited for GC to free a block")) {
  stats_.section("ftl", "the FTL: write amplification, GC, erase counts, mapping memory", [this] { return summary(); });
  target.bind(*this);
  map_bytes_.value = mapping_->dram_bytes();
}

PageMappingFtl::~PageMappingFtl() = default;

void PageMappingFtl::end_of_elaboration() {
  const auto& fg = flash->geometry();
  const auto& geo = s_.page_geo;
  if (fg.total_pages() != geo.total_pages() || fg.page_size != geo.page_size || fg.bits_per_cell != geo.bits_per_cell)
    throw std::logic_error("FTL and flash array disagree on geometry");
  s_.pages.to = flash.operator->();
  if (s_.units_per_page() > 1) sub_page_ = std::make_unique<SubPageFlash>(s_.geo, *s_.pages.to);
  s_.flash.to = sub_page_ ? sub_page_.get() : s_.pages.to;
  pre_.run();
  if (at_start_) at_start_();
  alloc_.started();
  journal_.start();
}

uint32_t PageMappingFtl::shard_of(uint64_t lpn) const { return shards_.of(lpn); }

// ---------------------------------------------------------------- host requests

void PageMappingFtl::submit(FtlRequest& r) {
  r.txns.resize(r.pages);
  ++s_.outstanding;
  gc_.host_arrived();
  r.map_misses = 0;
  if (mapping_->translate(r)) translated(r);
}
Tick PageMappingFtl::map_access(uint64_t lpn, bool update) {
  if (dram.size() == 0) return now_ps();
  // A cached map's entries move between cache slots; the entry's place in
  // the region is taken modulo its size, which keeps the row behaviour of
  // neighbouring pages.
  uint64_t region = map_bytes_.value / sizeof(uint32_t) * sizeof(uint32_t);
  return dram->access(map_base_ + lpn * sizeof(uint32_t) % region, sizeof(uint32_t), update, now_ps());
}

void PageMappingFtl::submit_at(Tick when, FlashTransaction& t) {
  if (when <= now_ps()) return s_.flash->submit(t);
  eq_.at(when, [this, &t, epoch = s_.epoch] {
    if (epoch == s_.epoch) s_.flash->submit(t);
  });
}

void PageMappingFtl::hold_until(Tick when, FtlRequest& r) {
  if (when <= now_ps()) return;
  ++r.outstanding;
  eq_.at(when, [this, &r, epoch = s_.epoch] {
    if (epoch == s_.epoch && --r.outstanding == 0) request_done(r);
  });
}

void PageMappingFtl::translated(FtlRequest& r) {
  r.outstanding = 1;  // held while issuing, so no completion can finish the request early
  Tick mapped = now_ps();  // when the last lookup or update that issues no flash command ends
  switch (r.op) {
    case IoOp::Flush: break;  // no volatile write cache: written data is already on flash
    case IoOp::Trim:
      for (uint32_t i = 0; i < r.pages; ++i) {
        uint32_t lpn = static_cast<uint32_t>(r.lpn + i);
        if (s_.map.get(lpn) != MappingTable::kUnmapped) {
          s_.remap(lpn, MappingTable::kUnmapped);
          mapping_->changed(lpn);
          ++trimmed_;
          mapped = map_access(lpn, true);
        }
      }
      break;
    case IoOp::Read:
      for (uint32_t i = 0; i < r.pages; ++i) {
        uint32_t lpn = static_cast<uint32_t>(r.lpn + i);
        uint8_t* data = r.data + uint64_t(i) * s_.geo.page_size;
        ++host_reads_;
        auto w = writing_.find(lpn);
        if (w != writing_.end()) {  // still being programmed: served from the write's buffer
          std::memcpy(data, w->second.first, s_.geo.page_size);
          continue;
        }
        Tick looked_up = map_access(lpn, false);
        uint32_t ppn = s_.map.get(lpn);
        if (ppn == MappingTable::kUnmapped) {
          ++unmapped_reads_;
          std::memset(data, 0, s_.geo.page_size);
          mapped = looked_up;
          continue;
        }
        FlashTransaction& t = r.txns[i];
        t = FlashTransaction{};
        t.op = FlashOp::Read;
        t.addr = flash::address_of(s_.geo, ppn);
        t.data = data;
        t.latency = r.attr != 0;
        t.client = this;
        t.tag = reinterpret_cast<uint64_t>(&r);
        ++r.outstanding;
        submit_at(looked_up, t);
      }
      break;
    case IoOp::Write: issue_writes(r, 0); return;
  }
  hold_until(mapped, r);
  if (--r.outstanding == 0) request_done(r);
}

void PageMappingFtl::issue_writes(FtlRequest& r, uint32_t from) {
  for (uint32_t i = from; i < r.pages; ++i) {
    uint32_t lpn = static_cast<uint32_t>(r.lpn + i);
    uint64_t ppn;
    if (!alloc_.alloc_host(lpn, r.urgent, ppn)) {
      uint64_t plane = alloc_.blocked_plane();
      waiting_.push_back({&r, i, plane});
      ++waits_;
      gc_.maybe_collect(plane, false);
      // A plane whose only reclaimable blocks still have programs in flight
      // starts GC when those finish (flash_done); otherwise it is stuck.
      if (!gc_.reclaiming(plane)) {
        const auto& geo = s_.geo;
        auto a = flash::address_of(geo, plane * geo.blocks_per_plane * geo.pages_per_block);
        sim_abort(fmt::format("FTL: channel {} die {} plane {} has no free block and no block GC could reclaim "
                              "(every page valid); raise ssd.ftl.overprovision",
                              a.channel, a.die, a.plane));
      }
      return;
    }
    if (lpn < s_.logical_pages)
      ++host_writes_;
    else
      mapping_->map_page_written();
    if (r.urgent) ++urgent_pages_;
    s_.remap(lpn, static_cast<uint32_t>(ppn));
    mapping_->changed(lpn);
    uint8_t* data = r.data + uint64_t(i) * s_.geo.page_size;
    auto& w = writing_nodes_.entry(writing_, lpn);
    w.first = data;
    ++w.second;
    FlashTransaction& t = r.txns[i];
    t = FlashTransaction{};
    t.op = FlashOp::Program;
    t.addr = flash::address_of(s_.geo, ppn);
    t.data = data;
    t.oob = FlashOob{lpn, s_.next_seq()};
    ++s_.host_programs;
    t.client = this;
    t.tag = reinterpret_cast<uint64_t>(&r);
    ++r.outstanding;
    ++s_.blocks[s_.block_of(ppn)].programming;
    submit_at(map_access(lpn, true), t);
    if (s_.units_per_page() > 1) unit_placed(ppn);
    gc_.maybe_collect(s_.plane_of_ppn(ppn), false);
  }
  if (--r.outstanding == 0) request_done(r);
}

void PageMappingFtl::unit_placed(uint64_t unit) {
  const uint64_t page = unit / s_.units_per_page();
  if (s_.page_ends_at(unit)) {
    open_pages_.erase(page);
    return;
  }
  auto [it, fresh] = open_pages_.try_emplace(page, unit);
  it->second = unit;
  if (!fresh) return;
  pad_due_.push_back({page, now_ps() + pack_wait_});
  if (pad_due_.size() == 1) arm_padding();
}

void PageMappingFtl::arm_padding() {
  if (pad_due_.empty()) return;
  eq_.at(pad_due_.front().second, [this, epoch = s_.epoch] {
    if (epoch != s_.epoch) return;
    while (!pad_due_.empty() && pad_due_.front().second <= now_ps()) {
      auto it = open_pages_.find(pad_due_.front().first);
      pad_due_.pop_front();
      if (it == open_pages_.end()) continue;  // filled meanwhile
      const uint64_t last = it->second;
      open_pages_.erase(it);
      alloc_.pad(last, true);
    }
    arm_padding();
  });
}

void PageMappingFtl::retry_waiting() {
  while (!waiting_.empty()) {
    Waiting w = waiting_.front();
    waiting_.pop_front();
    size_t before = waiting_.size();
    issue_writes(*w.r, w.next);
    if (waiting_.size() > before) {  // still blocked: it keeps its place at the head
      Waiting again = waiting_.back();
      waiting_.pop_back();
      waiting_.push_front(again);
      return;
    }
  }
}

void PageMappingFtl::flash_done(FlashTransaction& t) {
  auto& r = *reinterpret_cast<FtlRequest*>(t.tag);
  if (t.op == FlashOp::Program) {
    gc_.program_done(s_.block_of(flash::ppn_of(s_.geo, t.addr)));
    auto w = writing_.find(t.oob.lpn);
    if (w != writing_.end() && --w->second.second == 0) writing_nodes_.erase(writing_, w);
    --s_.host_programs;
    journal_.host_program_done(t.oob.seq);
  }
  if (--r.outstanding == 0) request_done(r);
}

void PageMappingFtl::request_done(FtlRequest& r) {
  if (--s_.outstanding == 0) {
    gc_.idle();
    journal_.host_idle();
  }
  r.client->ftl_done(r);
}

PageMappingFtl::InFlight PageMappingFtl::in_flight() const {
  InFlight f;
  for (uint32_t first : s_.gc_first_seq) f.gc_jobs += first != 0;
  f.checkpoint = journal_.checkpointing();
  f.host_programs = s_.host_programs;
  return f;
}

void PageMappingFtl::power_loss() {
  s_.flash->power_loss();
  open_pages_.clear();
  pad_due_.clear();
  s_.powered = false;
  ++s_.epoch;
  gc_.power_loss();
  waiting_.clear();
  writing_.clear();
  s_.outstanding = 0;
  s_.host_programs = 0;
  journal_.power_loss();
}

void PageMappingFtl::recover() {
  s_.map.clear();
  s_.blocks = BlockManager(s_.geo, s_.blocks.wear_aware());
  alloc_.reset();
  mapping_->clear();
  journal_.recover();
  alloc_.free_changed();
  s_.powered = true;
}

void PageMappingFtl::load_page(uint64_t lpn, const uint8_t* data) { pre_.load(lpn, data); }

void PageMappingFtl::for_each_written(uint64_t limit, const std::function<void(uint64_t lpn)>& fn) const {
  limit = std::min(limit, s_.logical_pages);
  for (uint64_t base = 0; base < limit; base += MappingTable::kChunk) {
    if (!s_.map.touched(base)) continue;
    for (uint64_t lpn = base; lpn < std::min(limit, base + MappingTable::kChunk); ++lpn)
      if (s_.map.get(lpn) != MappingTable::kUnmapped) fn(lpn);
  }
}

bool PageMappingFtl::debug_read(uint64_t lpn, uint8_t* page) const {
  auto w = writing_.find(static_cast<uint32_t>(lpn));
  if (w != writing_.end()) {
    std::memcpy(page, w->second.first, s_.geo.page_size);
    return true;
  }
  uint32_t ppn = s_.map.get(lpn);
  if (ppn == MappingTable::kUnmapped) {
    std::memset(page, 0, s_.geo.page_size);
    return false;
  }
  s_.flash->peek(ppn, page, nullptr);
  return true;
}

MediaHealth PageMappingFtl::health() const {
  MediaHealth h;
  const BlockManager::Wear w = std::as_const(s_.blocks).wear();
  h.min_erase_count = w.min;
  h.max_erase_count = w.max;
  h.mean_erase_count = w.blocks ? double(w.sum) / double(w.blocks) : 0.0;
  h.endurance = s_.geo.endurance;
  h.unsafe_shutdowns = journal_.recoveries();
  return h;
}

nlohmann::json PageMappingFtl::summary() const {
  MediaHealth h = health();
  uint64_t hw = host_writes_.value;
  nlohmann::json j;
  j["host_page_writes"] = hw;
  j["write_amplification"] =
      hw ? double(hw + gc_.pages_moved() + mapping_->map_pages_written()) / double(hw) : 0.0;
  mapping_->report(j);
  gc_.report(j);
  alloc_.report(j);
  journal_.report(j);
  pre_.report(j);
  j["trimmed_pages"] = trimmed_.value;
  j["erase_count"] = {{"min", h.min_erase_count}, {"mean", h.mean_erase_count}, {"max", h.max_erase_count}};
  j["map_dram_bytes"] = s_.map.dram_bytes();
  j["sim_memory_bytes"] = host_bytes();
  return j;
}

}  // namespace vp::ssd
