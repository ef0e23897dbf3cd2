// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/ftl/FtlJournal.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "vp/core/SimControl.hpp"
#include "vp/ssd/ftl/precondition/FillLayout.hpp"

namespace vp::ssd {

using flash::FlashOob;
using flash::FlashOp;
using flash::FlashTransaction;

namespace {
using Newest = std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>>;  // lpn -> seq, ppn

// The pages of block b newer than `base` into `newest`, the newest copy of
// a logical page winning (ties: the lower physical page, read first).
void replay_block(const FtlState& s, uint64_t b, uint32_t base, uint32_t& top, Newest& newest) {
  const uint64_t ppb = s.geo.pages_per_block;
  FlashOob o;
  for (uint32_t p = 0; p < ppb; ++p) {
    if (!s.flash->peek(b * ppb + p, nullptr, &o) || o.lpn == flash::kNoLpn || o.seq <= base) continue;
    top = std::max(top, o.seq);
    auto [it, fresh] = newest.try_emplace(o.lpn, o.seq, static_cast<uint32_t>(b * ppb + p));
    if (!fresh && o.seq > it->second.first) it->second = {o.seq, static_cast<uint32_t>(b * ppb + p)};
  }
}

// Block b closed with the pages the map points at valid, each page's
// logical page read from its spare area.
void rebuild_by_page(FtlState& s, uint64_t b, Tick now) {
  const uint64_t ppb = s.geo.pages_per_block;
  auto& blocks = s.blocks;
  FlashOob o;
  blocks.open(b, now);
  for (uint32_t p = 0; p < ppb; ++p) {
    const bool programmed = s.flash->peek(b * ppb + p, nullptr, &o);
    if (programmed && o.lpn != flash::kNoLpn && o.lpn < s.map.size() && s.map.get(o.lpn) == b * ppb + p)
      blocks.use(b, p, now);
    else
      blocks.skip(b, p);
  }
  blocks[b].state = BlockState::Full;
}
}  // namespace

// The map as of write sequence `seq`: chunks saved so far (shared between
// successive checkpoints until a chunk is dirtied again) over the
// preconditioning layout. It holds only pages on flash: it commits once its
// own pages and the host programs in flight when it was taken (`waiting`:
// their map entries name pages not yet written) are done. GC maps a copy
// only once written, so recovery replays from before the oldest GC job
// then running (`replay_after`): its copies may be mapped after the
// snapshot, and the source block erased, with sequence numbers below it.
// A map chunk is kept as the table holds it (MappingTable::chunk_words:
// the entries set over the layout rule). The block table is kept the same
// way, in chunks of records; a chunk not saved holds the records of blocks
// as preconditioning left them (record_before).
struct FtlJournal::Checkpoint {
  uint32_t seq = 0;
  uint32_t replay_after = 0;
  uint64_t waiting = 0;
  bool follows_layout = false;
  std::unordered_map<uint64_t, std::shared_ptr<const std::vector<uint32_t>>> chunks;
  std::unordered_map<uint64_t, std::shared_ptr<const std::vector<BlockRecord>>> blocks;
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
              "NVMQ is busy, FAST'20 Fig. 17a); under unbroken load a checkpoint waits");
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
  if (ckpt_) {
    cp->chunks = ckpt_->chunks;
    cp->blocks = ckpt_->blocks;
  }
  cp->seq = cp->replay_after = s_.seq;
  for (uint32_t first : s_.gc_first_seq)
    if (first) cp->replay_after = std::min(cp->replay_after, first - 1);
  cp->waiting = s_.host_programs;
  cp->follows_layout = s_.follows_layout;
  // The chunk as held, when recovery puts back the rule it is held over;
  // else every entry (after a recovery without checkpoint the map follows
  // the fill without the checkpoint saying so).
  const bool as_held = s_.map.rule() == (s_.follows_layout ? s_.layout : nullptr);
  uint64_t dirty = 0, entries = s_.map.size();
  std::vector<uint32_t> e(MappingTable::kChunk);
  for (uint64_t i = 0; i < s_.unsaved.size(); ++i) {
    if (!s_.unsaved[i]) continue;
    s_.unsaved[i] = false;
    ++dirty;
    uint64_t base = i * MappingTable::kChunk;
    uint64_t n = std::min<uint64_t>(MappingTable::kChunk, entries - base);
    if (as_held) {
      cp->chunks[i] = std::make_shared<const std::vector<uint32_t>>(s_.map.chunk_words(i));
      continue;
    }
    for (uint64_t k = 0; k < n; ++k) e[k] = s_.map.get(base + k);
    cp->chunks[i] = std::make_shared<const std::vector<uint32_t>>(MappingTable::dense_words(e.data(), n));
  }
  const uint64_t records = save_blocks(*cp);
  pending_ = std::move(cp);
  // The map's changed chunks (whole, as a flat table's) and the block
  // records that changed.
  uint64_t bytes = dirty * MappingTable::kChunk * sizeof(uint32_t) + records * sizeof(BlockRecord);
  todo_ = timed ? (bytes + s_.page_geo.page_size - 1) / s_.page_geo.page_size : 0;
  step();
}

