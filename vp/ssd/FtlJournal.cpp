// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/FtlJournal.hpp"

#include <unordered_map>

#include "vp/core/SimControl.hpp"

namespace vp::ssd {

using flash::FlashOob;
using flash::FlashOp;
using flash::FlashTransaction;

// The map as of write sequence `seq`: chunks saved so far (shared between
// successive checkpoints until a chunk is dirtied again) over the
// preconditioning layout.
struct FtlJournal::Checkpoint {
  uint32_t seq = 0;
  bool follows_layout = false;
  std::unordered_map<uint64_t, std::shared_ptr<const std::vector<uint32_t>>> chunks;
};

void FtlJournal::declare_params(const ParamScope& ftl) {
  // Each period copies the map's changed chunks and programs at least one
  // page (tens of us or more): shorter periods only livelock the run.
  ftl.time("checkpoint_interval", "0ns",
           "period of the mapping checkpoint (0: no checkpoints; else at least 10us, below a page program time)");
  ftl.rule([](const ScopedConfig& c) {
    Tick t = c.get_time("checkpoint_interval");
    if (t > 0 && t < 10 * US)
      c.fail("checkpoint_interval",
             "is 0 (no checkpoints) or at least 10us: a checkpoint programs at least one page, so a shorter period "
             "only repeats the work without progress");
  });
  ftl.boolean("checkpoint_when_idle", false,
              "checkpoint pages are written only while no host request is at the FTL (DeepFlash's LOG pausing while "
              "NVMQ is busy, FAST'19 Fig. 17a); under unbroken load a checkpoint waits");
  ftl.integer("checkpoint_blocks", 2, "blocks per plane reserved for checkpoints when they are on").range(1, 1 << 20);
}

uint32_t FtlJournal::reserved_blocks(const ScopedConfig& ftl) {
  return ftl.get_time("checkpoint_interval") > 0 ? static_cast<uint32_t>(ftl.get_int("checkpoint_blocks")) : 0;
}

FtlJournal::FtlJournal(FtlState& s, const ScopedConfig& ftl, const StatGroup& stats)
    : s_(s),
      interval_(ftl.get_time("checkpoint_interval")),
      when_idle_(ftl.get_bool("checkpoint_when_idle")),
      ckpts_(stats.counter("checkpoints", "checkpoints", "mapping checkpoints committed")),
      ckpt_pages_(stats.counter("checkpoint_pages", "pages", "flash pages programmed by checkpoints")),
      recoveries_(stats.counter("recoveries", "events", "rebuilds after power loss")),
      replayed_(stats.counter("replayed_pages", "pages", "map entries rebuilt from spare areas")) {
  uint32_t reserved = reserved_blocks(ftl);
  const auto& geo = s.geo;
  for (uint32_t k = 0; k < reserved; ++k)
    for (uint64_t p = 0; p < s.planes; ++p) {
      uint64_t b = p * geo.blocks_per_plane + geo.blocks_per_plane - 1 - k;
      s.blocks[b].state = BlockState::Meta;
      blocks_.push_back(b);
    }
}

FtlJournal::~FtlJournal() = default;

void FtlJournal::start() {
  if (interval_ > 0) take_checkpoint(false);
  start_timer();
}

void FtlJournal::start_timer() {
  if (interval_ == 0) return;
  uint64_t epoch = s_.epoch;
  s_.eq.after(interval_, [this, epoch] {
    if (epoch != s_.epoch) return;
    if (!pending_) take_checkpoint(true);
    start_timer();
  });
}

void FtlJournal::take_checkpoint(bool timed) {
  auto cp = std::make_unique<Checkpoint>();
  if (ckpt_) cp->chunks = ckpt_->chunks;
  cp->seq = s_.seq;
  cp->follows_layout = s_.follows_layout;
  uint64_t dirty = 0, entries = s_.map.size();
  for (uint64_t i = 0; i < s_.unsaved.size(); ++i) {
    if (!s_.unsaved[i]) continue;
    s_.unsaved[i] = false;
    ++dirty;
    uint64_t base = i * MappingTable::kChunk;
    uint64_t n = std::min<uint64_t>(MappingTable::kChunk, entries - base);
    auto v = std::make_shared<std::vector<uint32_t>>(n);
    for (uint64_t k = 0; k < n; ++k) (*v)[k] = s_.map.get(base + k);
    cp->chunks[i] = std::move(v);
  }
  pending_ = std::move(cp);
  uint64_t bytes = dirty * MappingTable::kChunk * sizeof(uint32_t);
  todo_ = timed ? (bytes + s_.geo.page_size - 1) / s_.geo.page_size : 0;
  step();
}

void FtlJournal::flash_done(FlashTransaction&) { step(); }

void FtlJournal::host_idle() {
  if (!paused_) return;
  paused_ = false;
  step();
}

// The checkpoint counts only once its last page is on flash.
void FtlJournal::step() {
  if (todo_ == 0) {
    ckpt_ = std::move(pending_);
    ++ckpts_;
    return;
  }
  if (when_idle_ && s_.outstanding > 0) {  // resumed when the last host request leaves
    paused_ = true;
    return;
  }
  uint64_t ppb = s_.geo.pages_per_block;
  uint64_t block = blocks_[(cursor_ / ppb) % blocks_.size()];
  uint32_t page = static_cast<uint32_t>(cursor_ % ppb);
  txn_ = FlashTransaction{};
  txn_.background = true;
  txn_.use = flash::FlashUse::Journal;
  txn_.client = this;
  if (page == 0 && !erased_) {  // a log block is erased before it is written again
    txn_.op = FlashOp::Erase;
    txn_.addr = flash::address_of(s_.geo, block * ppb);
    erased_ = true;
  } else {
    txn_.op = FlashOp::Program;
    txn_.addr = flash::address_of(s_.geo, block * ppb + page);
    txn_.oob = FlashOob{flash::kNoLpn, s_.seq};
    erased_ = false;
    ++cursor_;
    --todo_;
    ++ckpt_pages_;
  }
  s_.flash->submit(txn_);
}

void FtlJournal::power_loss() {
  pending_.reset();
  todo_ = 0;
  paused_ = false;
}

void FtlJournal::recover() {
  auto& map = s_.map;
  auto& blocks = s_.blocks;
  std::fill(s_.unsaved.begin(), s_.unsaved.end(), false);
  for (uint64_t b : blocks_) blocks[b].state = BlockState::Meta;

  // The last committed checkpoint, then every page written after it, newest copy winning.
  uint32_t base = 0;
  if (ckpt_) {
    base = ckpt_->seq;
    s_.follows_layout = ckpt_->follows_layout;
    if (s_.follows_layout) map.set_rule(s_.layout);
    for (const auto& [chunk, v] : ckpt_->chunks)
      for (size_t k = 0; k < v->size(); ++k) map.set(chunk * MappingTable::kChunk + k, (*v)[k]);
  } else {
    s_.follows_layout = false;
  }
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> newest;  // lpn -> seq, ppn
  uint32_t top = base;
  uint64_t ppb = s_.geo.pages_per_block;
  FlashOob o;
  const BlockManager& seen = blocks;  // reads that make no block record
  for (uint64_t b = 0; b < blocks.blocks(); ++b) {
    if (seen[b].state == BlockState::Meta) continue;
    for (uint32_t p = 0; p < ppb; ++p) {
      if (!s_.flash->peek(b * ppb + p, nullptr, &o) || o.lpn == flash::kNoLpn || o.seq <= base) continue;
      top = std::max(top, o.seq);
      auto [it, fresh] = newest.try_emplace(o.lpn, o.seq, static_cast<uint32_t>(b * ppb + p));
      if (!fresh && o.seq > it->second.first) it->second = {o.seq, static_cast<uint32_t>(b * ppb + p)};
    }
  }
  for (const auto& [lpn, sp] : newest) s_.map_set(lpn, sp.second);
  replayed_ += newest.size();
  // Blocks: those holding pages are closed, with the pages the map points at valid.
  for (uint64_t b = 0; b < blocks.blocks(); ++b) {
    if (seen[b].state == BlockState::Meta) continue;
    const uint32_t erases = s_.flash->erase_count(b);
    if (erases != seen[b].erase_count) blocks[b].erase_count = erases;
    bool any = false;
    for (uint32_t p = 0; p < ppb && !any; ++p) any = s_.flash->peek(b * ppb + p, nullptr, nullptr);
    if (!any) {
      blocks.add_free(b);
      continue;
    }
    blocks.open(b, now_ps());
    for (uint32_t p = 0; p < ppb; ++p) {
      bool programmed = s_.flash->peek(b * ppb + p, nullptr, &o);
      if (programmed && o.lpn != flash::kNoLpn && o.lpn < map.size() && map.get(o.lpn) == b * ppb + p)
        blocks.use(b, p, now_ps());
      else
        blocks.skip(b, p);
    }
    blocks[b].state = BlockState::Full;
  }
  s_.seq = top;
  ++recoveries_;
  start_timer();
}

}  // namespace vp::ssd
