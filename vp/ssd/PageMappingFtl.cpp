// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/PageMappingFtl.hpp"

#include "vp/ssd/ShardHash.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <set>

#include "vp/core/Rng.hpp"
#include "vp/core/SimControl.hpp"
#include "vp/flash/FlashArray.hpp"

namespace vp::ssd {

using flash::FlashAddress;
using flash::FlashOp;
using flash::FlashOob;
using flash::FlashTransaction;
using flash::PageType;

namespace {
constexpr uint64_t kCheckpointTag = 1;  // host requests are tagged with their address
const std::vector<std::string> kStripeOrders = {"channel,die,plane", "channel,plane,die", "die,channel,plane",
                                                "die,plane,channel", "plane,channel,die", "plane,die,channel"};
uint32_t fg_threshold_of(const Config& c) { return static_cast<uint32_t>(c.get_int("ssd.ftl.gc.fg_threshold")); }
uint32_t ckpt_blocks_of(const Config& c) {
  return c.get_time("ssd.ftl.checkpoint_interval") > 0 ? static_cast<uint32_t>(c.get_int("ssd.ftl.checkpoint_blocks"))
                                                        : 0;
}
}  // namespace

// A garbage-collection (or static wear-leveling) pass over one victim block.
struct PageMappingFtl::GcJob : flash::FlashClient {
  struct Move {
    uint32_t src, dst, lpn, seq;
  };
  PageMappingFtl& ftl;
  uint64_t plane, victim;
  uint32_t pending = 0;
  std::vector<Move> moves;
  std::vector<FlashTransaction> txns;
  std::vector<uint8_t> buf;  // read+program migration goes through controller DRAM
  std::set<uint32_t> tps;    // translation pages the moves changed (cached map)
  FlashTransaction erase;
  GcJob(PageMappingFtl& f, uint64_t p, uint64_t v) : ftl(f), plane(p), victim(v) {}
  void flash_done(FlashTransaction& t) override { ftl.job_txn_done(*this, t); }
};

// The map as of write sequence `seq`: chunks saved so far (shared between
// successive checkpoints until a chunk is dirtied again) over the
// preconditioning rule.
struct PageMappingFtl::Checkpoint {
  uint32_t seq = 0;
  bool has_rule = false;
  std::unordered_map<uint64_t, std::shared_ptr<const std::vector<uint32_t>>> chunks;
};

void PageMappingFtl::declare_params(ParamRegistry& r) {
  r.real("ssd.ftl.overprovision", 0.27, "fraction of the data blocks hidden from the host (spare for GC)")
      .range(0.0, 0.9);
  r.choice("ssd.ftl.stripe_order", "channel,die,plane", kStripeOrders,
           "order in which consecutive writes visit allocation units (planes); the first varies fastest");
  r.integer("ssd.ftl.shards", 1, "translation shards (DeepFlash TRANS threads) the logical space is split over")
      .range(1, 4096);
  r.choice("ssd.ftl.shard_hash", "modulo", {"modulo", "xor"},
           "logical page -> shard: lpn mod shards, or an XOR fold of the lpn's bit groups (DeepFlash)");
  r.choice("ssd.ftl.shard_partition", "block", {"block", "channel"},
           "what a shard writes: blocks on every plane (block-interleaved), or only its own channels");
  r.choice("ssd.ftl.page_alloc", "sequential", {"sequential", "lsb_skip", "lsb_group"},
           "page choice in a block: in order; urgent writes skip to the next LSB page (wasting the skipped); "
           "FastDrain's LSB/CSB/MSB groups (urgent writes take LSB pages across planes, others the upper pages)");
  r.size("ssd.ftl.lsb_region", "64GiB",
         "most data held in LSB pages whose word line is not yet complete (FastDrain's max LSB-only region)");
  r.choice("ssd.ftl.gc.policy", "greedy", {"greedy", "cost_benefit"},
           "victim: fewest valid pages, or best (1-u)/2u x age");
  r.integer("ssd.ftl.gc.fg_threshold", 2, "free blocks per plane below which a write starts foreground GC")
      .range(2, 1 << 20);
  r.integer("ssd.ftl.gc.bg_threshold", 4, "free blocks per plane below which idle time is used for GC (0: never)")
      .range(0, 1 << 20);
  r.time("ssd.ftl.gc.bg_idle", "1ms", "time without host requests before background GC starts");
  r.choice("ssd.ftl.gc.migration", "copyback", {"copyback", "read_program"},
           "how valid pages move: on-chip copy-back, or read out and program back");
  r.boolean("ssd.ftl.gc.preemptible", true, "GC flash work yields to host reads in the flash scheduler");
  r.boolean("ssd.ftl.wl.dynamic", true, "take the least-erased free block (false: oldest freed first)");
  r.integer("ssd.ftl.wl.static_threshold", 0,
            "erase-count spread in a plane that makes its coldest block migrate (0: no static wear leveling)")
      .range(0, 1 << 30);
  r.size("ssd.ftl.map_cache", "0B",
         "SSD DRAM for a cached mapping table (DFTL): translation pages of page_size / 4 entries are read from "
         "flash on a miss and written back when evicted dirty (0: the whole map stays in DRAM)");
  // Each period copies the map's changed chunks and programs at least one
  // page (tens of us or more): shorter periods only livelock the run.
  r.time("ssd.ftl.checkpoint_interval", "0ns",
         "period of the mapping checkpoint (0: no checkpoints; else at least 10us, below a page program time)");
  r.rule([](const Config& c) {
    Tick t = c.get_time("ssd.ftl.checkpoint_interval");
    if (t > 0 && t < 10 * US)
      c.fail("ssd.ftl.checkpoint_interval",
             "is 0 (no checkpoints) or at least 10us: a checkpoint programs at least one page, so a shorter period "
             "only repeats the work without progress");
  });
  r.boolean("ssd.ftl.checkpoint_when_idle", false,
            "checkpoint pages are written only while no host request is at the FTL (DeepFlash's LOG pausing while "
            "NVMQ is busy, FAST'19 Fig. 17a); under unbroken load a checkpoint waits");
  r.integer("ssd.ftl.checkpoint_blocks", 2, "blocks per plane reserved for checkpoints when they are on")
      .range(1, 1 << 20);
  r.real("ssd.precondition.fill", 1.0, "fraction of the logical space written before the run").range(0.0, 1.0);
  r.choice("ssd.precondition.pattern", "sequential", {"sequential", "random"},
           "order of the preconditioning writes");
  r.real("ssd.precondition.age", 0.0,
         "random overwrites after the fill, as a multiple of the filled space (about 2-3 reach GC steady state)")
      .range(0.0, 1000.0);
  r.rule([](const Config& c) {
    auto g = flash::FlashArray::geometry_from(c);
    if (g.total_pages() >= 0xFFFFFFFFull)
      c.fail({"ssd.flash.channels", "ssd.flash.packages_per_channel", "ssd.flash.dies_per_package",
              "ssd.flash.planes_per_die", "ssd.flash.blocks_per_plane", "ssd.flash.block_size", "ssd.flash.page_size"},
             fmt::format("the device has {} pages; the FTL's 32-bit map addresses fewer than 2^32", g.total_pages()));
    uint32_t data_blocks = g.blocks_per_plane - std::min(g.blocks_per_plane, ckpt_blocks_of(c));
    uint64_t per_plane = logical_pages_for(c) / g.total_planes();
    uint64_t used = (per_plane + g.pages_per_block - 1) / g.pages_per_block;
    if (per_plane == 0) c.fail("ssd.ftl.overprovision", "leaves no logical capacity");
    uint32_t need = fg_threshold_of(c) + 1;
    if (used + need > data_blocks) {
      std::vector<std::string> keys = {"ssd.ftl.overprovision", "ssd.flash.blocks_per_plane",
                                       "ssd.ftl.gc.fg_threshold"};
      if (ckpt_blocks_of(c)) keys.push_back("ssd.ftl.checkpoint_blocks");
      c.fail(keys, fmt::format("leaves {} spare blocks per plane{}; garbage collection needs fg_threshold + 1 = {} "
                               "free blocks",
                               data_blocks - std::min<uint64_t>(used, data_blocks),
                               ckpt_blocks_of(c) ? fmt::format(" besides {} for checkpoints", ckpt_blocks_of(c)) : "",
                               need));
    }
    if (c.get_size("ssd.flash.oob_size") < sizeof(flash::FlashOob))
      c.fail("ssd.flash.oob_size", "the FTL keeps 8 bytes (logical page, sequence number) in every spare area");
    auto shards = static_cast<uint32_t>(c.get_int("ssd.ftl.shards"));
    if (c.is("ssd.ftl.shard_hash", "xor") && (shards & (shards - 1)))
      c.fail({"ssd.ftl.shards", "ssd.ftl.shard_hash"}, "the XOR hash needs a power of two of shards");
    if (c.is("ssd.ftl.shard_partition", "channel") && g.channels % shards)
      c.fail({"ssd.ftl.shards", "ssd.flash.channels", "ssd.ftl.shard_partition"},
             "shards that own channels must divide the channels evenly");
    if (!c.is("ssd.ftl.page_alloc", "sequential") && g.bits_per_cell < 2)
      c.fail({"ssd.ftl.page_alloc", "ssd.flash.bits_per_cell"},
             "LSB-aware allocation needs a multi-level cell (bits_per_cell >= 2): every page is LSB here");
  });
}

uint64_t PageMappingFtl::logical_pages_for(const Config& c) {
  auto g = flash::FlashArray::geometry_from(c);
  double op = c.get_real("ssd.ftl.overprovision");
  uint64_t data_blocks = g.blocks_per_plane - std::min(g.blocks_per_plane, ckpt_blocks_of(c));
  uint64_t per_plane = data_blocks * g.pages_per_block;
  uint64_t pages = static_cast<uint64_t>(std::floor(double(per_plane) * (1.0 - op))) * g.total_planes();
  // With a cached map the translation pages live in that space too: one per page_size / 4 logical pages.
  uint64_t epp = g.page_size / sizeof(uint32_t);
  return c.get_size("ssd.ftl.map_cache") ? pages * epp / (epp + 1) : pages;
}

PageMappingFtl::PageMappingFtl(sc_core::sc_module_name name, Services& svc)
    : sc_module(name),
      target("target"),
      flash("flash"),
      geo_(flash::FlashArray::geometry_from(svc.cfg)),
      svc_(svc),
      eq_("eq"),
      planes_(geo_.total_planes()),
      logical_pages_(logical_pages_for(svc.cfg)),
      epp_(geo_.page_size / sizeof(uint32_t)),
      tps_(svc.cfg.get_size("ssd.ftl.map_cache") ? (logical_pages_ + epp_ - 1) / epp_ : 0),
      map_(logical_pages_ + tps_),
      blocks_(geo_, svc.cfg.get_bool("ssd.ftl.wl.dynamic")),
      host_reads_(svc.stats.counter("ssd.ftl.page_reads", "pages", "logical pages read by the host")),
      host_writes_(svc.stats.counter("ssd.ftl.page_writes", "pages", "logical pages written by the host")),
      unmapped_reads_(svc.stats.counter("ssd.ftl.unmapped_reads", "pages", "reads of unwritten pages (zeros)")),
      map_bytes_(svc.stats.counter("ssd.ftl.map_table_bytes", "bytes",
                                   "SSD DRAM the page-level map occupies (4 bytes per logical page)")),
      trimmed_(svc.stats.counter("ssd.ftl.trimmed_pages", "pages", "logical pages deallocated")),
      gc_runs_(svc.stats.counter("ssd.ftl.gc.invocations", "blocks", "victim blocks reclaimed by GC")),
      gc_bg_runs_(svc.stats.counter("ssd.ftl.gc.background", "blocks", "of which reclaimed in idle time")),
      gc_moved_(svc.stats.counter("ssd.ftl.gc.pages_moved", "pages", "valid pages migrated by GC and wear leveling")),
      gc_copybacks_(svc.stats.counter("ssd.ftl.gc.copybacks", "pages", "migrations done by copy-back")),
      wl_runs_(svc.stats.counter("ssd.ftl.wl.migrations", "blocks", "cold blocks migrated by static wear leveling")),
      wasted_(svc.stats.counter("ssd.ftl.wasted_pages", "pages", "pages skipped unprogrammed by LSB-first allocation")),
      urgent_pages_(svc.stats.counter("ssd.ftl.urgent_pages", "pages", "pages written marked urgent")),
      lsb_urgent_(svc.stats.counter("ssd.ftl.lsb_group_pages", "pages", "urgent pages given LSB pages from the groups")),
      waits_(svc.stats.counter("ssd.ftl.write_waits", "events", "times a write waited for GC to free a block")),
      ckpts_(svc.stats.counter("ssd.ftl.checkpoints", "checkpoints", "mapping checkpoints committed")),
      ckpt_pages_(svc.stats.counter("ssd.ftl.checkpoint_pages", "pages", "flash pages programmed by checkpoints")),
      recoveries_(svc.stats.counter("ssd.ftl.recoveries", "events", "rebuilds after power loss")),
      replayed_(svc.stats.counter("ssd.ftl.replayed_pages", "pages", "map entries rebuilt from spare areas")),
      min_free_(svc.stats.counter("ssd.ftl.free_blocks_min", "blocks", "fewest free blocks seen (all planes)")),
      cmt_hits_(svc.stats.counter("ssd.ftl.map_cache.hits", "lookups", "translation-page lookups found in DRAM")),
      cmt_misses_(svc.stats.counter("ssd.ftl.map_cache.misses", "lookups", "translation-page lookups that missed")),
      map_reads_(svc.stats.counter("ssd.ftl.map_cache.page_reads", "pages", "translation pages read from flash")),
      map_writes_(svc.stats.counter("ssd.ftl.map_cache.page_writes", "pages", "translation pages written back")) {
  svc.stats.section("ftl", [this] { return summary(); });
  const Config& c = svc.cfg;
  target.bind(*this);
  map_bytes_.value = logical_pages_ * sizeof(uint32_t);
  if (uint64_t cache = svc.cfg.get_size("ssd.ftl.map_cache")) {
    cmt_ = std::make_unique<MappingCache>(std::max<uint64_t>(1, cache / geo_.page_size));
    map_bytes_.value = cmt_->capacity() * geo_.page_size + tps_ * sizeof(uint32_t);  // cached pages + directory
    scratch_.resize(geo_.page_size);
    zero_page_.assign(geo_.page_size, 0);
  }
  shards_ = shard_map_from(c).shards;
  xor_hash_ = shard_map_from(c).xor_hash;
  channel_partition_ = c.is("ssd.ftl.shard_partition", "channel");
  alloc_ = c.get_enum<Alloc>("ssd.ftl.page_alloc", {{"sequential", Alloc::Sequential},
                                                    {"lsb_skip", Alloc::LsbSkip},
                                                    {"lsb_group", Alloc::LsbGroup}});
  lsb_limit_pages_ = c.get_size("ssd.ftl.lsb_region") / geo_.page_size;
  greedy_ = c.is("ssd.ftl.gc.policy", "greedy");
  copyback_ = c.is("ssd.ftl.gc.migration", "copyback");
  preemptible_ = c.get_bool("ssd.ftl.gc.preemptible");
  fg_threshold_ = fg_threshold_of(c);
  bg_threshold_ = static_cast<uint32_t>(c.get_int("ssd.ftl.gc.bg_threshold"));
  gc_reserve_ = 1;
  wl_threshold_ = static_cast<uint32_t>(c.get_int("ssd.ftl.wl.static_threshold"));
  ckpt_blocks_ = ckpt_blocks_of(c);
  bg_idle_ = c.get_time("ssd.ftl.gc.bg_idle");
  ckpt_when_idle_ = c.get_bool("ssd.ftl.checkpoint_when_idle");
  ckpt_interval_ = c.get_time("ssd.ftl.checkpoint_interval");

  // Allocation units in stripe order: the first named dimension varies fastest.
  std::string order = c.get_string("ssd.ftl.stripe_order");
  std::vector<std::string> dims;
  for (size_t s = 0, e; s <= order.size(); s = e + 1) {
    e = order.find(',', s);
    if (e == std::string::npos) e = order.size();
    dims.push_back(order.substr(s, e - s));
  }
  for (uint64_t u = 0; u < planes_; ++u) {
    uint64_t rest = u, ch = 0, die = 0, pl = 0;
    for (const auto& d : dims) {
      uint64_t n = d == "channel" ? geo_.channels : d == "die" ? geo_.dies_per_channel() : geo_.planes_per_die;
      (d == "channel" ? ch : d == "die" ? die : pl) = rest % n;
      rest /= n;
    }
    unit_plane_.push_back((ch * geo_.dies_per_channel() + die) * geo_.planes_per_die + pl);
  }
  shard_units_.resize(shards_);
  shard_rr_.assign(shards_, 0);
  for (uint64_t u = 0; u < planes_; ++u) {
    uint64_t ch = unit_plane_[u] / (uint64_t(geo_.dies_per_channel()) * geo_.planes_per_die);
    for (uint32_t s = 0; s < shards_; ++s)
      if (!channel_partition_ || ch % shards_ == s) shard_units_[s].push_back(u);
  }
  host_open_.assign(uint64_t(shards_) * planes_, -1);
  gc_open_.assign(planes_, -1);
  lsb_blocks_.resize(planes_);
  jobs_.resize(planes_);
  dirty_chunks_.assign((logical_pages_ + tps_ + MappingTable::kChunk - 1) / MappingTable::kChunk, false);
  for (uint32_t k = 0; k < ckpt_blocks_; ++k)
    for (uint64_t p = 0; p < planes_; ++p) {
      uint64_t b = p * geo_.blocks_per_plane + geo_.blocks_per_plane - 1 - k;
      blocks_[b].state = BlockState::Meta;
      ckpt_blocks_list_.push_back(b);
    }
  if (svc.waves.enabled()) {
    svc.waves.trace(free_blocks_signal_, "ftl_free_blocks", "ftl");
    svc.waves.trace(gc_active_signal_, "ftl_gc_active", "ftl");
  }
}

PageMappingFtl::~PageMappingFtl() = default;

void PageMappingFtl::end_of_elaboration() {
  const auto& fg = flash->geometry();
  if (fg.total_pages() != geo_.total_pages() || fg.page_size != geo_.page_size || fg.bits_per_cell != geo_.bits_per_cell)
    throw std::logic_error("FTL and flash array disagree on geometry");
  precondition();
  if (at_start_) at_start_();
  free_blocks_signal_ = blocks_.free_total();
  min_free_.value = blocks_.free_total();
  if (ckpt_interval_ > 0) take_checkpoint(false);
  start_checkpoint_timer();
}

uint32_t PageMappingFtl::lpn_at(uint64_t ppn) const {
  FlashOob o;
  flash->peek(ppn, nullptr, &o);
  return o.lpn;
}

ShardMap PageMappingFtl::shard_map_from(const Config& c) {
  return {static_cast<uint32_t>(c.get_int("ssd.ftl.shards")), c.is("ssd.ftl.shard_hash", "xor")};
}

uint32_t PageMappingFtl::shard_of(uint64_t lpn) const { return shard_index(lpn, shards_, xor_hash_); }

// ---------------------------------------------------------------- allocation

bool PageMappingFtl::open_block(uint64_t plane, int64_t& slot, bool for_gc) {
  if (!for_gc && blocks_.free_count(plane) <= gc_reserve_) return false;
  uint64_t b;
  if (!blocks_.take_free(plane, b)) return false;
  blocks_.open(b, now_ps());
  slot = static_cast<int64_t>(b);
  free_blocks_signal_ = blocks_.free_total();
  if (blocks_.free_total() < min_free_.value) min_free_.value = blocks_.free_total();
  return true;
}

void PageMappingFtl::place(uint64_t block, uint32_t page) {
  blocks_.use(block, page, now_ps());
  close_if_full(block);
}

void PageMappingFtl::close_if_full(uint64_t block) {
  if (blocks_.full(block)) blocks_[block].state = BlockState::Full;
}

bool PageMappingFtl::alloc_gc(uint64_t plane, uint64_t& ppn) {
  int64_t& slot = gc_open_[plane];
  if (slot < 0 || blocks_[slot].state != BlockState::Open)
    if (!open_block(plane, slot, true)) return false;
  uint32_t page;
  blocks_.next_sequential(slot, page);
  place(slot, page);
  ppn = to_ppn(slot, page);
  return true;
}

bool PageMappingFtl::alloc_lsb(uint64_t plane, uint64_t& ppn) {
  auto& list = lsb_blocks_[plane];
  uint32_t page;
  if (list.empty() || !blocks_.next_page(list.back(), PageType::LSB, page)) {
    int64_t slot;
    if (!open_block(plane, slot, false)) return false;
    blocks_[slot].lsb_opened = true;
    list.push_back(slot);
    blocks_.next_page(slot, PageType::LSB, page);
  }
  place(list.back(), page);
  ppn = to_ppn(list.back(), page);
  ++lsb_only_pages_;
  return true;
}

bool PageMappingFtl::alloc_upper(uint64_t plane, uint64_t& ppn) {
  auto& list = lsb_blocks_[plane];
  for (size_t i = 0; i < list.size();) {
    uint64_t b = list[i];
    uint32_t page;
    if (blocks_[b].state != BlockState::Open) {  // filled up
      list.erase(list.begin() + static_cast<long>(i));
      continue;
    }
    // The lowest free upper page: word lines complete in order.
    uint32_t csb, msb;
    bool has_csb = blocks_.next_page(b, PageType::CSB, csb), has_msb = blocks_.next_page(b, PageType::MSB, msb);
    if (has_csb || has_msb) {
      page = has_csb && (!has_msb || csb < msb) ? csb : msb;
      if (geo_.page_type(page) == PageType::MSB) --lsb_only_pages_;  // the word line is complete
      place(b, page);
      ppn = to_ppn(b, page);
      return true;
    }
    ++i;
  }
  return false;
}

bool PageMappingFtl::alloc_in_plane(uint64_t plane, uint32_t shard, bool urgent, uint64_t& ppn) {
  if (alloc_ == Alloc::LsbGroup && !urgent) {
    // Upper pages of the LSB groups first, then their LSB pages (FastDrain).
    if (alloc_upper(plane, ppn)) return true;
    uint32_t page;
    auto& list = lsb_blocks_[plane];
    if (!list.empty() && blocks_.next_page(list.back(), PageType::LSB, page)) return alloc_lsb(plane, ppn);
  }
  int64_t& slot = host_open_[uint64_t(shard) * planes_ + plane];
  for (;;) {
    if (slot < 0 || blocks_[slot].state != BlockState::Open)
      if (!open_block(plane, slot, false)) return false;
    uint32_t page;
    blocks_.next_sequential(slot, page);
    if (urgent && alloc_ == Alloc::LsbSkip && geo_.page_type(page) != PageType::LSB) {
      blocks_.skip(slot, page);
      ++wasted_;
      close_if_full(slot);
      continue;
    }
    place(slot, page);
    ppn = to_ppn(slot, page);
    return true;
  }
}

bool PageMappingFtl::alloc_host(uint32_t lpn, bool urgent, uint64_t& ppn) {
  uint32_t s = shard_of(lpn);
  auto& units = shard_units_[s];
  uint32_t& rr = shard_rr_[s];
  if (urgent && alloc_ == Alloc::LsbGroup && lsb_only_pages_ < lsb_limit_pages_) {
    for (size_t k = 0; k < units.size(); ++k) {
      size_t idx = (rr + k) % units.size();
      if (alloc_lsb(plane_of_unit(units[idx]), ppn)) {
        rr = static_cast<uint32_t>((idx + 1) % units.size());
        ++lsb_urgent_;
        return true;
      }
    }
  }
  uint64_t plane = plane_of_unit(units[rr]);
  blocked_plane_ = plane;
  if (!alloc_in_plane(plane, s, urgent, ppn)) return false;
  rr = static_cast<uint32_t>((rr + 1) % units.size());
  return true;
}

void PageMappingFtl::map_set(uint32_t lpn, uint32_t ppn) {
  map_.set(lpn, ppn);
  dirty_chunks_[lpn / MappingTable::kChunk] = true;
}

void PageMappingFtl::remap(uint32_t lpn, uint32_t ppn) {
  uint32_t old = map_.get(lpn);
  if (old != MappingTable::kUnmapped) blocks_.invalidate(old / geo_.pages_per_block, old % geo_.pages_per_block);
  map_set(lpn, ppn);
}

// ---------------------------------------------------------------- host requests

void PageMappingFtl::submit(FtlRequest& r) {
  r.txns.resize(r.pages);
  ++outstanding_;
  ++activity_;
  r.map_misses = 0;
  if (cmt_ && r.op != IoOp::Flush && r.pages > 0 && r.lpn < logical_pages_) {
    // Every translation page the request needs must be in DRAM first.
    uint32_t first = static_cast<uint32_t>(r.lpn / epp_), last = static_cast<uint32_t>((r.lpn + r.pages - 1) / epp_);
    std::vector<uint32_t> load;
    for (uint32_t tp = first; tp <= last; ++tp) {
      if (cmt_->touch(tp)) {
        ++cmt_hits_;
        continue;
      }
      ++cmt_misses_;
      if (map_.get(logical_pages_ + tp) == MappingTable::kUnmapped)
        tp_insert(tp);  // never written: an empty page made in DRAM
      else
        load.push_back(tp);
    }
    r.map_misses = static_cast<uint32_t>(load.size());
    for (uint32_t tp : load) tp_load(tp, &r, false);
    if (r.map_misses) return;
  }
  translated(r);
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
  if (when <= now_ps()) return flash->submit(t);
  eq_.at(when, [this, &t, epoch = epoch_] {
    if (epoch == epoch_) flash->submit(t);
  });
}

void PageMappingFtl::hold_until(Tick when, FtlRequest& r) {
  if (when <= now_ps()) return;
  ++r.outstanding;
  eq_.at(when, [this, &r, epoch = epoch_] {
    if (epoch == epoch_ && --r.outstanding == 0) request_done(r);
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
        if (map_.get(lpn) != MappingTable::kUnmapped) {
          remap(lpn, MappingTable::kUnmapped);
          tp_dirty(lpn);
          ++trimmed_;
          mapped = map_access(lpn, true);
        }
      }
      break;
    case IoOp::Read:
      for (uint32_t i = 0; i < r.pages; ++i) {
        uint32_t lpn = static_cast<uint32_t>(r.lpn + i);
        uint8_t* data = r.data + uint64_t(i) * geo_.page_size;
        ++host_reads_;
        auto w = writing_.find(lpn);
        if (w != writing_.end()) {  // still being programmed: served from the write's buffer
          std::memcpy(data, w->second.first, geo_.page_size);
          continue;
        }
        Tick looked_up = map_access(lpn, false);
        uint32_t ppn = map_.get(lpn);
        if (ppn == MappingTable::kUnmapped) {
          ++unmapped_reads_;
          std::memset(data, 0, geo_.page_size);
          mapped = looked_up;
          continue;
        }
        FlashTransaction& t = r.txns[i];
        t = FlashTransaction{};
        t.op = FlashOp::Read;
        t.addr = flash::address_of(geo_, ppn);
        t.data = data;
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
    if (!alloc_host(lpn, r.urgent, ppn)) {
      waiting_.push_back({&r, i, blocked_plane_});
      ++waits_;
      maybe_gc(blocked_plane_, false);
      // A plane whose only reclaimable blocks still have programs in flight
      // starts GC when those finish (flash_done); otherwise it is stuck.
      uint64_t first = blocked_plane_ * geo_.blocks_per_plane;
      bool programming = false;
      for (uint64_t b = first; b < first + geo_.blocks_per_plane && !programming; ++b)
        programming = blocks_[b].programming > 0;
      if (!jobs_[blocked_plane_] && !programming) {
        auto a = flash::address_of(geo_, blocked_plane_ * geo_.blocks_per_plane * geo_.pages_per_block);
        sim_abort(fmt::format("FTL: channel {} die {} plane {} has no free block and no block GC could reclaim "
                              "(every page valid); raise ssd.ftl.overprovision",
                              a.channel, a.die, a.plane));
      }
      return;
    }
    if (lpn < logical_pages_)
      ++host_writes_;
    else
      ++map_writes_;
    if (r.urgent) ++urgent_pages_;
    remap(lpn, static_cast<uint32_t>(ppn));
    tp_dirty(lpn);
    uint8_t* data = r.data + uint64_t(i) * geo_.page_size;
    auto& w = writing_[lpn];
    w.first = data;
    ++w.second;
    FlashTransaction& t = r.txns[i];
    t = FlashTransaction{};
    t.op = FlashOp::Program;
    t.addr = flash::address_of(geo_, ppn);
    t.data = data;
    t.oob = FlashOob{lpn, next_seq()};
    t.client = this;
    t.tag = reinterpret_cast<uint64_t>(&r);
    ++r.outstanding;
    ++blocks_[ppn / geo_.pages_per_block].programming;
    submit_at(map_access(lpn, true), t);
    maybe_gc(ppn / geo_.pages_per_block / geo_.blocks_per_plane, false);
  }
  if (--r.outstanding == 0) request_done(r);
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
  if (t.tag == kCheckpointTag) {
    checkpoint_step();
    return;
  }
  auto& r = *reinterpret_cast<FtlRequest*>(t.tag);
  if (t.op == FlashOp::Program) {
    uint64_t block = ppn_of(t.addr) / geo_.pages_per_block;
    if (--blocks_[block].programming == 0 && !waiting_.empty()) maybe_gc(blocks_.plane_of(block), false);
    auto w = writing_.find(t.oob.lpn);
    if (w != writing_.end() && --w->second.second == 0) writing_.erase(w);
  }
  if (--r.outstanding == 0) request_done(r);
}

void PageMappingFtl::request_done(FtlRequest& r) {
  --outstanding_;
  if (outstanding_ == 0) schedule_background();
  if (outstanding_ == 0 && ckpt_paused_) {
    ckpt_paused_ = false;
    checkpoint_step();
  }
  r.client->ftl_done(r);
}

// ---------------------------------------------------------------- garbage collection

bool PageMappingFtl::pick_victim(uint64_t plane, uint64_t& victim) const {
  uint64_t first = plane * geo_.blocks_per_plane;
  double best = -1;
  Tick now = now_ps();
  for (uint64_t b = first; b < first + geo_.blocks_per_plane; ++b) {
    const BlockInfo& i = blocks_[b];
    if (i.state != BlockState::Full || i.valid == geo_.pages_per_block || i.programming) continue;
    double score;
    if (greedy_) {
      score = double(geo_.pages_per_block - i.valid);
    } else {  // cost-benefit (Kawaguchi et al.): benefit (1-u) x age over cost 2u
      double u = double(i.valid) / geo_.pages_per_block;
      double age = double(now - std::min(now, i.last_write)) + 1.0;
      score = u == 0 ? 1e300 : (1 - u) / (2 * u) * age;
    }
    if (score > best) {
      best = score;
      victim = b;
    }
  }
  return best >= 0;
}

void PageMappingFtl::maybe_gc(uint64_t plane, bool background) {
  if (jobs_[plane] || !powered_) return;
  uint32_t f = blocks_.free_count(plane);
  if (f >= (background ? bg_threshold_ : fg_threshold_)) return;
  uint64_t victim;
  if (!pick_victim(plane, victim)) return;
  start_job(plane, victim, false, background);
}

void PageMappingFtl::start_job(uint64_t plane, uint64_t victim, bool wear, bool background) {
  auto job = std::make_unique<GcJob>(*this, plane, victim);
  GcJob& j = *job;
  jobs_[plane] = std::move(job);
  ++gc_active_signal_;
  ++(wear ? wl_runs_ : gc_runs_);
  if (background) ++gc_bg_runs_;
  blocks_[victim].state = BlockState::Victim;
  uint32_t valid = blocks_[victim].valid;
  j.moves.reserve(valid);
  j.txns.reserve(valid);  // never reallocated once submitted
  if (!copyback_) j.buf.resize(uint64_t(valid) * geo_.page_size);
  for (uint32_t p = 0; p < geo_.pages_per_block; ++p) {
    if (!blocks_.valid(victim, p)) continue;
    uint32_t lpn = lpn_at(to_ppn(victim, p));
    uint64_t dst;
    if (!alloc_gc(plane, dst)) throw std::logic_error("FTL: GC found no free block for its destination");
    // The copy gets a sequence number now, while it is the current one: a
    // host write after this point is newer, also after a power loss.
    j.moves.push_back({to_ppn(victim, p), static_cast<uint32_t>(dst), lpn, next_seq()});
    ++blocks_[dst / geo_.pages_per_block].programming;
    FlashTransaction& t = j.txns.emplace_back();
    t.op = copyback_ ? FlashOp::CopyBack : FlashOp::Read;
    t.addr = flash::address_of(geo_, j.moves.back().src);
    t.dst = flash::address_of(geo_, dst);
    t.oob = FlashOob{lpn, j.moves.back().seq};
    t.data = copyback_ ? nullptr : j.buf.data() + (j.moves.size() - 1) * geo_.page_size;
    t.background = preemptible_;
    t.use = flash::FlashUse::Gc;
    t.client = &j;
    t.tag = j.moves.size() - 1;
  }
  j.pending = static_cast<uint32_t>(j.txns.size());
  if (j.pending == 0) {
    job_erase(j);
    return;
  }
  for (auto& t : j.txns) flash->submit(t);
}

void PageMappingFtl::job_txn_done(GcJob& j, FlashTransaction& t) {
  if (&t == &j.erase) {
    job_erased(j);
    return;
  }
  const GcJob::Move& m = j.moves[t.tag];
  if (t.op == FlashOp::Read) {  // now program it where it goes
    t.op = FlashOp::Program;
    t.addr = flash::address_of(geo_, m.dst);
    t.oob = FlashOob{m.lpn, m.seq};
    flash->submit(t);
    return;
  }
  ++gc_moved_;
  if (t.op == FlashOp::CopyBack) ++gc_copybacks_;
  if (--blocks_[m.dst / geo_.pages_per_block].programming == 0 && !waiting_.empty())
    maybe_gc(blocks_.plane_of(m.dst / geo_.pages_per_block), false);
  if (map_.get(m.lpn) == m.src) {
    map_set(m.lpn, m.dst);
    if (cmt_ && m.lpn < logical_pages_) j.tps.insert(static_cast<uint32_t>(m.lpn / epp_));
    blocks_.invalidate(m.src / geo_.pages_per_block, m.src % geo_.pages_per_block);
  } else {  // the host rewrote or trimmed it meanwhile: the copy is stale
    blocks_.invalidate(m.dst / geo_.pages_per_block, m.dst % geo_.pages_per_block);
  }
  if (--j.pending == 0) job_erase(j);
}

void PageMappingFtl::job_erase(GcJob& j) {
  // DFTL's batch update: each translation page the victim's pages belong to
  // is updated once for the whole block.
  for (uint32_t tp : j.tps) tp_dirty(uint64_t(tp) * epp_);
  j.erase = FlashTransaction{};
  j.erase.op = FlashOp::Erase;
  j.erase.addr = flash::address_of(geo_, uint64_t(j.victim) * geo_.pages_per_block);
  j.erase.background = true;
  j.erase.use = flash::FlashUse::Gc;
  j.erase.client = &j;
  flash->submit(j.erase);
}

void PageMappingFtl::job_erased(GcJob& j) {
  uint64_t plane = j.plane;
  blocks_.erased(j.victim);
  free_blocks_signal_ = blocks_.free_total();
  --gc_active_signal_;
  // The job is still on the call stack (its erase transaction called back): free it afterwards.
  GcJob* done = jobs_[plane].release();
  eq_.after(0, [done] { delete done; });
  check_wear(plane);  // before writes waiting for this block start foreground GC again
  retry_waiting();
  maybe_gc(plane, false);
  if (outstanding_ == 0) maybe_gc(plane, true);
}

void PageMappingFtl::check_wear(uint64_t plane) {
  // A cold block is full of valid pages: moving it needs at most one free block.
  if (wl_threshold_ == 0 || jobs_[plane] || blocks_.free_count(plane) < 1) return;
  uint64_t first = plane * geo_.blocks_per_plane;
  uint32_t lo = UINT32_MAX, hi = 0;
  uint64_t coldest = 0;
  for (uint64_t b = first; b < first + geo_.blocks_per_plane; ++b) {
    const BlockInfo& i = blocks_[b];
    if (i.state == BlockState::Meta) continue;
    hi = std::max(hi, i.erase_count);
    if (i.state == BlockState::Full && !i.programming && i.erase_count < lo) {
      lo = i.erase_count;
      coldest = b;
    }
  }
  if (lo != UINT32_MAX && hi - lo > wl_threshold_) start_job(plane, coldest, true, false);
}

void PageMappingFtl::schedule_background() {
  if (bg_threshold_ == 0 || bg_scheduled_ || !powered_) return;
  bg_scheduled_ = true;
  uint64_t seen = activity_, epoch = epoch_;
  eq_.after(bg_idle_, [this, seen, epoch] {
    if (epoch != epoch_) return;
    bg_scheduled_ = false;
    if (activity_ != seen || outstanding_ > 0) return;  // not idle for the whole period
    for (uint64_t p = 0; p < planes_; ++p) maybe_gc(p, true);
  });
}

// Preconditioning and ageing move pages without simulating time.
void PageMappingFtl::gc_functional(uint64_t plane) {
  uint64_t victim;
  if (!pick_victim(plane, victim))
    throw ConfigError(fmt::format("ssd.precondition{}: plane {} filled with valid data and nothing to reclaim; "
                                  "raise ssd.ftl.overprovision",
                                  loaded_ ? " and the pages loaded before the run" : "", plane));
  blocks_[victim].state = BlockState::Victim;
  for (uint32_t p = 0; p < geo_.pages_per_block; ++p) {
    if (!blocks_.valid(victim, p)) continue;
    uint32_t lpn = lpn_at(to_ppn(victim, p));
    uint64_t dst;
    if (!alloc_gc(plane, dst)) throw std::logic_error("FTL: GC found no free block for its destination");
    flash->preload_copy(to_ppn(victim, p), dst, FlashOob{lpn, next_seq()});
    map_set(lpn, static_cast<uint32_t>(dst));
    blocks_.invalidate(victim, p);
    ++pre_moved_;
  }
  flash->preload_erase(victim);
  blocks_.erased(victim);
}

// ---------------------------------------------------------------- preconditioning

void PageMappingFtl::precondition() {
  const Config& c = svc_.cfg;
  uint64_t n = static_cast<uint64_t>(std::llround(c.get_real("ssd.precondition.fill") * double(logical_pages_)));
  bool sequential = c.is("ssd.precondition.pattern", "sequential");
  double age = c.get_real("ssd.precondition.age");
  uint64_t ppb = geo_.pages_per_block, bpp = geo_.blocks_per_plane;
  seq_ = 1;
  if (n > 0) {
    if (!sequential) order_ = std::make_unique<RandomPermutation>(logical_pages_, Rng::derive(svc_.seed, 0xF71));
    layout_ = std::make_unique<SequentialLayout>(unit_plane_, bpp, ppb, n, logical_pages_, tps_, order_.get());
    const SequentialLayout& lay = *layout_;
    // The same layout block by block. A block of consecutive pages keeps its
    // spare areas as a rule in the flash too; a random fill's are stored.
    auto fill = [&](uint64_t total, uint64_t first_lpn, bool tps) {
      for (uint64_t u = 0; u < planes_; ++u) {
        uint64_t count = lay.count(total, u), base = tps ? lay.tp_base(u) : 0;
        for (uint64_t k = 0; k * ppb < count; ++k) {
          uint64_t b = unit_plane_[u] * bpp + base + k;
          uint32_t pages = static_cast<uint32_t>(std::min(ppb, count - k * ppb));
          uint64_t first = u + planes_ * k * ppb;  // write index of the block's first page
          blocks_.fill_by_rule(b, pages);
          if (tps || !order_) {
            flash->preload_block(b, pages, static_cast<uint32_t>(first_lpn + first), static_cast<uint32_t>(planes_), 1);
          } else {
            for (uint32_t p = 0; p < pages; ++p)
              flash->preload_page(b * ppb + p, FlashOob{static_cast<uint32_t>(lay.lpn_written(first + planes_ * p)), 1});
          }
        }
      }
    };
    fill(n, 0, false);
    fill(tps_, logical_pages_, true);
    map_.set_rule(layout_.get());
    has_rule_ = true;
    pre_writes_ = n + tps_;
  }
  for (uint64_t b = 0; b < blocks_.blocks(); ++b)
    if (blocks_[b].state == BlockState::Free) blocks_.add_free(b);
  // Ageing overwrites pages of the filled space chosen uniformly (a random
  // fill's pages are found by drawing until a mapped one comes up).
  auto overwrites = static_cast<uint64_t>(std::llround(age * double(n)));
  Rng rng(Rng::derive(svc_.seed, 0xA6E));
  for (uint64_t i = 0; i < overwrites && n > 0; ++i) {
    uint64_t lpn;
    do lpn = rng.below(sequential ? n : logical_pages_);
    while (map_.get(lpn) == MappingTable::kUnmapped);
    functional_write(static_cast<uint32_t>(lpn), nullptr);
    ++pre_writes_;
  }
}

void PageMappingFtl::functional_write(uint32_t lpn, const uint8_t* data) {
  uint64_t ppn;
  while (!alloc_host(lpn, false, ppn)) gc_functional(blocked_plane_);
  remap(lpn, static_cast<uint32_t>(ppn));
  flash->preload_page(ppn, FlashOob{lpn, next_seq()}, data);
  uint64_t plane = ppn / geo_.pages_per_block / geo_.blocks_per_plane;
  while (blocks_.free_count(plane) < fg_threshold_) gc_functional(plane);
}

void PageMappingFtl::load_page(uint64_t lpn, const uint8_t* data) {
  if (lpn >= logical_pages_)
    throw std::out_of_range(fmt::format("FTL: load of logical page {}, beyond the {} the host has", lpn, logical_pages_));
  functional_write(static_cast<uint32_t>(lpn), data);
  ++loaded_;
  // With a cached map, the page's translation page is on flash too, as on a
  // drive that was written.
  if (cmt_ && map_.get(logical_pages_ + lpn / epp_) == MappingTable::kUnmapped)
    functional_write(static_cast<uint32_t>(logical_pages_ + lpn / epp_), nullptr);
}

void PageMappingFtl::for_each_written(uint64_t limit, const std::function<void(uint64_t lpn)>& fn) const {
  limit = std::min(limit, logical_pages_);
  for (uint64_t base = 0; base < limit; base += MappingTable::kChunk) {
    if (!map_.touched(base)) continue;
    for (uint64_t lpn = base; lpn < std::min(limit, base + MappingTable::kChunk); ++lpn)
      if (map_.get(lpn) != MappingTable::kUnmapped) fn(lpn);
  }
}

// ---------------------------------------------------------------- journaling

void PageMappingFtl::start_checkpoint_timer() {
  if (ckpt_interval_ == 0) return;
  uint64_t epoch = epoch_;
  eq_.after(ckpt_interval_, [this, epoch] {
    if (epoch != epoch_) return;
    if (!ckpt_pending_) take_checkpoint(true);
    start_checkpoint_timer();
  });
}

void PageMappingFtl::take_checkpoint(bool timed) {
  auto cp = std::make_unique<Checkpoint>();
  if (ckpt_) cp->chunks = ckpt_->chunks;
  cp->seq = seq_;
  cp->has_rule = has_rule_;
  uint64_t dirty = 0;
  for (uint64_t i = 0; i < dirty_chunks_.size(); ++i) {
    if (!dirty_chunks_[i]) continue;
    dirty_chunks_[i] = false;
    ++dirty;
    uint64_t base = i * MappingTable::kChunk;
    uint64_t n = std::min<uint64_t>(MappingTable::kChunk, logical_pages_ + tps_ - base);
    auto v = std::make_shared<std::vector<uint32_t>>(n);
    for (uint64_t k = 0; k < n; ++k) (*v)[k] = map_.get(base + k);
    cp->chunks[i] = std::move(v);
  }
  ckpt_pending_ = std::move(cp);
  uint64_t bytes = dirty * MappingTable::kChunk * sizeof(uint32_t);
  ckpt_todo_ = timed ? (bytes + geo_.page_size - 1) / geo_.page_size : 0;
  checkpoint_step();
}

// The checkpoint is written one page at a time into the reserved blocks, a
// circular log; it counts only once its last page is on flash.
void PageMappingFtl::checkpoint_step() {
  if (ckpt_todo_ == 0) {
    ckpt_ = std::move(ckpt_pending_);
    ++ckpts_;
    return;
  }
  if (ckpt_when_idle_ && outstanding_ > 0) {  // resumed when the last host request leaves
    ckpt_paused_ = true;
    return;
  }
  uint64_t ppb = geo_.pages_per_block;
  uint64_t block = ckpt_blocks_list_[(ckpt_cursor_ / ppb) % ckpt_blocks_list_.size()];
  uint32_t page = static_cast<uint32_t>(ckpt_cursor_ % ppb);
  ckpt_txn_ = FlashTransaction{};
  ckpt_txn_.background = true;
  ckpt_txn_.use = flash::FlashUse::Journal;
  ckpt_txn_.client = this;
  ckpt_txn_.tag = kCheckpointTag;
  if (page == 0 && !ckpt_erased_) {  // a log block is erased before it is written again
    ckpt_txn_.op = FlashOp::Erase;
    ckpt_txn_.addr = flash::address_of(geo_, block * ppb);
    ckpt_erased_ = true;
  } else {
    ckpt_txn_.op = FlashOp::Program;
    ckpt_txn_.addr = flash::address_of(geo_, block * ppb + page);
    ckpt_txn_.oob = FlashOob{flash::kNoLpn, seq_};
    ckpt_erased_ = false;
    ++ckpt_cursor_;
    --ckpt_todo_;
    ++ckpt_pages_;
  }
  flash->submit(ckpt_txn_);
}

void PageMappingFtl::power_loss() {
  flash->power_loss();
  powered_ = false;
  ++epoch_;
  for (auto& j : jobs_) j.reset();
  waiting_.clear();
  writing_.clear();
  outstanding_ = 0;
  ckpt_pending_.reset();
  ckpt_todo_ = 0;
  ckpt_paused_ = false;
  bg_scheduled_ = false;
}

void PageMappingFtl::recover() {
  map_.clear();
  blocks_ = BlockManager(geo_, svc_.cfg.get_bool("ssd.ftl.wl.dynamic"));
  std::fill(host_open_.begin(), host_open_.end(), -1);
  std::fill(gc_open_.begin(), gc_open_.end(), -1);
  for (auto& l : lsb_blocks_) l.clear();
  lsb_only_pages_ = 0;
  if (cmt_) cmt_->clear();
  loading_.clear();
  std::fill(dirty_chunks_.begin(), dirty_chunks_.end(), false);
  for (uint64_t b : ckpt_blocks_list_) blocks_[b].state = BlockState::Meta;

  // The last committed checkpoint, then every page written after it, newest copy winning.
  uint32_t base = 0;
  if (ckpt_) {
    base = ckpt_->seq;
    has_rule_ = ckpt_->has_rule;
    if (has_rule_) map_.set_rule(layout_.get());
    for (const auto& [chunk, v] : ckpt_->chunks)
      for (size_t k = 0; k < v->size(); ++k) map_.set(chunk * MappingTable::kChunk + k, (*v)[k]);
  } else {
    has_rule_ = false;
  }
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> newest;  // lpn -> seq, ppn
  uint32_t top = base;
  uint64_t ppb = geo_.pages_per_block;
  FlashOob o;
  for (uint64_t b = 0; b < blocks_.blocks(); ++b) {
    if (blocks_[b].state == BlockState::Meta) continue;
    for (uint32_t p = 0; p < ppb; ++p) {
      if (!flash->peek(b * ppb + p, nullptr, &o) || o.lpn == flash::kNoLpn || o.seq <= base) continue;
      top = std::max(top, o.seq);
      auto [it, fresh] = newest.try_emplace(o.lpn, o.seq, static_cast<uint32_t>(b * ppb + p));
      if (!fresh && o.seq > it->second.first) it->second = {o.seq, static_cast<uint32_t>(b * ppb + p)};
    }
  }
  for (const auto& [lpn, sp] : newest) map_set(lpn, sp.second);
  replayed_ += newest.size();
  // Blocks: those holding pages are closed, with the pages the map points at valid.
  for (uint64_t b = 0; b < blocks_.blocks(); ++b) {
    if (blocks_[b].state == BlockState::Meta) continue;
    blocks_[b].erase_count = flash->erase_count(b);
    bool any = false;
    for (uint32_t p = 0; p < ppb && !any; ++p) any = flash->peek(b * ppb + p, nullptr, nullptr);
    if (!any) {
      blocks_.add_free(b);
      continue;
    }
    blocks_.open(b, now_ps());
    for (uint32_t p = 0; p < ppb; ++p) {
      bool programmed = flash->peek(b * ppb + p, nullptr, &o);
      if (programmed && o.lpn != flash::kNoLpn && o.lpn < logical_pages_ + tps_ && map_.get(o.lpn) == b * ppb + p)
        blocks_.use(b, p, now_ps());
      else
        blocks_.skip(b, p);
    }
    blocks_[b].state = BlockState::Full;
  }
  seq_ = top;
  free_blocks_signal_ = blocks_.free_total();
  ++recoveries_;
  powered_ = true;
  start_checkpoint_timer();
}

// ---------------------------------------------------------------- cached mapping table

// A translation page being read from flash, and the requests waiting for it.
struct PageMappingFtl::TpLoad : flash::FlashClient {
  PageMappingFtl& ftl;
  uint32_t tp;
  bool write_back = false;  // an update arrived while it was not cached: write it back once read
  std::vector<FtlRequest*> waiting;
  FlashTransaction t;
  TpLoad(PageMappingFtl& f, uint32_t p) : ftl(f), tp(p) {}
  void flash_done(FlashTransaction&) override { ftl.tp_loaded(*this); }
};

// A dirty translation page going back to flash, written like data to a
// logical page past the host's.
struct PageMappingFtl::TpWrite : FtlClient {
  PageMappingFtl& ftl;
  FtlRequest r;
  explicit TpWrite(PageMappingFtl& f) : ftl(f) {}
  void ftl_done(FtlRequest&) override {
    TpWrite* self = this;
    ftl.eq_.after(0, [self] { delete self; });
  }
};

void PageMappingFtl::tp_load(uint32_t tp, FtlRequest* r, bool write_back) {
  auto& l = loading_[tp];
  if (!l) {
    l = std::make_unique<TpLoad>(*this, tp);
    l->t.op = FlashOp::Read;
    l->t.addr = flash::address_of(geo_, map_.get(logical_pages_ + tp));
    l->t.data = scratch_.data();  // the entries themselves are kept functionally
    l->t.client = l.get();
    ++map_reads_;
    flash->submit(l->t);
  }
  if (r) l->waiting.push_back(r);
  l->write_back |= write_back;
}

void PageMappingFtl::tp_loaded(TpLoad& l) {
  std::unique_ptr<TpLoad> done = std::move(loading_[l.tp]);
  loading_.erase(l.tp);
  if (!done->waiting.empty()) {
    tp_insert(done->tp);
    if (done->write_back) cmt_->mark_dirty(done->tp);
  } else if (done->write_back) {
    tp_write_back(done->tp);
  }
  for (FtlRequest* r : done->waiting)
    if (--r->map_misses == 0) translated(*r);
  TpLoad* raw = done.release();  // still on the call stack
  eq_.after(0, [raw] { delete raw; });
}

void PageMappingFtl::tp_insert(uint32_t tp) {
  uint32_t evicted;
  bool dirty;
  if (cmt_->insert(tp, evicted, dirty) && dirty) tp_write_back(evicted);
}

void PageMappingFtl::tp_dirty(uint64_t lpn) {
  if (!cmt_ || lpn >= logical_pages_) return;
  uint32_t tp = static_cast<uint32_t>(lpn / epp_);
  if (cmt_->mark_dirty(tp)) return;
  // Not cached (e.g. GC moved a cold page): read, update, write back.
  if (map_.get(logical_pages_ + tp) == MappingTable::kUnmapped)
    tp_write_back(tp);
  else
    tp_load(tp, nullptr, true);
}

void PageMappingFtl::tp_write_back(uint32_t tp) {
  auto* w = new TpWrite(*this);
  w->r.op = IoOp::Write;
  w->r.lpn = logical_pages_ + tp;
  w->r.pages = 1;
  w->r.data = zero_page_.data();
  w->r.client = w;
  submit(w->r);
}

bool PageMappingFtl::debug_read(uint64_t lpn, uint8_t* page) const {
  auto w = writing_.find(static_cast<uint32_t>(lpn));
  if (w != writing_.end()) {
    std::memcpy(page, w->second.first, geo_.page_size);
    return true;
  }
  uint32_t ppn = map_.get(lpn);
  if (ppn == MappingTable::kUnmapped) {
    std::memset(page, 0, geo_.page_size);
    return false;
  }
  flash->peek(ppn, page, nullptr);
  return true;
}

MediaHealth PageMappingFtl::health() const {
  MediaHealth h;
  uint64_t sum = 0, n = 0;
  h.min_erase_count = UINT32_MAX;
  for (uint64_t b = 0; b < blocks_.blocks(); ++b) {
    if (blocks_[b].state == BlockState::Meta) continue;
    uint32_t e = blocks_[b].erase_count;
    sum += e;
    h.min_erase_count = std::min(h.min_erase_count, e);
    h.max_erase_count = std::max(h.max_erase_count, e);
    ++n;
  }
  if (n == 0) h.min_erase_count = 0;
  h.mean_erase_count = n ? double(sum) / double(n) : 0.0;
  h.endurance = static_cast<uint32_t>(svc_.cfg.get_int("ssd.flash.endurance"));
  h.unsafe_shutdowns = recoveries_.value;
  return h;
}

nlohmann::json PageMappingFtl::summary() const {
  MediaHealth h = health();
  uint64_t hw = host_writes_.value;
  nlohmann::json j;
  j["host_page_writes"] = hw;
  j["gc_pages_moved"] = gc_moved_.value;
  j["write_amplification"] = hw ? double(hw + gc_moved_.value + map_writes_.value) / double(hw) : 0.0;
  if (cmt_)
    j["map_cache"] = {{"hits", cmt_hits_.value}, {"misses", cmt_misses_.value}, {"page_reads", map_reads_.value},
                      {"page_writes", map_writes_.value}, {"pages_cached", cmt_->capacity()}};
  j["gc_invocations"] = gc_runs_.value;
  j["gc_background"] = gc_bg_runs_.value;
  j["wl_migrations"] = wl_runs_.value;
  j["wasted_pages"] = wasted_.value;
  j["trimmed_pages"] = trimmed_.value;
  j["free_blocks"] = blocks_.free_total();
  j["free_blocks_min"] = min_free_.value;
  j["erase_count"] = {{"min", h.min_erase_count}, {"mean", h.mean_erase_count}, {"max", h.max_erase_count}};
  j["map_dram_bytes"] = map_.dram_bytes();
  j["sim_memory_bytes"] = host_bytes();
  j["precondition"] = {{"writes", pre_writes_}, {"gc_pages_moved", pre_moved_}};
  j["loaded_pages"] = loaded_;
  j["checkpoints"] = ckpts_.value;
  return j;
}

}  // namespace vp::ssd
