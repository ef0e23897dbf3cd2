// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/ftl/GarbageCollector.hpp"

#include <algorithm>
#include <utility>

#include "vp/core/SimControl.hpp"

namespace vp::ssd {

using flash::FlashOob;
using flash::FlashOp;
using flash::FlashTransaction;

// A garbage-collection (or static wear-leveling) pass over one victim block.
struct GarbageCollector::Job : flash::FlashClient {
  struct Move {
    uint32_t src, dst, lpn, seq;
  };
  GarbageCollector& gc;
  uint64_t plane, victim;
  uint32_t pending = 0;
  std::vector<Move> moves;
  std::vector<FlashTransaction> txns;
  std::vector<uint8_t> buf;         // read+program migration goes through controller DRAM
  std::vector<uint32_t> relocated;  // logical pages whose entry moved
  FlashTransaction erase;
  Job(GarbageCollector& g, uint64_t p, uint64_t v) : gc(g), plane(p), victim(v) {}
  void flash_done(FlashTransaction& t) override { gc.job_txn_done(*this, t); }
};

void GarbageCollector::declare_params(const ParamScope& ftl) {
  ftl.choice("gc.policy", "greedy", {"greedy", "cost_benefit"}, "victim: fewest valid pages, or best (1-u)/2u x age");
  ftl.integer("gc.fg_threshold", 2, "free blocks per plane below which a write starts foreground GC")
      .range(2, 1 << 20);
  ftl.integer("gc.bg_threshold", 4, "free blocks per plane below which idle time is used for GC (0: never)")
      .range(0, 1 << 20);
  ftl.time("gc.bg_idle", "1ms", "time without host requests before background GC starts");
  ftl.choice("gc.migration", "copyback", {"copyback", "read_program"},
             "how valid pages move: on-chip copy-back, or read out and program back");
  ftl.boolean("gc.preemptible", true, "GC flash work yields to host reads in the flash scheduler");
  ftl.boolean("wl.dynamic", true, "take the least-erased free block (false: oldest freed first)");
  ftl.integer("wl.static_threshold", 0,
              "erase-count spread in a plane that makes its coldest block migrate (0: no static wear leveling)")
      .range(0, 1 << 30);
}

uint32_t GarbageCollector::fg_threshold_of(const ScopedConfig& ftl) {
  return static_cast<uint32_t>(ftl.get_int("gc.fg_threshold"));
}

GarbageCollector::GarbageCollector(FtlState& s, PageAllocator& alloc, FtlMapping& mapping, GcClient& client,
                                   const ScopedConfig& ftl, const StatGroup& stats, Waves& waves)
    : s_(s),
      alloc_(alloc),
      mapping_(mapping),
      client_(client),
      greedy_(ftl.is("gc.policy", "greedy")),
      copyback_(ftl.is("gc.migration", "copyback")),
      preemptible_(ftl.get_bool("gc.preemptible")),
      fg_threshold_(static_cast<uint32_t>(ftl.get_int("gc.fg_threshold"))),
      bg_threshold_(static_cast<uint32_t>(ftl.get_int("gc.bg_threshold"))),
      wl_threshold_(static_cast<uint32_t>(ftl.get_int("wl.static_threshold"))),
      bg_idle_(ftl.get_time("gc.bg_idle")),
      jobs_(s.planes),
      runs_(stats.counter("gc.invocations", "blocks", "victim blocks reclaimed by GC")),
      bg_runs_(stats.counter("gc.background", "blocks", "of which reclaimed in idle time")),
      moved_(stats.counter("gc.pages_moved", "pages", "valid pages migrated by GC and wear leveling")),
      copybacks_(stats.counter("gc.copybacks", "pages", "migrations done by copy-back")),
      wl_runs_(stats.counter("wl.migrations", "blocks", "cold blocks migrated by static wear leveling")) {
  if (waves.enabled())
    waves.trace(active_signal_, Waves::signal_name(ftl.scope(), "gc.active"), Waves::group_name(ftl.scope()));
}

GarbageCollector::~GarbageCollector() = default;

bool GarbageCollector::pick_victim(uint64_t plane, uint64_t& victim) const {
  const auto& geo = s_.geo;
  uint64_t first = plane * geo.blocks_per_plane;
  double best = -1;
  Tick now = now_ps();
  for (uint64_t b = first; b < first + geo.blocks_per_plane; ++b) {
    const BlockInfo& i = std::as_const(s_.blocks)[b];
    // A victim must free room: with sub-page mapping the last page GC fills may be padded.
    if (i.state != BlockState::Full || i.valid + s_.units_per_page() > geo.pages_per_block || i.programming) continue;
    double score;
    if (greedy_) {
      score = double(geo.pages_per_block - i.valid);
    } else {  // cost-benefit (Kawaguchi et al.): benefit (1-u) x age over cost 2u
      double u = double(i.valid) / geo.pages_per_block;
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

void GarbageCollector::maybe_collect(uint64_t plane, bool background) {
  if (jobs_[plane] || !s_.powered) return;
  uint32_t f = s_.blocks.free_count(plane);
  if (f >= (background ? bg_threshold_ : fg_threshold_)) return;
  uint64_t victim;
  if (!pick_victim(plane, victim)) return;
  start_job(plane, victim, false, background);
}

void GarbageCollector::program_done(uint64_t block) {
  s_.blocks.touch(block);  // a checkpoint notes a block whose last program is done
  if (--s_.blocks[block].programming == 0 && client_.writes_waiting())
    maybe_collect(s_.blocks.plane_of(block), false);
}

bool GarbageCollector::reclaiming(uint64_t plane) const {
  if (jobs_[plane]) return true;
  uint64_t first = plane * s_.geo.blocks_per_plane;
  for (uint64_t b = first; b < first + s_.geo.blocks_per_plane; ++b)
    if (std::as_const(s_.blocks)[b].programming > 0) return true;
  return false;
}

void GarbageCollector::start_job(uint64_t plane, uint64_t victim, bool wear, bool background) {
  const auto& geo = s_.geo;
  auto job = std::make_unique<Job>(*this, plane, victim);
  Job& j = *job;
  jobs_[plane] = std::move(job);
  ++active_signal_;
  ++(wear ? wl_runs_ : runs_);
  if (background) ++bg_runs_;
  s_.blocks[victim].state = BlockState::Victim;
  uint32_t valid = s_.blocks[victim].valid;
  j.moves.reserve(valid);
  j.txns.reserve(valid);  // never reallocated once submitted
  if (!copyback_) j.buf.resize(uint64_t(valid) * geo.page_size);
  for (uint32_t p = 0; p < geo.pages_per_block; ++p) {
    if (!s_.blocks.valid(victim, p)) continue;
    uint32_t lpn = s_.lpn_at(s_.to_ppn(victim, p));
    uint64_t dst;
    if (!alloc_.alloc_gc(plane, dst)) throw std::logic_error("FTL: GC found no free block for its destination");
    // The copy gets a sequence number now, while it is the current one: a
    // host write after this point is newer, also after a power loss.
    j.moves.push_back({s_.to_ppn(victim, p), static_cast<uint32_t>(dst), lpn, s_.next_seq()});
    ++s_.blocks[s_.block_of(dst)].programming;
    FlashTransaction& t = j.txns.emplace_back();
    t.op = copyback_ ? FlashOp::CopyBack : FlashOp::Read;
    t.addr = flash::address_of(geo, j.moves.back().src);
    t.dst = flash::address_of(geo, dst);
    t.oob = FlashOob{lpn, j.moves.back().seq};
    t.data = copyback_ ? nullptr : j.buf.data() + (j.moves.size() - 1) * geo.page_size;
    t.background = preemptible_;
    t.use = flash::FlashUse::Gc;
    t.client = &j;
    t.tag = j.moves.size() - 1;
  }
  // Sub-page mapping: the destination's last page goes out with what it has.
  if (!j.moves.empty() && !s_.page_ends_at(j.moves.back().dst))
    alloc_.pad(j.moves.back().dst, true, flash::FlashUse::Gc, preemptible_);
  j.pending = static_cast<uint32_t>(j.txns.size());
  if (!j.moves.empty()) s_.gc_first_seq[plane] = j.moves.front().seq;
  if (j.pending == 0) {
    job_erase(j);
    return;
  }
  for (auto& t : j.txns) s_.flash->submit(t);
}

void GarbageCollector::job_txn_done(Job& j, FlashTransaction& t) {
  if (&t == &j.erase) {
    job_erased(j);
    return;
  }
  const Job::Move& m = j.moves[t.tag];
  if (t.op == FlashOp::Read) {  // now program it where it goes
    t.op = FlashOp::Program;
    t.addr = flash::address_of(s_.geo, m.dst);
    t.oob = FlashOob{m.lpn, m.seq};
    s_.flash->submit(t);
    return;
  }
  ++moved_;
  if (t.op == FlashOp::CopyBack) ++copybacks_;
  program_done(s_.block_of(m.dst));
  uint32_t ppb = s_.geo.pages_per_block;
  if (s_.map.get(m.lpn) == m.src) {
    s_.map_set(m.lpn, m.dst);
    j.relocated.push_back(m.lpn);
    s_.blocks.invalidate(m.src / ppb, m.src % ppb);
  } else {  // the host rewrote or trimmed it meanwhile: the copy is stale
    s_.blocks.invalidate(m.dst / ppb, m.dst % ppb);
  }
  if (--j.pending == 0) job_erase(j);
}

void GarbageCollector::job_erase(Job& j) {
  s_.gc_first_seq[j.plane] = 0;  // every copy is mapped: a checkpoint from now on holds them
  mapping_.relocated(j.relocated);
  j.erase = FlashTransaction{};
  j.erase.op = FlashOp::Erase;
  j.erase.addr = flash::address_of(s_.geo, uint64_t(j.victim) * s_.geo.pages_per_block);
  j.erase.background = true;
  j.erase.use = flash::FlashUse::Gc;
  j.erase.client = &j;
  s_.flash->submit(j.erase);
}

void GarbageCollector::job_erased(Job& j) {
  uint64_t plane = j.plane;
  s_.blocks.erased(j.victim);
  alloc_.free_changed();
  --active_signal_;
  // The job is still on the call stack (its erase transaction called back): free it afterwards.
  Job* done = jobs_[plane].release();
  s_.eq.after(0, [done] { delete done; });
  check_wear(plane);  // before writes waiting for this block start foreground GC again
  client_.retry_writes();
  maybe_collect(plane, false);
  if (s_.outstanding == 0) maybe_collect(plane, true);
}

void GarbageCollector::check_wear(uint64_t plane) {
  // A cold block is full of valid pages: moving it needs at most one free block.
  if (wl_threshold_ == 0 || jobs_[plane] || s_.blocks.free_count(plane) < 1) return;
  uint64_t first = plane * s_.geo.blocks_per_plane;
  uint32_t lo = UINT32_MAX, hi = 0;
  uint64_t coldest = 0;
  for (uint64_t b = first; b < first + s_.geo.blocks_per_plane; ++b) {
    const BlockInfo& i = std::as_const(s_.blocks)[b];
    if (i.state == BlockState::Meta) continue;
    hi = std::max(hi, i.erase_count);
    if (i.state == BlockState::Full && !i.programming && i.erase_count < lo) {
      lo = i.erase_count;
      coldest = b;
    }
  }
  if (lo != UINT32_MAX && hi - lo > wl_threshold_) start_job(plane, coldest, true, false);
}

void GarbageCollector::idle() {
  if (bg_threshold_ == 0 || bg_scheduled_ || !s_.powered) return;
  bg_scheduled_ = true;
  uint64_t seen = activity_, epoch = s_.epoch;
  s_.eq.after(bg_idle_, [this, seen, epoch] {
    if (epoch != s_.epoch) return;
    bg_scheduled_ = false;
    if (activity_ != seen || s_.outstanding > 0) return;  // not idle for the whole period
    for (uint64_t p = 0; p < s_.planes; ++p) maybe_collect(p, true);
  });
}

bool GarbageCollector::collect_now(uint64_t plane, uint64_t& moved) {
  uint64_t victim;
  if (!pick_victim(plane, victim)) return false;
  s_.blocks[victim].state = BlockState::Victim;
  uint64_t dst = 0;
  bool any = false;
  for (uint32_t p = 0; p < s_.geo.pages_per_block; ++p) {
    if (!s_.blocks.valid(victim, p)) continue;
    uint32_t lpn = s_.lpn_at(s_.to_ppn(victim, p));
    if (!alloc_.alloc_gc(plane, dst)) throw std::logic_error("FTL: GC found no free block for its destination");
    s_.flash->preload_copy(s_.to_ppn(victim, p), dst, FlashOob{lpn, s_.next_seq()});
    s_.map_set(lpn, static_cast<uint32_t>(dst));
    s_.blocks.invalidate(victim, p);
    ++moved;
    any = true;
  }
  if (any && !s_.page_ends_at(dst)) alloc_.pad(dst, false);
  s_.flash->preload_erase(victim);
  s_.blocks.erased(victim);
  return true;
}

void GarbageCollector::power_loss() {
  for (auto& j : jobs_) j.reset();
  std::fill(s_.gc_first_seq.begin(), s_.gc_first_seq.end(), 0);
  bg_scheduled_ = false;
}

void GarbageCollector::report(nlohmann::json& j) const {
  j["gc_pages_moved"] = moved_.value;
  j["gc_invocations"] = runs_.value;
  j["gc_background"] = bg_runs_.value;
  j["wl_migrations"] = wl_runs_.value;
}

}  // namespace vp::ssd