FtlJournal::BlockRecord FtlJournal::record_now(uint64_t b) const {
  BlockRecord r;
  const BlockInfo* i = s_.blocks.find(b);
  if (!i) {  // fresh, or full as the fill rule has it
    const flash::FillRule* rule = s_.blocks.fill_rule();
    r.rule_pages = rule ? rule->fill_of(b).pages : 0;
    r.kind = r.rule_pages ? BlockRecord::Full : BlockRecord::Free;
    return r;
  }
  // The manager's erase count moves when the erase is done, the flash's may
  // move before (an erase cut by the power loss): a block erased since reads
  // as changed either way.
  r.erases = i->erase_count;
  switch (i->state) {
    case BlockState::Meta: r.kind = BlockRecord::Meta; break;
    case BlockState::Free: r.kind = BlockRecord::Free; break;
    case BlockState::Full:
    case BlockState::Victim: r.kind = i->programming ? BlockRecord::Busy : BlockRecord::Full; break;
    default: r.kind = BlockRecord::Busy;
  }
  if (r.kind == BlockRecord::Full) r.rule_pages = i->rule_pages;
  return r;
}

FtlJournal::BlockRecord FtlJournal::record_before(uint64_t b) const {
  BlockRecord r;
  r.rule_pages = s_.fill ? s_.fill->fill_of(b).pages : 0;
  r.kind = r.rule_pages ? BlockRecord::Full : BlockRecord::Free;
  return r;
}

FtlJournal::BlockRecord FtlJournal::saved(const Checkpoint& cp, uint64_t b) const {
  auto it = cp.blocks.find(b / kBlockChunk);
  return it == cp.blocks.end() ? record_before(b) : (*it->second)[b % kBlockChunk];
}

uint64_t FtlJournal::save_blocks(Checkpoint& cp) {
  uint64_t changed = 0;
  const uint64_t n = s_.blocks.blocks();
  std::shared_ptr<std::vector<BlockRecord>> chunk;  // the one being written
  uint64_t at = UINT64_MAX;
  s_.blocks.take_changed([&](uint64_t b) {
    const BlockRecord r = record_now(b);
    if (r == saved(cp, b)) return;
    ++changed;
    if (b / kBlockChunk != at) {
      at = b / kBlockChunk;
      auto it = cp.blocks.find(at);
      if (it != cp.blocks.end()) {
        chunk = std::make_shared<std::vector<BlockRecord>>(*it->second);
      } else {
        chunk = std::make_shared<std::vector<BlockRecord>>(std::min(kBlockChunk, n - at * kBlockChunk));
        for (uint64_t k = 0; k < chunk->size(); ++k) (*chunk)[k] = record_before(at * kBlockChunk + k);
      }
      cp.blocks[at] = chunk;
    }
    (*chunk)[b % kBlockChunk] = r;
  });
  return changed;
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
  const FillLayout* fill = s_.fill;
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
  std::fill(s_.unsaved.begin(), s_.unsaved.end(), false);
  for (uint64_t b : blocks_) s_.blocks[b].state = BlockState::Meta;
  scanned_ = 0;
  if (ckpt_)
    recover_from_checkpoint();
  else
    recover_from_spare_areas();
  ++recoveries_;
  start_timer();
}

