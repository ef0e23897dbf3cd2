// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/FtlJournal.hpp"

#include <algorithm>
#include <unordered_map>

#include "vp/core/SimControl.hpp"
#include "vp/ssd/SequentialLayout.hpp"

namespace vp::ssd {

using flash::FlashOob;
using flash::FlashOp;
using flash::FlashTransaction;

// The map as of write sequence `seq`: chunks saved so far (shared between
// successive checkpoints until a chunk is dirtied again) over the
// preconditioning layout. It holds only pages on flash: it commits once its
// own pages and the host programs in flight when it was taken (`waiting`:
// their map entries name pages not yet written) are done. GC maps a copy
// only once written, so recovery replays from before the oldest GC job
// then running (`replay_after`): its copies may be mapped after the
// snapshot, and the source block erased, with sequence numbers below it.
struct FtlJournal::Checkpoint {
  uint32_t seq = 0;
  uint32_t replay_after = 0;
  uint64_t waiting = 0;
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
  cp->seq = cp->replay_after = s_.seq;
  for (uint32_t first : s_.gc_first_seq)
    if (first) cp->replay_after = std::min(cp->replay_after, first - 1);
  cp->waiting = s_.host_programs;
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
  todo_ = timed ? (bytes + s_.page_geo.page_size - 1) / s_.page_geo.page_size : 0;
  step();
}

void FtlJournal::flash_done(FlashTransaction&) { step(); }

void FtlJournal::host_program_done(uint32_t seq) {
  if (!pending_ || seq > pending_->seq || pending_->waiting == 0) return;
  if (--pending_->waiting == 0 && todo_ == 0 && written_) commit();
}

void FtlJournal::commit() {
  written_ = false;
  ckpt_ = std::move(pending_);
  ++ckpts_;
}

void FtlJournal::host_idle() {
  if (!paused_) return;
  paused_ = false;
  step();
}

// The checkpoint counts only once its last page is on flash, and the host
// programs it waits for too.
void FtlJournal::step() {
  if (todo_ == 0) {
    if (pending_->waiting == 0)
      commit();
    else
      written_ = true;
    return;
  }
  if (when_idle_ && s_.outstanding > 0) {  // resumed when the last host request leaves
    paused_ = true;
    return;
  }
  // The log is written by page, whatever the map's unit.
  uint64_t ppb = s_.page_geo.pages_per_block;
  uint64_t block = blocks_[(cursor_ / ppb) % blocks_.size()];
  uint32_t page = static_cast<uint32_t>(cursor_ % ppb);
  txn_ = FlashTransaction{};
  txn_.background = true;
  txn_.use = flash::FlashUse::Journal;
  txn_.client = this;
  if (page == 0 && !erased_) {  // a log block is erased before it is written again
    txn_.op = FlashOp::Erase;
    txn_.addr = flash::address_of(s_.page_geo, block * ppb);
    erased_ = true;
  } else {
    txn_.op = FlashOp::Program;
    txn_.addr = flash::address_of(s_.page_geo, block * ppb + page);
    txn_.oob = FlashOob{flash::kNoLpn, s_.seq};
    erased_ = false;
    ++cursor_;
    --todo_;
    ++ckpt_pages_;
  }
  s_.pages->submit(txn_);
}

void FtlJournal::power_loss() {
  pending_.reset();
  written_ = false;
  todo_ = 0;
  paused_ = false;
}

bool FtlJournal::still_filled(uint64_t block) const { return !s_.blocks.is_meta(block) && s_.flash->as_filled(block); }

flash::BlockFill FtlJournal::StillFilled::fill_of(uint64_t block) const {
  return j->still_filled(block) ? j->s_.fill->fill_of(block) : flash::BlockFill{};
}

// Recovery's part for the blocks still as the fill left them (no checkpoint
// since it): `newest` holds the copies found in the other blocks. Settles
// each logical page between them and its fill copy, maps the fill's pages
// by its rule, and returns the logical pages the fill adds to those found.
uint64_t FtlJournal::adopt_fill(std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>>& newest, uint32_t& top) {
  const SequentialLayout* fill = s_.fill;
  auto& map = s_.map;
  auto& blocks = s_.blocks;
  const uint64_t ppb = s_.geo.pages_per_block;
  // A logical page's copy from the fill counts as one found page by page
  // would: newest first, ties to the lowest physical page (scanned first).
  uint64_t found = 0;
  for (uint64_t b = 0; b < blocks.blocks(); ++b)
    if (still_filled(b)) found += fill->fill_of(b).pages;
  if (found) top = std::max(top, s_.fill_seq);
  auto filled_copy = [&](uint64_t lpn, uint32_t& ppn) {
    ppn = lpn < map.size() ? fill->at(lpn) : MappingTable::kUnmapped;
    return ppn != MappingTable::kUnmapped && still_filled(s_.block_of(ppn));
  };
  for (auto it = newest.begin(); it != newest.end();) {
    uint32_t r;
    if (!filled_copy(it->first, r)) {
      ++it;
      continue;
    }
    --found;  // one logical page, two copies
    const auto [seq, ppn] = it->second;
    if (seq < s_.fill_seq || (seq == s_.fill_seq && r < ppn))
      it = newest.erase(it);  // the fill's copy wins: the rule maps it
    else
      ++it;
  }
  // Untouched entries follow the fill; its pages in blocks since erased or
  // rewritten, with no copy found elsewhere, are unmapped (as a map built
  // page by page leaves them, without marking their chunks changed).
  map.set_rule(fill);
  for (uint64_t b = 0; b < blocks.blocks(); ++b) {
    if (still_filled(b)) continue;
    const flash::BlockFill f = fill->fill_of(b);
    for (uint32_t p = 0; p < f.pages; ++p) {
      const uint64_t lpn = fill->lpn_at(f, p);
      if (lpn < map.size() && !newest.count(static_cast<uint32_t>(lpn))) map.set(lpn, MappingTable::kUnmapped);
    }
  }
  // A chunk holding a page found counts as changed, as when set page by page.
  for (uint64_t c = 0; c < s_.unsaved.size(); ++c) {
    uint32_t r;
    for (uint64_t lpn = c * MappingTable::kChunk; lpn < std::min(map.size(), (c + 1) * MappingTable::kChunk); ++lpn)
      if (filled_copy(lpn, r)) {
        s_.unsaved[c] = true;
        break;
      }
  }
  // Blocks as filled: full by rule, last written now, with the pages whose
  // logical page has a newer copy invalid.
  blocks.set_fill_rule(&still_filled_, now_ps());
  for (const auto& [lpn, sp] : newest) {
    uint32_t r;
    if (filled_copy(lpn, r)) blocks.invalidate(s_.block_of(r), r % ppb);
  }
  return found;
}

void FtlJournal::recover() {
  auto& map = s_.map;
  auto& blocks = s_.blocks;
  std::fill(s_.unsaved.begin(), s_.unsaved.end(), false);
  for (uint64_t b : blocks_) blocks[b].state = BlockState::Meta;

  // The last committed checkpoint, then every page written after it, newest copy winning.
  uint32_t base = 0, top = 0;
  if (ckpt_) {
    base = ckpt_->replay_after;
    top = ckpt_->seq;
    s_.follows_layout = ckpt_->follows_layout;
    if (s_.follows_layout) map.set_rule(s_.layout);
    for (const auto& [chunk, v] : ckpt_->chunks)
      for (size_t k = 0; k < v->size(); ++k) map.set(chunk * MappingTable::kChunk + k, (*v)[k]);
  } else {
    s_.follows_layout = false;
  }
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> newest;  // lpn -> seq, ppn
  uint64_t ppb = s_.geo.pages_per_block;
  FlashOob o;
  // Blocks still as a fill by rule left them hold their pages where the
  // layout says, with the fill's sequence number: read by the rule, not
  // page by page (a full terabyte drive has 400 million such pages). Only
  // without a checkpoint since the fill; with one, its copies are older.
  const SequentialLayout* fill = s_.fill && s_.fill_seq > base ? s_.fill : nullptr;
  auto as_filled = [&](uint64_t b) { return fill && still_filled(b); };
  for (uint64_t b = 0; b < blocks.blocks(); ++b) {
    if (blocks.is_meta(b) || as_filled(b)) continue;
    for (uint32_t p = 0; p < ppb; ++p) {
      if (!s_.flash->peek(b * ppb + p, nullptr, &o) || o.lpn == flash::kNoLpn || o.seq <= base) continue;
      top = std::max(top, o.seq);
      auto [it, fresh] = newest.try_emplace(o.lpn, o.seq, static_cast<uint32_t>(b * ppb + p));
      if (!fresh && o.seq > it->second.first) it->second = {o.seq, static_cast<uint32_t>(b * ppb + p)};
    }
  }
  uint64_t found = newest.size();
  if (fill) found += adopt_fill(newest, top);
  for (const auto& [lpn, sp] : newest) s_.map_set(lpn, sp.second);
  replayed_ += found;
  // Blocks: those holding pages are closed, with the pages the map points at valid.
  const BlockManager& seen = blocks;
  for (uint64_t b = 0; b < blocks.blocks(); ++b) {
    if (blocks.is_meta(b)) continue;
    if (as_filled(b)) {
      if (!fill->fill_of(b).pages) blocks.add_free(b);  // else its record follows the rule
      continue;
    }
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
