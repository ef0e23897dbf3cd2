// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/ftl/precondition/Preconditioner.hpp"

#include "vp/ssd/ftl/precondition/SteadyStateAger.hpp"

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
  p.choice("age_model", "auto", {"auto", "replay", "sampled"},
           "ageing: replay runs every overwrite through the FTL (exact; minutes for a large drive); sampled ages a "
           "few planes by a block-count model whose state every plane then takes (seconds; a flat map, one shard, "
           "sequential page allocation); auto: sampled wherever it applies, else replay");
  p.integer("age_samples", 4, "planes the sampled ageing models; plane k takes sample k mod this").range(1, 1024);
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
      model_(p.get_enum<AgeModel>("age_model",
                                  {{"auto", AgeModel::Auto}, {"replay", AgeModel::Replay}, {"sampled", AgeModel::Sampled}})),
      samples_(static_cast<uint32_t>(p.get_int("age_samples"))),
      seed_(seed),
      scope_(p.scope()),
      overprovision_key_(std::move(overprovision_key)) {}

Preconditioner::~Preconditioner() = default;

void Preconditioner::run() {
  auto& blocks = s_.blocks;
  uint64_t logical = s_.logical_pages, planes = s_.planes;
  uint64_t n = static_cast<uint64_t>(std::llround(fill_ * double(logical)));
  if (age_ > 0 && n > 0) {
    const std::string refusal = model_ == AgeModel::Replay ? "" : sampled_refusal();
    if (model_ == AgeModel::Sampled && !refusal.empty())
      throw ConfigError(fmt::format("{}.age_model: 'sampled' {}", scope_, refusal));
    if (model_ != AgeModel::Replay && refusal.empty()) {
      aged_by_ = "sampled";
      return age_sampled(n);
    }
    aged_by_ = "replay";
    replay_why_ = refusal;
  }
  uint64_t ppb = s_.geo.pages_per_block, bpp = s_.geo.blocks_per_plane;
  const auto& stripe = alloc_.stripe();
  s_.seq = 1;
  if (n > 0) {
    if (!sequential_) order_ = std::make_unique<RandomPermutation>(logical, Rng::derive(seed_, 0xF71));
    layout_ = std::make_unique<SequentialLayout>(stripe, bpp, ppb, n, logical, s_.map_pages, order_.get());
    if (stripe.size() != planes) throw std::logic_error("preconditioner: allocation units are not the planes");
    // Blocks and spare areas follow the layout as a rule, made per block when
    // first used. A block of consecutive pages keeps its spare areas as a rule
    // in the flash until then too; a random fill's go through its permutation.
    blocks.set_fill_rule(layout_.get());
    s_.flash->preload_rule(layout_.get(), 1, order_.get());
    s_.fill = layout_.get();
    s_.fill_seq = 1;
    s_.map.set_rule(layout_.get());
    s_.layout = layout_.get();
    s_.follows_layout = true;
    writes_ = n + s_.map_pages;
  }
  blocks.add_free_all();
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

std::string Preconditioner::sampled_refusal() const {
  std::string ftl = overprovision_key_.substr(0, overprovision_key_.rfind('.') + 1);
  if (s_.map_pages)
    return "lays out host pages only; the FTL's cached map keeps translation pages on flash too (use "
           "age_model=replay, or a flat map)";
  if (!alloc_.plain())
    return fmt::format("models one host block per plane written in page order; set {}shards=1 and "
                       "{}page_alloc=sequential, or use age_model=replay",
                       ftl, ftl);
  return "";
}

// Ages `samples_` planes (twice as many when the fill leaves some planes one
// page more) with SteadyStateAger and lays every plane out as its sample
// left its blocks: full blocks by rule, the open blocks adopted by the
// allocator, the free pool in the sample's order, each valid page's spare
// area naming the logical page AgedLayout puts there.
void Preconditioner::age_sampled(uint64_t n) {
  const auto& stripe = alloc_.stripe();
  const uint64_t units = stripe.size(), ppb = s_.geo.pages_per_block, bpp = s_.geo.blocks_per_plane;
  // The journal's blocks (the last of each plane) hold no data: the model's
  // plane is the blocks before them.
  uint64_t usable = 0;
  while (usable < bpp && s_.blocks[stripe[0] * bpp + usable].state != BlockState::Meta) ++usable;
  const uint64_t overwrites = static_cast<uint64_t>(std::llround(age_ * double(n)));
  const uint32_t k = static_cast<uint32_t>(std::min<uint64_t>(samples_, units));
  const uint64_t base = n / units, extra = n % units;  // units below `extra` hold one page more
  std::vector<SteadyStateAger> samples;
  std::vector<std::vector<uint32_t>> valid;
  for (uint32_t g = 0; g < (extra ? 2u : 1u); ++g)
    for (uint32_t j = 0; j < k; ++j) {
      SteadyStateAger::Params p;
      p.blocks = usable;
      p.pages_per_block = ppb;
      p.fill_pages = base + (g == 1 ? 1 : 0);
      p.overwrites = (overwrites + units - 1) / units;
      p.fg_threshold = gc_.fg_threshold();
      p.reserve = PageAllocator::kGcReserve;
      p.wear_aware = s_.blocks.wear_aware();
      p.seed = Rng::derive(seed_, 0x5A3E0 + samples.size());
      auto& a = samples.emplace_back(p);
      try {
        a.run();
      } catch (const SteadyStateAger::Full&) {
        throw ConfigError(fmt::format("{}: a plane filled with valid data and nothing to reclaim; raise {}", scope_,
                                      overprovision_key_));
      }
      auto& v = valid.emplace_back();
      for (const auto& b : a.blocks()) v.push_back(b.valid);
    }
  std::vector<uint32_t> profile(units);
  for (uint64_t u = 0; u < units; ++u) profile[u] = static_cast<uint32_t>((extra && u < extra ? k : 0) + u % k);
  // The fill's set of logical pages, placed anew: a random fill's permutation
  // of the logical space, or the first n pages in a random order.
  aged_order_ = std::make_unique<RandomPermutation>(sequential_ ? n : s_.logical_pages,
                                                    Rng::derive(seed_, sequential_ ? 0xA6F : 0xF71));
  aged_ = std::make_unique<AgedLayout>(stripe, profile, valid, bpp, ppb, n, *aged_order_);
  auto& blocks = s_.blocks;
  s_.seq = 1;
  for (uint64_t u = 0; u < units; ++u) {
    const SteadyStateAger& a = samples[profile[u]];
    uint64_t plane = stripe[u], rank = 0;
    for (uint64_t j = 0; j < usable; ++j) {
      const auto& sb = a.blocks()[j];
      uint64_t b = plane * bpp + j;
      blocks[b].erase_count = sb.erases;
      using K = SteadyStateAger::Kind;
      if (sb.kind == K::Full) {
        blocks.fill_by_rule(b, sb.valid);
      } else if (sb.kind != K::Free) {
        blocks.open(b, 0);
        for (uint32_t pg = 0; pg < sb.written; ++pg) blocks.use(b, pg, 0);
        for (uint32_t pg = sb.valid; pg < sb.written; ++pg) blocks.invalidate(b, pg);
        alloc_.adopt_open(plane, b, sb.kind == K::Gc);
      }
      for (uint32_t e = 0; e < sb.erases; ++e) s_.flash->preload_erase(b);
      if (sb.valid)
        s_.flash->preload_block(b, sb.valid, static_cast<uint32_t>(rank * units + u), static_cast<uint32_t>(units), 1,
                                aged_order_.get());
      rank += sb.valid;
    }
    for (uint32_t j : a.free_order()) blocks.add_free(plane * bpp + j);
  }
  for (uint64_t u = 0; u < units; ++u) moved_ += samples[profile[u]].moved();
  sampled_planes_ = samples.size();
  s_.map.set_rule(aged_.get());
  s_.layout = aged_.get();
  s_.fill = aged_.get();  // a power loss reads the blocks still as laid out by the rule
  s_.fill_seq = 1;
  s_.follows_layout = true;
  writes_ = n + overwrites;
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
  // Which model aged the drive, and for auto's replay why the sampled one did not apply.
  if (!aged_by_.empty()) j["precondition"]["age_model"] = aged_by_;
  if (!replay_why_.empty()) j["precondition"]["age_model_why"] = "sampled " + replay_why_;
  // Sampled: the ageing's writes and moves as the modelled planes did them, for all planes.
  if (aged_) j["precondition"]["sampled_planes"] = sampled_planes_;
  j["loaded_pages"] = loaded_;
}

}  // namespace vp::ssd