// The last committed checkpoint, then the pages written since, newest copy
// winning. Only blocks erased since the checkpoint (the flash's erase count
// differs from the one saved) or not full then can hold pages newer than
// it; the others are as the checkpoint saw them, their valid pages those the
// map names (by the layout's rule for blocks laid out by it), and a block
// holding no page is free without reading it.
void FtlJournal::recover_from_checkpoint() {
  auto& map = s_.map;
  auto& blocks = s_.blocks;
  const Checkpoint& cp = *ckpt_;
  const uint32_t base = cp.replay_after;
  uint32_t top = cp.seq;
  s_.follows_layout = cp.follows_layout;
  if (s_.follows_layout) map.set_rule(s_.layout);
  for (const auto& [chunk, words] : cp.chunks) map.restore_chunk(chunk, *words);

  const uint64_t nb = blocks.blocks(), ppb = s_.geo.pages_per_block;
  enum How : uint8_t { Meta, Free, Scan, Kept, KeptByRule };
  std::vector<uint8_t> how(nb, Meta);
  std::vector<uint32_t> rule_pages(nb, 0);
  for (uint64_t b = 0; b < nb; ++b) {
    if (blocks.is_meta(b)) continue;
    const BlockRecord r = saved(cp, b);
    const uint32_t erases = s_.flash->erase_count(b);
    if (r.kind == BlockRecord::Full && erases == r.erases) {
      how[b] = r.rule_pages && s_.follows_layout ? KeptByRule : Kept;
      rule_pages[b] = r.rule_pages;
    } else {
      how[b] = s_.flash->holds_pages(b) ? Scan : Free;
    }
  }
  Newest newest;
  for (uint64_t b = 0; b < nb; ++b) {
    if (how[b] != Scan) continue;
    ++scanned_;
    replay_block(s_, b, base, top, newest);
  }
  FlashOob o;
  // A copy found wins over the checkpoint's unless the checkpoint's page, in
  // a block not read, is a newer copy (a host block filled after a GC block
  // opened before it: a full page-by-page scan would have found both).
  for (const auto& [lpn, sp] : newest) {
    const uint32_t at = lpn < map.size() ? map.get(lpn) : MappingTable::kUnmapped;
    if (at != MappingTable::kUnmapped && how[s_.block_of(at)] >= Kept && s_.flash->peek(at, nullptr, &o) &&
        o.lpn == lpn && o.seq > base && (o.seq > sp.first || (o.seq == sp.first && at < sp.second)))
      continue;
    s_.map_set(lpn, sp.second);
  }
  replayed_ += newest.size();

  const Tick now = now_ps();
  bool by_rule = false;
  for (uint64_t b = 0; b < nb; ++b) {
    if (how[b] == Meta) continue;
    const uint32_t erases = s_.flash->erase_count(b);
    if (erases != std::as_const(blocks)[b].erase_count) blocks[b].erase_count = erases;
    switch (how[b]) {
      case Free: blocks.add_free(b); break;
      case Scan: rebuild_by_page(s_, b, now); break;
      case Kept:
        ++scanned_;
        rebuild_by_page(s_, b, now);
        break;
      case KeptByRule:
        blocks.fill_by_rule(b, rule_pages[b]);
        blocks[b].last_write = now;
        by_rule = true;
        break;
    }
  }
  // In blocks laid out by the rule, the pages whose logical page the map
  // sends elsewhere are invalid: the entries set, not every page read.
  if (by_rule)
    map.for_each_set([&](uint64_t lpn, uint32_t ppn) {
      const uint32_t r = s_.layout->at(lpn);
      if (r == ppn || r == MappingTable::kUnmapped) return;
      const uint64_t b = s_.block_of(r);
      const auto p = static_cast<uint32_t>(r % ppb);
      if (how[b] == KeptByRule && p < rule_pages[b] && blocks.valid(b, p)) blocks.invalidate(b, p);
    });
  s_.seq = top;
}

