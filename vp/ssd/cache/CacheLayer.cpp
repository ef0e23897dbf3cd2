// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/cache/CacheLayer.hpp"

#include "vp/ssd/buffer/BulkFlushBuffer.hpp"
#include "vp/ssd/buffer/BurstBuffer.hpp"
#include "vp/ssd/buffer/FastDrainBuffer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "vp/core/AtomicFile.hpp"
#include "vp/ssd/cache/FixedPrefetchPolicy.hpp"
#include "vp/ssd/cache/GhostPrefetchPolicy.hpp"
#include "vp/ssd/cache/SplitPolicy.hpp"
#include "vp/ssd/cache/UniformPolicy.hpp"
#include "vp/ssd/buffer/WriteBackCache.hpp"

namespace vp::ssd {

// A host request this layer completes once its parts are done.
struct CacheLayer::Host {
  FtlRequest* r;
  uint32_t waiting = 0;  // FTL requests of its own still out
  Tick ready = 0;        // when its DRAM work is done
};

struct CacheLayer::Child {
  enum Kind { Miss, Prefetch, Evict, Down };
  Kind kind;
  Host* host = nullptr;
  FtlRequest req;
  std::vector<uint8_t> buf;  // prefetched pages
  uint64_t seq = 0;          // evictions and write-backs: their place in the write order
  bool host_work = false;    // for a host request (not a line's eviction)
};

void CacheLayer::declare_params(const ParamScope& r) {
  r.choice("organisation", "none", {"none", "uni", "uni-dyn", "split", "bulk", "fastdrain", "burst"},
           "organisation of the SSD's DRAM cache between firmware and FTL: none (every request goes to the FTL), "
           "uni (set-associative, LRU, write-back, both classes share every way, fixed read prefetch: FlashShare's "
           "uni-no / uni-128), uni-dyn (uni with the prefetch adapted each epoch by ghost caches), split (ways "
           "divided between latency-critical and throughput requests, adapted each epoch, each with uni-dyn's "
           "prefetch), bulk (a conventional drive's write buffer, FastDrain's Vanilla: a write that finds its set "
           "full of dirty lines flushes a bulk of the oldest to flash), fastdrain (FastDrain's write buffer with watermarks, background and foreground eviction, "
           "status in every completion), burst (DeepFlash's direct-mapped burst buffer, non-blocking)");
  r.choice("write_buffer", "write_back", {"write_back", "fastdrain"},
           "what a read cache (uni, uni-dyn, split) does with written data: write_back (a dirty line goes to flash "
           "when replaced or flushed, the copies bounded by the drive's write buffer) or fastdrain (FastDrain's "
           "watermarks and drains, ssd.cache.fastdrain.*, over the cache's lines, read misses still cached: "
           "FlashShare's class-split cache with FastDrain's buffer)");
  EpochPolicy::declare_params(r);
  SplitPolicy::declare_params(r);
  // FlashShare OSDI'18 Table 2: 1.5 GB of DRAM in the Z-SSD (ssd.dram.size),
  // of which the data staging and the mapping table take their share.
  r.size("size", "1GiB", "SSD DRAM given to the cache (whole sets of ways x flash pages)");
  r.integer("ways", 16, "ways of associativity of the cache (lines of a set)").range(1, 1024);
  r.integer("prefetch_pages", 0,
            "uni: pages after a read miss's last page brought in with it (0: uni-no, 128: uni-128)")
      .range(0, 65536);
  // FastDrain CAL'20 Table 1: thresholds 0.8 / 0.2. The background pace is
  // not in the paper (assumed: a few pages, about one program time apart).
  FastDrainBuffer::declare_params(r.sub("fastdrain"));
  BulkFlushBuffer::declare_params(r.sub("bulk"));
  r.rule([](const ScopedConfig& c) {
    if (c.is("write_buffer", "fastdrain") &&
        !(c.is("organisation", "uni") || c.is("organisation", "uni-dyn") || c.is("organisation", "split")))
      c.fail({"write_buffer", "organisation"}, "a FastDrain write buffer over a read cache needs uni, uni-dyn or "
             "split (organisation fastdrain is FastDrain's buffer alone)");
  });
  r.rule([](const ScopedConfig& c) {
    if ((c.is("organisation", "fastdrain") || c.is("write_buffer", "fastdrain")) &&
        c.get_real("fastdrain.low_watermark") >= c.get_real("fastdrain.high_watermark"))
      c.fail({"fastdrain.low_watermark", "fastdrain.high_watermark"},
             "the low watermark must be below the high one");
  });
  r.rule([](const ScopedConfig& c) {
    if (c.is("organisation", "none")) return;
    if (c.is("organisation", "burst")) return;  // direct mapped: ways do not apply
    if (c.get_size("size") / c.get_int("ways") == 0)
      c.fail({"size", "ways"}, "the cache holds less than one set of lines");
  });
}

CacheLayer::Stats::Stats(const StatGroup& stats)
    : prefetched_pages(stats.counter("prefetched_pages", "pages", "pages read ahead on read misses")),
      prefetch_hits(stats.counter("prefetch_hits", "pages",
                                  "host reads that hit a page a prefetch brought in (first use)")),
      dirty_evictions(stats.counter("dirty_evictions", "pages",
                                    "dirty lines replaced and written to the FTL")),
      clean_evictions(stats.counter("clean_evictions", "pages", "clean lines replaced")),
      write_backs(stats.counter("write_backs", "pages", "dirty lines written back by a Flush")),
      eviction_copy_hits(stats.counter("eviction_copy_hits", "pages",
                                       "host reads served from a page's eviction copy in flight")),
      bypasses(stats.counter("bypasses", "pages",
                             "written pages no way of their class could take (sent to the FTL)")),
      write_throughs(stats.counter("write_throughs", "commands",
                                   "writes also sent to the FTL before completing (FUA, cache switched off)")),
      inflight_hits(stats.counter("inflight_hits", "pages",
                                  "host read misses on a page a miss or prefetch was already reading from flash: "
                                  "they waited for that fill (also counted as read misses)")) {}

CacheLayer::CacheLayer(sc_core::sc_module_name name, Services& svc, uint32_t line_bytes, uint64_t write_buffer_bytes,
                       uint64_t stripe_pages, const std::string& scope)
    : sc_module(name),
      target("target"),
      power("power"),
      ftl("ftl"),
      dram("dram"),
      cfg_(svc.cfg, scope),
      stats_(svc.stats, scope),
      eq_("eq"),
      organisation_(cfg_.get_enum<Organisation>("organisation", {{"none", Organisation::None},
                                                                              {"uni", Organisation::Uni},
                                                                              {"uni-dyn", Organisation::UniDyn},
                                                                              {"split", Organisation::Split},
                                                                              {"bulk", Organisation::Bulk},
                                                                              {"fastdrain", Organisation::FastDrain},
                                                                              {"burst", Organisation::Burst}})),
      enabled_(organisation_ != Organisation::None),
      bytes_(cfg_.get_size("size")),
      ways_(static_cast<uint32_t>(cfg_.get_int("ways"))),
      st_(stats_) {
  stats_.section("write_buffer", "the drive's write buffer: FastDrain's level, or the write-back cache's capacity, copies and stalls (absent without a buffer)", [this] { return buffer_->summary(); });
  target.bind(*this);
  power.bind(*this);
  if (organisation_ == Organisation::Burst) ways_ = 1;  // DeepFlash's direct-mapped table
  buffer_ = std::make_unique<WriteBufferPolicy>();  // no cache: nothing to buffer
  if (enabled_) {
    page_ = line_bytes;
    uint64_t lines = bytes_ / page_;
    uint32_t sets = static_cast<uint32_t>(std::max<uint64_t>(1, lines / ways_));
    tags_ = std::make_unique<CacheTags>(sets, ways_);
    frames_.resize(tags_->lines());
    prefetched_.assign(tags_->lines(), false);
    if (organisation_ == Organisation::Burst)
      buffer_ = std::make_unique<BurstBuffer>(*tags_, stats_.group("burst"));
    else if (organisation_ == Organisation::Bulk)
      buffer_ = std::make_unique<BulkFlushBuffer>(svc, cfg_.key("bulk"), static_cast<CacheLines&>(*this), *tags_,
                                                  stripe_pages);
    else if (organisation_ == Organisation::FastDrain)
      buffer_ = std::make_unique<FastDrainBuffer>(svc, cfg_.key("fastdrain"), eq_, static_cast<CacheLines&>(*this),
                                                  *tags_, page_, stripe_pages);
    else if (cfg_.is("write_buffer", "fastdrain"))
      buffer_ = std::make_unique<FastDrainBuffer>(svc, cfg_.key("fastdrain"), eq_, static_cast<CacheLines&>(*this),
                                                  *tags_, page_, stripe_pages, /*cache_reads=*/true);
    else {
      write_buffer_bytes_ = write_buffer_bytes;
      buffer_ = std::make_unique<WriteBackCache>(std::max<uint64_t>(1, write_buffer_bytes / page_),
                                                 static_cast<CacheLines&>(*this), stats_);
    }
    fill_reads_ = buffer_->caches_reads();
    if (organisation_ == Organisation::UniDyn)
      policy_ = std::make_unique<GhostPrefetchPolicy>(cfg_, stats_, svc.waves, sets, ways_);
    else if (organisation_ == Organisation::Split)
      policy_ = std::make_unique<SplitPolicy>(cfg_, stats_, svc.waves, sets, ways_);
    else if (organisation_ == Organisation::Uni)
      policy_ = std::make_unique<FixedPrefetchPolicy>(cfg_, stats_, ways_);
    else  // the write buffers read ahead nothing: their read misses are not cached
      policy_ = std::make_unique<UniformPolicy>(0u);
  }
  const char* cls[2] = {"thr", "lat"};
  for (int c = 0; c < 2; ++c) {
    hits_[c] = &stats_.counter(fmt::format("{}.read_hits", cls[c]), "pages",
                                  fmt::format("host page reads found in the cache ({} class)", cls[c]));
    misses_[c] = &stats_.counter(fmt::format("{}.read_misses", cls[c]), "pages",
                                    fmt::format("host page reads that went to the FTL ({} class)", cls[c]));
    whits_[c] = &stats_.counter(fmt::format("{}.write_hits", cls[c]), "pages",
                                   fmt::format("host page writes to a page in the cache ({} class)", cls[c]));
    wmisses_[c] = &stats_.counter(fmt::format("{}.write_misses", cls[c]), "pages",
                                     fmt::format("host page writes that took a line ({} class)", cls[c]));
  }
}

void CacheLayer::write_outputs(const std::string& dir, bool with_epochs) const {
  if (const WriteBufferLevel* level = buffer_->level())
    AtomicFile::write(dir + "/write_buffer.csv", [level](std::ostream& csv) { level->write_csv(csv); });
  if (with_epochs && (organisation_ == Organisation::Uni || organisation_ == Organisation::UniDyn ||
                      organisation_ == Organisation::Split))
    write_cache_epochs_csv(dir + "/cache_epochs.csv", epochs(now_ps()));
}

CacheLayer::~CacheLayer() = default;

void CacheLayer::end_of_elaboration() {
  if (tags_ && ftl->page_size() != page_)
    throw std::logic_error(fmt::format("{}: the FTL below maps {}-byte pages, the cache was made for {}", name(),
                                       ftl->page_size(), page_));
}

uint8_t* CacheLayer::frame(int64_t line) {
  auto& f = frames_[size_t(line)];
  if (!f) f = std::make_unique<uint8_t[]>(page_);
  return f.get();
}

void CacheLayer::set_write_cache(bool on) {
  if (!tags_) return;
  enabled_ = on;
  // Switched off, the dirty pages go to flash now: from here on writes go through.
  if (!on)
    for (int64_t l : tags_->dirty_in_order()) write_back(l, now_ps(), true);
  buffer_->changed();
}

// The host's power failed: the hold-up power writes every dirty line to
// flash, and any write still arriving goes straight through.
void CacheLayer::drain(std::function<void()> drained) {
  drained_ = std::move(drained);
  if (tags_) set_write_cache(false);
  if (evicting_.empty() && drained_) std::exchange(drained_, nullptr)();
}

std::vector<uint64_t> CacheLayer::undrained_pages() const {
  std::vector<uint64_t> lpns;
  if (tags_)
    for (int64_t l : tags_->dirty_in_order()) lpns.push_back(tags_->line(l).lpn);
  for (const auto& [lpn, q] : evicting_) lpns.push_back(lpn);
  std::sort(lpns.begin(), lpns.end());
  lpns.erase(std::unique(lpns.begin(), lpns.end()), lpns.end());
  return lpns;
}

bool CacheLayer::cached(uint64_t lpn, uint32_t pages) const {
  if (!tags_) return false;
  for (uint32_t i = 0; i < pages; ++i)
    if (tags_->find(lpn + i) < 0 && !evicting_.count(lpn + i)) return false;
  return true;
}

bool CacheLayer::peek(uint64_t lpn, uint8_t* page) const {
  if (!tags_) return false;
  auto e = evicting_.find(lpn);
  int64_t l = tags_->find(lpn);
  if (l >= 0) {
    std::memcpy(page, frames_[size_t(l)].get(), page_);
    return true;
  }
  if (e != evicting_.end()) {
    std::memcpy(page, e->second.back().data, page_);
    return true;
  }
  return false;
}

void CacheLayer::submit(FtlRequest& r) {
  r.result = 0;
  if (!tags_) {  // no cache: the FTL completes it to the layer above
    ftl->submit(r);
    return;
  }
  switch (r.op) {
    case IoOp::Read: read(r); break;
    case IoOp::Write:
      if (buffer_->admit(r)) write(r);
      break;
    case IoOp::Flush: flush(r); break;
    case IoOp::Trim: trim(r); break;
  }
}

CacheLayer::Child& CacheLayer::child(int kind, Host* h, IoOp op, uint64_t lpn, uint32_t pages, uint8_t* data) {
  Child* c = children_.make();
  c->kind = static_cast<Child::Kind>(kind);
  c->host = h;
  c->req.op = op;
  c->req.lpn = lpn;
  c->req.pages = pages;
  c->req.data = data;
  c->req.client = this;
  c->req.owner = c;
  if (h) ++h->waiting;
  c->host_work = kind != Child::Evict;
  if (c->host_work) ++host_at_ftl_;
  return *c;
}

void CacheLayer::host_part_done(Host& h, Tick at) {
  h.ready = std::max(h.ready, at);
  if (--h.waiting) return;
  FtlRequest* r = h.r;
  Tick when = h.ready;
  hosts_.release(&h);
  eq_.at(when, [this, r] {
    buffer_->status(r->result);  // a write buffer's as it is when the command completes
    r->client->ftl_done(*r);
  });
}

// ---------------------------------------------------------------- reads

void CacheLayer::read(FtlRequest& r) {
  Tick now = now_ps();
  policy_->advance(now);
  CacheClass c = class_of(r);
  auto* h = hosts_.make(&r, 1u, now);  // the extra count is released below, once every miss is out
  uint64_t run = 0;
  uint32_t run_len = 0;
  // Submitted after the lookups: an FTL that completed one at once would
  // otherwise finish the host request before all its parts were counted.
  std::vector<Child*> out;
  auto send_run = [&] {
    if (run_len) {
      out.push_back(&child(Child::Miss, h, IoOp::Read, run, run_len, r.data + (run - r.lpn) * page_));
      begin_fill(run, run_len);
    }
    run_len = 0;
  };
  for (uint32_t i = 0; i < r.pages; ++i) {
    uint64_t lpn = r.lpn + i;
    uint8_t* dst = r.data + size_t(i) * page_;
    int64_t l = tags_->find(lpn);
    bool hit = l >= 0 && policy_->may_use(tags_->way_of(l), c, false);
    if (hit) {
      std::memcpy(dst, frame(l), page_);
      h->ready = std::max(h->ready, dram->access(frame_addr(l), page_, false, now));
      tags_->touch(l);
      if (prefetched_[size_t(l)]) {
        prefetched_[size_t(l)] = false;
        ++st_.prefetch_hits;
        policy_->prefetch_hit(c);
      }
    } else if (auto e = evicting_.find(lpn); e != evicting_.end()) {
      std::memcpy(dst, e->second.back().data, page_);  // the newest copy in flight
      ++st_.eviction_copy_hits;
      hit = true;
    }
    ++*(hit ? hits_ : misses_)[int(c)];
    policy_->observe(lpn, r.lpn + r.pages, c, false, hit, now, *tags_);
    if (hit) {
      send_run();
      continue;
    }
    if (auto f = filling_.find(lpn); f != filling_.end()) {  // on its way: wait for that fill
      f->second.push_back({h, dst});
      ++h->waiting;
      ++st_.inflight_hits;
      send_run();
      continue;
    }
    if (!run_len) run = lpn;
    ++run_len;
  }
  send_run();
  if (!out.empty()) prefetch_after(r, c, out);
  for (Child* ch : out) {
    ch->req.attr = r.attr;
    ftl->submit(ch->req);
  }
  host_part_done(*h, h->ready);
}

// Read ahead after a miss: the pages after the request's last one that
// are neither cached nor on their way, within the device, each its own FTL
// read, so a read waiting for one of them gets it when that page is back,
// not when the whole window is.
void CacheLayer::prefetch_after(const FtlRequest& r, CacheClass c, std::vector<Child*>& out) {
  unsigned n = policy_->prefetch_pages(c);
  uint64_t end = std::min<uint64_t>(r.lpn + r.pages + n, ftl->logical_pages());
  for (uint64_t p = r.lpn + r.pages; p < end; ++p) {
    if (tags_->find(p) >= 0 || evicting_.count(p) || filling_.count(p)) continue;
    Child& pf = child(Child::Prefetch, nullptr, IoOp::Read, p, 1, nullptr);
    pf.buf.resize(page_);
    pf.req.data = pf.buf.data();
    ++st_.prefetched_pages;
    begin_fill(p, 1);
    out.push_back(&pf);
  }
}

void CacheLayer::install(uint64_t lpn, const uint8_t* data, CacheClass c, bool prefetched, Tick& ready) {
  if (!fill_reads_) return;           // a write buffer: read misses are not cached
  if (tags_->find(lpn) >= 0) return;  // written (or filled) meanwhile: that copy is newer
  if (evicting_.count(lpn)) return;   // a newer copy is on its way to flash
  int64_t l = tags_->victim(lpn, [&](unsigned w) { return policy_->may_fill(w, c); });
  if (l < 0) return;
  Tick now = now_ps();
  evict(l, now);
  tags_->fill(l, lpn, static_cast<uint8_t>(c));
  prefetched_[size_t(l)] = prefetched;
  std::memcpy(frame(l), data, page_);
  ready = std::max(ready, dram->access(frame_addr(l), page_, true, now));
}

void CacheLayer::begin_fill(uint64_t lpn, uint32_t pages) {
  for (uint32_t i = 0; i < pages; ++i) filling_.try_emplace(lpn + i);
}

bool CacheLayer::end_fill(uint64_t lpn, const uint8_t* data, Tick ready) {
  auto f = filling_.find(lpn);
  if (f == filling_.end()) return false;
  std::vector<FillWaiter> waiters = std::move(f->second);
  filling_.erase(f);
  for (const FillWaiter& w : waiters) {
    std::memcpy(w.dst, data, page_);
    host_part_done(*w.host, ready);
  }
  return !waiters.empty();
}

// ---------------------------------------------------------------- writes

void CacheLayer::write(FtlRequest& r) {
  Tick now = now_ps();
  policy_->advance(now);
  CacheClass c = class_of(r);
  auto* h = hosts_.make(&r, 1u, now);
  bool through = !enabled_ || r.fua;
  std::vector<bool> sent(r.pages, false);  // pages already on their way to the FTL (bypasses)
  for (uint32_t i = 0; i < r.pages; ++i) {
    uint64_t lpn = r.lpn + i;
    const uint8_t* src = r.data + size_t(i) * page_;
    int64_t l = tags_->find(lpn);
    if (l >= 0 && !policy_->may_use(tags_->way_of(l), c, true)) {
      // A line this class may not write (the other partition's): drop it, a fresh line takes the data.
      tags_->set_dirty(l, false);
      tags_->invalidate(l);
      l = -1;
    }
    bool hit = l >= 0;
    ++*(hit ? whits_ : wmisses_)[int(c)];
    policy_->observe(lpn, r.lpn + r.pages, c, true, hit, now, *tags_);
    if (!hit) {
      l = tags_->victim(lpn, [&](unsigned w) { return policy_->may_fill(w, c); });
      if (l < 0) {  // no way of this class: straight to the FTL
        ++st_.bypasses;
        queue_write(lpn, src, nullptr, h);
        sent[i] = true;
        continue;
      }
      if (buffer_->bypass(l)) {  // DeepFlash's: the entry is still being evicted
        queue_write(lpn, src, nullptr, h);
        sent[i] = true;
        continue;
      }
      buffer_->replacing(l);
      evict(l, now);
      tags_->fill(l, lpn, static_cast<uint8_t>(c));
      prefetched_[size_t(l)] = false;
    } else {
      tags_->touch(l);
      tags_->line(l).owner = static_cast<uint8_t>(c);  // a read-only line of the old owner is now the writer's
    }
    std::memcpy(frame(l), src, page_);
    if (!through && !tags_->line(l).dirty) buffer_->dirtied(l);
    tags_->set_dirty(l, !through);
    h->ready = std::max(h->ready, dram->access(frame_addr(l), page_, true, now));
  }
  if (through) {  // the lines are clean copies; each page also goes down, in its page's write order
    ++st_.write_throughs;
    for (uint32_t i = 0; i < r.pages; ++i)
      if (!sent[i]) queue_write(r.lpn + i, r.data + size_t(i) * page_, nullptr, h);
  }
  buffer_->after_write(r);
  host_part_done(*h, h->ready);
}

bool CacheLayer::evicting_any(uint64_t lpn, uint32_t pages) const {
  for (uint32_t i = 0; i < pages; ++i)
    if (evicting_.count(lpn + i)) return true;
  return false;
}

// Every write of a page to the FTL (eviction, write-back, write-through)
// joins the page's queue and goes when the one before it is on flash, so the
// FTL never has two writes of one page at once and the newest data lands
// last. `copy`: the data is copied (a cache line that will change), else
// `data` stays valid until the write completes (the host's buffer).
void CacheLayer::queue_write(uint64_t lpn, const uint8_t* data, const uint8_t* copy, Host* h, CacheDrain mode) {
  auto& q = evicting_[lpn];
  Eviction e;
  if (copy) {
    e.copy.assign(copy, copy + page_);
    e.data = e.copy.data();
  } else {
    e.data = data;
  }
  e.seq = ++seq_;
  e.host = h;
  e.buffered = copy != nullptr;
  e.mode = mode;
  buffer_->write_queued(e.buffered, mode);
  if (h) ++h->waiting;
  writes_out_.insert(e.seq);
  q.push_back(std::move(e));
  if (q.size() == 1) issue_eviction(lpn);
}

void CacheLayer::evict(int64_t l, Tick now) {
  CacheTags::Line& line = tags_->line(l);
  if (!line.valid) return;
  if (line.dirty) {
    ++st_.dirty_evictions;
    write_back(l, now, false);
    buffer_->replaced_dirty(l, seq_);
  } else {
    ++st_.clean_evictions;
  }
  tags_->invalidate(l);
  prefetched_[size_t(l)] = false;
}

// A dirty line's page goes to flash: copied out (a DRAM read), then written
// by the FTL; `keep`: the line stays, clean (Flush), else it is being replaced.
void CacheLayer::write_back(int64_t l, Tick now, bool keep, CacheDrain mode) {
  CacheTags::Line& line = tags_->line(l);
  dram->access(frame_addr(l), page_, false, now);
  if (keep) {
    if (mode == CacheDrain::None) ++st_.write_backs;  // a Flush's, not FastDrain's eviction
    tags_->set_dirty(l, false);
  }
  queue_write(line.lpn, nullptr, frame(l), nullptr, mode);
}

void CacheLayer::issue_eviction(uint64_t lpn) {
  Eviction& e = evicting_[lpn].front();
  Child& c = child(Child::Evict, nullptr, IoOp::Write, lpn, 1, const_cast<uint8_t*>(e.data));
  c.seq = e.seq;
  c.req.urgent = e.mode == CacheDrain::Foreground;  // FastDrain: LSB pages across all dies
  c.host_work = e.host != nullptr;
  if (c.host_work) ++host_at_ftl_;
  ftl->submit(c.req);
}

// ---------------------------------------------------------------- flush and trim

void CacheLayer::flush(FtlRequest& r) {
  Tick now = now_ps();
  for (int64_t l : tags_->dirty_in_order()) write_back(l, now, true);
  flushes_.push_back({&r, seq_});
  buffer_->changed();
  check_flushes();
}

// A Flush is done when every write-back and eviction issued before it is on
// flash; then the FTL's own Flush follows.
void CacheLayer::check_flushes() {
  for (size_t i = 0; i < flushes_.size();) {
    FlushWait f = flushes_[i];
    if (!writes_out_.empty() && *writes_out_.begin() <= f.upto) {
      ++i;
      continue;
    }
    flushes_.erase(flushes_.begin() + long(i));
    pass_down(*f.r);
  }
}

void CacheLayer::trim(FtlRequest& r) {
  if (evicting_any(r.lpn, r.pages)) {  // an eviction in flight would bring a page back after the trim
    trims_.push_back(&r);
    return;
  }
  for (uint32_t i = 0; i < r.pages; ++i) {
    int64_t l = tags_->find(r.lpn + i);
    if (l < 0) continue;
    tags_->set_dirty(l, false);
    tags_->invalidate(l);
    prefetched_[size_t(l)] = false;
  }
  buffer_->changed();
  pass_down(r);
}

// The host request itself goes to the FTL; its completion comes back here.
void CacheLayer::pass_down(FtlRequest& r) {
  Child& c = child(Child::Down, nullptr, r.op, r.lpn, r.pages, r.data);
  c.req.attr = r.attr;
  c.req.fua = r.fua;
  c.host = hosts_.make(&r, 1u, now_ps());
  ftl->submit(c.req);
}

// ---------------------------------------------------------------- FTL completions

void CacheLayer::ftl_done(FtlRequest& fr) {
  auto* c = static_cast<Child*>(fr.owner);
  Tick now = now_ps();
  Host* h = c->host;
  if (c->host_work) --host_at_ftl_;
  switch (c->kind) {
    case Child::Miss: {
      Tick ready = now;
      for (uint32_t i = 0; i < fr.pages; ++i) {
        Tick page_ready = now;
        install(fr.lpn + i, fr.data + size_t(i) * page_, class_of(fr), false, page_ready);
        end_fill(fr.lpn + i, fr.data + size_t(i) * page_, page_ready);
        ready = std::max(ready, page_ready);
      }
      host_part_done(*h, ready);
      break;
    }
    case Child::Prefetch:
      for (uint32_t i = 0; i < fr.pages; ++i) {
        Tick page_ready = now;
        install(fr.lpn + i, fr.data + size_t(i) * page_, class_of(fr), true, page_ready);
        if (!end_fill(fr.lpn + i, fr.data + size_t(i) * page_, page_ready)) continue;
        // A read already used the page: the prefetch was a hit.
        if (int64_t l = tags_->find(fr.lpn + i); l >= 0 && prefetched_[size_t(l)]) {
          prefetched_[size_t(l)] = false;
          ++st_.prefetch_hits;
          policy_->prefetch_hit(class_of(fr));
        }
      }
      break;
    case Child::Evict: {
      auto it = evicting_.find(fr.lpn);
      const Eviction& done = it->second.front();
      Host* owner = done.host;
      buffer_->write_done(fr.lpn, c->seq, done.buffered, done.mode);
      if (on_persisted) on_persisted(fr.lpn, done.data);
      it->second.pop_front();
      writes_out_.erase(c->seq);
      if (owner) host_part_done(*owner, now);
      if (it->second.empty())
        evicting_.erase(it);
      else
        issue_eviction(fr.lpn);
      buffer_->changed();
      buffer_->resume();
      check_flushes();
      if (drained_ && evicting_.empty()) std::exchange(drained_, nullptr)();
      if (!trims_.empty()) {
        std::vector<FtlRequest*> t;
        t.swap(trims_);
        for (FtlRequest* r : t) trim(*r);
      }
      break;
    }
    case Child::Down:
      h->r->result = fr.result;
      host_part_done(*h, now);
      break;
  }
  children_.release(c);
}

// ---------------------------------------------------------------- what the write-buffer policy asks

void CacheLayer::drain_line(int64_t line, CacheDrain mode) { write_back(line, now_ps(), true, mode); }

bool CacheLayer::host_work_at_ftl() const { return host_at_ftl_ > 0; }

void CacheLayer::write_now(FtlRequest& r) { write(r); }

}  // namespace vp::ssd