// Without a checkpoint: every page on flash, newest copy winning.
void FtlJournal::recover_from_spare_areas() {
  auto& blocks = s_.blocks;
  s_.follows_layout = false;
  uint32_t base = 0, top = 0;
  Newest newest;
  // Blocks still as a fill by rule left them hold their pages where the
  // layout says, with the fill's sequence number: read by the rule, not
  // page by page (a full terabyte drive has 400 million such pages). Only
  // without a checkpoint since the fill; with one, its copies are older.
  const FillLayout* fill = s_.fill && s_.fill_seq > base ? s_.fill : nullptr;
  auto as_filled = [&](uint64_t b) { return fill && still_filled(b); };
  std::vector<uint64_t> holding;  // the blocks to read
  for (uint64_t b = 0; b < blocks.blocks(); ++b)
    if (!blocks.is_meta(b) && !as_filled(b) && s_.flash->holds_pages(b)) holding.push_back(b);
  scanned_ = holding.size();
  const uint64_t ppb = s_.geo.pages_per_block;
  if (!fill && holding.size() * ppb >= s_.map.size() / 8) {
    // Most pages are to be read (an aged drive): the newest copy of each
    // logical page in a table by logical page, not a hash table (60 million
    // entries of 40 bytes on a 512 GiB drive), the map then set in order.
    std::vector<uint32_t> at(s_.map.size(), MappingTable::kUnmapped);
    FlashOob o, held;
    uint64_t found = 0;
    for (uint64_t b : holding)
      for (uint32_t p = 0; p < ppb; ++p) {
        const auto ppn = static_cast<uint32_t>(b * ppb + p);
        if (!s_.flash->peek(ppn, nullptr, &o) || o.lpn == flash::kNoLpn || o.seq <= base || o.lpn >= at.size())
          continue;
        top = std::max(top, o.seq);
        uint32_t& a = at[o.lpn];
        if (a == MappingTable::kUnmapped) {
          a = ppn;
          ++found;
        } else if (s_.flash->peek(a, nullptr, &held) && o.seq > held.seq) {  // ties: the lower page, read first
          a = ppn;
        }
      }
    for (uint64_t lpn = 0; lpn < at.size(); ++lpn)
      if (at[lpn] != MappingTable::kUnmapped) s_.map_set(lpn, at[lpn]);
    replayed_ += found;
  } else {
    for (uint64_t b : holding) replay_block(s_, b, base, top, newest);
    uint64_t found = newest.size();
    if (fill) found += adopt_fill(newest, top);
    for (const auto& [lpn, sp] : newest) s_.map_set(lpn, sp.second);
    replayed_ += found;
  }
  // Blocks: those holding pages are closed, with the pages the map points at valid.
  const BlockManager& seen = blocks;
  for (uint64_t b = 0; b < blocks.blocks(); ++b) {
    if (blocks.is_meta(b)) continue;
    const uint32_t erases = s_.flash->erase_count(b);
    if (as_filled(b)) {  // its record follows the rule (an aged block's erases are the layout's)
      if (!fill->fill_of(b).pages) blocks.add_free(b);
      if (erases) blocks[b].erase_count = erases;
      continue;
    }
    if (erases != seen[b].erase_count) blocks[b].erase_count = erases;
    if (!s_.flash->holds_pages(b)) {
      blocks.add_free(b);
      continue;
    }
    rebuild_by_page(s_, b, now_ps());
  }
  s_.seq = top;
}

}  // namespace vp::ssd
