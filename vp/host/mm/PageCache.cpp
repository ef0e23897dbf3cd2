// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/mm/PageCache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "vp/core/EventQueue.hpp"
#include "vp/host/mm/DirtyLimits.hpp"
#include "vp/host/workload/FioJobRunner.hpp"
#include "vp/host/block/HostBlockDriver.hpp"

namespace vp::host {

namespace {
constexpr uint64_t kWritebackChunk = 1024;  // pages per flusher pass (Linux's MAX_WRITEBACK_PAGES, 4 MiB)
const uint16_t kReadError = nvme::status(nvme::SCT_GENERIC, nvme::SC_DATA_TRANSFER_ERROR);  // a page could not be read

uint64_t pow2_ceil(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}
}  // namespace

void PageCache::declare_params(const ParamScope& r) {
  r.size("size", "256MiB",
         "host memory holding cached file pages for buffered I/O (fio direct=0), one region of host DRAM")
      .range(1 << 20, 1ull << 40);
  r.size("dirtyable", "0",
         "the memory the dirty ratios are percent of: Linux's dirtyable memory (free and file pages the kernel "
         "and applications leave, less the kernel's reserve, totalreserve_pages: summary pagecache "
         "host_reserve_pages); 0: the page cache's size");
  r.time("hit_cost", "1us",
         "kernel CPU time per 4 KiB page a buffered read looks up and copies to the application");
  r.time("write_cost", "1us",
         "kernel CPU time per 4 KiB page a buffered write copies into the cache and marks dirty");
  r.size("readahead_initial", "16KiB",
         "smallest first read-ahead window on a sequential miss (Linux gives a 4 KiB read 16 KiB at a 128 KiB max)")
      .range(4096, 64 << 20);
  r.size("readahead_max", "128KiB", "largest read-ahead window (Linux read_ahead_kb)")
      .range(4096, 64 << 20);
  r.integer("dirty_background_ratio", 10,
            "percent of the dirtyable memory (host.pagecache.dirtyable) dirty above which the flusher writes back (Linux vm.dirty_background_ratio)")
      .range(0, 99);
  r.integer("dirty_ratio", 20,
            "percent of the dirtyable memory dirty or under write-back at which writers block (Linux vm.dirty_ratio)")
      .range(1, 100);
  r.time("dirty_expire", "30s",
         "age after which the periodic write-back writes a dirty page (Linux dirty_expire_centisecs)");
  r.time("writeback_interval", "5s",
         "period of the flusher's wake-ups for expired pages (Linux dirty_writeback_centisecs; 0: none)");
  r.choice("fastdrain", "off", {"off", "on"},
           "FastDrain host side: tag write-back commands (CDW2 bit 8, CDW3 dirty pages) and switch between the "
           "low and high dirty-ratio sets on the device's buffer status");
  r.integer("fastdrain.low_ratio", 5, "FastDrain low set (the default one): dirty_ratio, percent")
      .range(1, 100);
  r.integer("fastdrain.low_background_ratio", 3,
            "FastDrain low set: dirty_background_ratio, percent")
      .range(0, 99);
  r.integer("fastdrain.high_ratio", 10,
            "FastDrain high set (while the device buffer is full): dirty_ratio, percent")
      .range(1, 100);
  r.integer("fastdrain.high_background_ratio", 5,
            "FastDrain high set: dirty_background_ratio, percent")
      .range(0, 99);
  r.rule([](const ScopedConfig& c) {
    if (c.get_size("size") % kPageSize)
      c.fail("size", "must be a multiple of the 4 KiB page");
    if (uint64_t d = c.get_size("dirtyable")) {
      int64_t most = std::max({c.get_int("dirty_ratio"), c.get_int("fastdrain.high_ratio"), c.get_int("fastdrain.low_ratio")});
      if (d / 100 * uint64_t(most) >= c.get_size("size"))
        c.fail({"dirtyable", "size"}, "the dirty limit (the largest dirty ratio of the dirtyable memory) must be below "
                                      "the page cache's size");
    }
    for (const char* k : {"readahead_initial", "readahead_max"})
      if (c.get_size(k) % kPageSize) c.fail(k, "must be a multiple of the 4 KiB page");
    if (c.get_size("readahead_initial") > c.get_size("readahead_max"))
      c.fail({"readahead_initial", "readahead_max"},
             "the initial readahead exceeds the largest");
    for (auto [bg, hard] : {std::pair{"dirty_background_ratio", "dirty_ratio"},
                            {"fastdrain.low_background_ratio", "fastdrain.low_ratio"},
                            {"fastdrain.high_background_ratio", "fastdrain.high_ratio"}})
      if (c.get_int(bg) >= c.get_int(hard))
        c.fail({bg, hard}, "the background ratio (write-back starts) must be below the ratio that blocks writers");
  });
}

PageCache::Stats::Stats(const StatGroup& stats)
    : hits(stats.counter("hits", "pages", "pages buffered reads found in the cache")),
      misses(stats.counter("misses", "pages", "pages buffered reads had to wait for a device read "
                           "started for them")),
      ra_pages(stats.counter("readahead_pages", "pages",
                             "pages read from the device by read-ahead windows (the demanded ones included)")),
      ra_windows(stats.counter("readahead_windows", "windows", "read-ahead windows started")),
      evictions(stats.counter("evictions", "pages", "clean pages dropped to make room")),
      dirtied(stats.counter("pages_dirtied", "pages", "clean pages made dirty by writes")),
      high_water(stats.counter("dirty_high_water", "pages",
                               "most pages dirty or under write-back at once")),
      wb_runs(stats.counter("writeback_commands", "runs",
                            "write-back runs (contiguous dirty pages, one device write each unless blk-mq merges)")),
      wb_pages(stats.counter("writeback_pages", "pages", "pages written back")),
      wb_background(stats.counter("writeback_background", "runs",
                                  "write-back runs because dirty pages exceeded the background limit")),
      wb_periodic(stats.counter("writeback_periodic", "runs",
                                "write-back runs of pages older than dirty_expire")),
      wb_fsync(stats.counter("writeback_fsync", "runs", "write-back runs of fsync")),
      throttles(stats.counter("throttle_events", "writes", "buffered writes blocked at the dirty "
                              "limit")),
      throttle_ps(stats.counter("throttle_ps", "ps", "time writers spent blocked at the dirty "
                                "limit")),
      fsyncs_done(stats.counter("fsyncs", "calls", "fsyncs completed")),
      ratio_switches(stats.counter("ratio_switches", "switches",
                                   "FastDrain switches between the dirty-ratio sets")),
      io_errors(stats.counter("io_errors", "pages", "page reads or write-backs the device failed")),
      victim_tagged(stats.counter("victim_tagged", "runs",
                                  "write-back runs tagged as FastDrain page victimization")) {}

PageCache::PageCache(Services& svc, HostMemoryAllocator& memory, const std::string& scope)
    : cfg_(svc.cfg, scope),
      stats_(svc.stats, scope),
      memory_(memory),
      capacity_(cfg_.get_size("size") / kPageSize),
      dirtyable_(cfg_.get_size("dirtyable") ? cfg_.get_size("dirtyable") / kPageSize : capacity_),
      hit_cost_(cfg_.get_time("hit_cost")),
      write_cost_(cfg_.get_time("write_cost")),
      expire_(cfg_.get_time("dirty_expire")),
      interval_(cfg_.get_time("writeback_interval")),
      ra_init_(cfg_.get_size("readahead_initial") / kPageSize),
      ra_max_(cfg_.get_size("readahead_max") / kPageSize),
      fastdrain_(cfg_.get_switch("fastdrain")),
      st_(stats_) {
  stats_.section("pagecache", "the host page cache: hits, dirty pages, writeback, throttling (absent when no job is buffered)", [this] { return active() ? summary() : nlohmann::json(); });
  set_ratios(false);
}

void PageCache::set_ratios(bool high) {
  high_set_ = high;
  const ScopedConfig& c = cfg_;
  if (!fastdrain_) {
    ratio_bg_ = static_cast<unsigned>(c.get_int("dirty_background_ratio"));
    ratio_hard_ = static_cast<unsigned>(c.get_int("dirty_ratio"));
  } else if (high) {
    ratio_bg_ = static_cast<unsigned>(c.get_int("fastdrain.high_background_ratio"));
    ratio_hard_ = static_cast<unsigned>(c.get_int("fastdrain.high_ratio"));
  } else {
    ratio_bg_ = static_cast<unsigned>(c.get_int("fastdrain.low_background_ratio"));
    ratio_hard_ = static_cast<unsigned>(c.get_int("fastdrain.low_ratio"));
  }
  DirtyLimits limits(dirtyable_, ratio_bg_, ratio_hard_);
  bg_pages_ = limits.background();
  hard_pages_ = limits.hard();
}

void PageCache::begin(HostBlockDriver& drv, bool needed) {
  if (!needed || active_) return;
  drv_ = &drv;
  const ControllerInfo& dev = drv.info();
  lba_per_page_ = kPageSize / dev.lba_size;  // Workload::check keeps the LBA at most a page
  max_pages_ = dev.max_transfer ? std::max<uint32_t>(1, dev.max_transfer / kPageSize) : 1024;
  base_ = memory_.alloc("page cache frames", capacity_ * kPageSize);
  frames_.resize(capacity_);
  free_.reserve(capacity_);
  for (uint64_t f = capacity_; f-- > 0;) free_.push_back(static_cast<uint32_t>(f));  // frame 0 first
  active_ = true;
}

// ---------------------------------------------------------------- frames

PageCache::Page* PageCache::find(uint64_t index) {
  auto it = map_.find(index);
  return it == map_.end() ? nullptr : &frames_[it->second];
}

void PageCache::lru_add(Page& p) {
  if (p.in_lru || !p.uptodate || p.reading || p.dirty || p.writeback || p.pins) return;
  p.lru = lru_.insert(lru_.end(), static_cast<uint32_t>(&p - frames_.data()));
  p.in_lru = true;
}

void PageCache::lru_remove(Page& p) {
  if (!p.in_lru) return;
  lru_.erase(p.lru);
  p.in_lru = false;
}

bool PageCache::reserve(uint64_t frames) {
  while (free_.size() < frames && !lru_.empty()) {
    uint32_t f = lru_.front();
    Page& p = frames_[f];
    lru_remove(p);
    map_.erase(p.index);
    p.present = false;
    free_.push_back(f);
    ++st_.evictions;
  }
  return free_.size() >= frames;
}

uint32_t PageCache::take_frame(uint64_t index) {
  if (free_.empty()) throw std::logic_error("page cache: no free frame (reserve first)");
  uint32_t f = free_.back();
  free_.pop_back();
  Page& p = frames_[f];
  p.index = index;
  p.present = true;
  p.uptodate = p.reading = p.dirty = p.writeback = p.ra_mark = false;
  p.attr = 0;
  p.dirtied = 0;
  p.pins = 0;
  map_[index] = f;
  return f;
}

void PageCache::start_io(Page& p, bool write, Work& /*w*/) {
  IoRequest& io = p.io;
  uint64_t f = static_cast<uint64_t>(&p - frames_.data());
  io = IoRequest{};
  io.write = write;
  io.lba = p.index * lba_per_page_;
  io.nlb = lba_per_page_;
  io.bytes = kPageSize;
  io.buf_addr = base_ + f * kPageSize;
  io.buf = drv_->host_ptr(io.buf_addr);
  io.cache = this;
  io.slot = static_cast<uint32_t>(f);
  io.issued = now_ps();
  io.clock.start(io.issued);
}

// ---------------------------------------------------------------- reads

void PageCache::read_pages(uint64_t start, uint64_t n, uint64_t end, uint64_t mark, uint8_t attr, Work& w) {
  std::vector<IoRequest*> run;
  auto close = [&] {
    if (!run.empty()) w.runs.push_back(std::move(run));
    run.clear();
  };
  bool any = false;
  for (uint64_t i = start; i < std::min(start + n, end); ++i) {
    Page* p = find(i);
    if (p && (p->uptodate || p->reading || p->dirty)) {  // cached or on its way: the run breaks here
      close();
      continue;
    }
    if (!p) {
      if (!reserve(1)) break;  // no clean page to drop: the window ends early
      p = &frames_[take_frame(i)];
    }
    p->reading = true;
    start_io(*p, false, w);
    p->io.attr = attr;
    run.push_back(&p->io);
    ++st_.ra_pages;
    any = true;
    if (run.size() >= max_pages_) close();
  }
  close();
  if (any) ++st_.ra_windows;
  if (Page* m = mark < end ? find(mark) : nullptr) m->ra_mark = true;
}

// Linux's ondemand_readahead, per job: `req` pages are wanted from `index`.
void PageCache::readahead(FioJobRunner* job, uint64_t index, uint64_t req, bool marker, uint64_t end, Work& w) {
  Readahead& ra = ra_[job];
  uint8_t attr = static_cast<uint8_t>(job->spec().attribute());
  auto next = [&](uint64_t cur) { return std::min(ra_max_, cur < ra_max_ / 16 ? 4 * cur : 2 * cur); };
  bool expected = ra.size && (index == ra.start + ra.size - ra.async || index == ra.start + ra.size);
  if (expected || marker) {  // the stream goes on: the next window, read ahead of the reader
    ra.start += ra.size;
    ra.size = next(ra.size);
    ra.async = ra.size;
  } else if (index == job->region_lba() / lba_per_page_ || index == ra.prev + 1 || index == ra.prev ||
             req > ra_max_) {  // a sequential miss: the initial window
    ra.start = index;
    ra.size = std::min(ra_max_, std::max(ra_init_, pow2_ceil(req)));
    ra.async = ra.size > req ? ra.size - req : ra.size;
  } else {  // a random miss: only what was asked
    read_pages(index, req, end, ~uint64_t(0), attr, w);
    return;
  }
  read_pages(ra.start, ra.size, end, ra.start + ra.size - ra.async, attr, w);
}

void PageCache::finish_read(IoRequest& r, uint64_t first, uint64_t n, bool pinned, Work& w) {
  for (uint64_t k = 0; k < n; ++k) {
    Page& p = *find(first + k);
    if (!p.uptodate) r.status = kReadError;
    std::memcpy(r.buf + k * kPageSize, drv_->host_ptr(base_ + uint64_t(&p - frames_.data()) * kPageSize), kPageSize);
    if (pinned) --p.pins;
    lru_remove(p);  // most recently used now
    lru_add(p);
  }
  w.done.push_back(&r);
}

// False when there is no room to read its pages in (it waits in blocked_).
bool PageCache::try_read(IoRequest& r, bool count, Work& w) {
  uint64_t first = r.lba / lba_per_page_, n = r.bytes / kPageSize;
  uint64_t end = (r.job->region_lba() + r.job->region_lbas()) / lba_per_page_;
  auto cached = [&](uint64_t i) {
    Page* p = find(i);
    return p && (p->uptodate || p->reading || p->dirty);
  };
  if (count)
    for (uint64_t i = first; i < first + n; ++i) ++(cached(i) ? st_.hits : st_.misses);
  for (uint64_t i = first; i < first + n; ++i) {
    Page* p = find(i);
    if (!cached(i)) {  // (a window started for an earlier page of this read may have brought it)
      readahead(r.job, i, first + n - i, false, std::max(end, first + n), w);
    } else if (p->ra_mark) {
      p->ra_mark = false;
      readahead(r.job, i, first + n - i, true, std::max(end, first + n), w);
    }
  }
  bool present = true, settled = true;
  for (uint64_t i = first; i < first + n; ++i) {
    Page* p = find(i);
    if (!p || (!p->uptodate && !p->reading && !p->dirty)) present = false;
    else if (p->reading) settled = false;
  }
  if (!present) return false;
  if (settled) {
    finish_read(r, first, n, false, w);
  } else {
    for (uint64_t i = first; i < first + n; ++i) {
      Page& p = *find(i);
      ++p.pins;
      lru_remove(p);
    }
    reads_.push_back({&r, first, n});
  }
  return true;
}

// ---------------------------------------------------------------- writes

void PageCache::note_high_water() {
  st_.high_water.value = std::max(st_.high_water.value, nr_dirty_ + nr_writeback_);
}

void PageCache::make_dirty(Page& p, uint8_t attr, Tick now) {
  p.attr = attr;  // the last writer's attribute
  if (p.dirty) return;
  p.dirty = true;
  p.dirtied = now;
  ++nr_dirty_;
  ++st_.dirtied;
  dirty_idx_.insert(p.index);
  if (!p.writeback) writable_.insert({now, p.index});
}

bool PageCache::try_write(IoRequest& r, Tick now, Work& w) {
  uint64_t first = r.lba / lba_per_page_, n = r.bytes / kPageSize;
  if (nr_dirty_ + nr_writeback_ >= hard_pages_) return false;  // balance_dirty_pages: wait below the limit
  uint64_t missing = 0;
  for (uint64_t i = first; i < first + n; ++i) {
    Page* p = find(i);
    if (p && p->reading) return false;  // the page is locked for a read in flight
    if (!p) ++missing;
  }
  // The write's own clean pages must not be dropped to make room for its others.
  for (uint64_t i = first; i < first + n; ++i)
    if (Page* p = find(i)) lru_remove(*p);
  if (!reserve(missing)) {
    for (uint64_t i = first; i < first + n; ++i)
      if (Page* p = find(i)) lru_add(*p);
    return false;
  }
  for (uint64_t k = 0; k < n; ++k) {
    Page* p = find(first + k);
    if (!p) p = &frames_[take_frame(first + k)];
    std::memcpy(drv_->host_ptr(base_ + uint64_t(p - frames_.data()) * kPageSize), r.buf + k * kPageSize, kPageSize);
    p->uptodate = true;
    lru_remove(*p);
    make_dirty(*p, static_cast<uint8_t>(r.job->spec().attribute()), now);
  }
  note_high_water();
  w.cpu += write_cost_ * n;
  w.done.push_back(&r);
  if (interval_ && !tick_armed_) {  // Linux arms the delayed write-back when an inode first gets dirty
    tick_armed_ = true;
    tick_at_ = now + interval_;
    if (kick) kick();
  }
  if (nr_dirty_ > bg_pages_ && kick) kick();
  return true;
}

void PageCache::access(IoRequest& r, unsigned core, Tick now, Work& w) {
  if (!r.write) {
    w.cpu += hit_cost_ * (r.bytes / kPageSize);
    bool ok = try_read(r, true, w);
    ra_[r.job].prev = (r.lba + r.nlb) / lba_per_page_ - 1;
    if (!ok) blocked_.push_back({&r, core, now, false});
    return;
  }
  if (try_write(r, now, w)) return;
  bool throttled = nr_dirty_ + nr_writeback_ >= hard_pages_;
  if (throttled) ++st_.throttles;
  blocked_.push_back({&r, core, now, throttled});
}

// ---------------------------------------------------------------- write-back

void PageCache::writeback_run(uint64_t index, uint64_t lo, uint64_t hi, uint32_t event_dirty, Work& w) {
  auto writable = [&](uint64_t i) {
    Page* p = find(i);
    return i >= lo && i < hi && p && p->dirty && !p->writeback;
  };
  uint64_t s = index, e = index + 1;
  while (s > lo && e - s < max_pages_ && writable(s - 1)) --s;
  while (e < hi && e - s < max_pages_ && writable(e)) ++e;
  uint8_t attr = 0;
  for (uint64_t i = s; i < e; ++i) attr = std::max(attr, find(i)->attr);
  std::vector<IoRequest*> run;
  for (uint64_t i = s; i < e; ++i) {
    Page& p = *find(i);
    writable_.erase({p.dirtied, i});
    dirty_idx_.erase(i);
    p.dirty = false;  // clear_page_dirty_for_io: a write from now on dirties it again
    --nr_dirty_;
    p.writeback = true;
    wb_idx_.insert(i);
    ++nr_writeback_;
    start_io(p, true, w);
    p.io.attr = attr;  // the largest of the run, on every page so that blk-mq merges them
    if (fastdrain_) {
      p.io.cdw2_hint = nvme::CDW2_VICTIM;
      p.io.cdw3 = event_dirty;
    }
    run.push_back(&p.io);
  }
  ++st_.wb_runs;
  st_.wb_pages += e - s;
  if (fastdrain_) ++st_.victim_tagged;
  w.runs.push_back(std::move(run));
}

static uint32_t saturate(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v); }

void PageCache::writeback_range(uint64_t lo, uint64_t hi, Work& w) {
  std::vector<uint64_t> idx(dirty_idx_.lower_bound(lo), dirty_idx_.lower_bound(hi));
  uint32_t event = saturate(nr_dirty_);
  for (uint64_t i : idx) {
    Page* p = find(i);
    if (!p->dirty || p->writeback) continue;  // written by an earlier run, or wait for its write-back first
    writeback_run(i, lo, hi, event, w);
    ++st_.wb_fsync;
  }
}

void PageCache::fsync(FioJobRunner& job, unsigned core, Tick now, Work& w) {
  uint64_t lo = job.region_lba() / lba_per_page_;
  uint64_t hi = (job.region_lba() + job.region_lbas() + lba_per_page_ - 1) / lba_per_page_;
  if (!active_) {
    w.synced.push_back(&job);
    ++st_.fsyncs_done;
    return;
  }
  writeback_range(lo, hi, w);
  auto busy = [&](const std::set<uint64_t>& s) {
    auto it = s.lower_bound(lo);
    return it != s.end() && *it < hi;
  };
  fsyncs_.push_back({&job, core, lo, hi});
  if (!busy(dirty_idx_) && !busy(wb_idx_) && written_back(fsyncs_.back(), now, w)) fsyncs_.pop_back();
}

bool PageCache::written_back(FsyncWait& f, Tick now, Work& w) {
  if (!drv_->info().volatile_write_cache) {
    w.synced.push_back(f.job);
    ++st_.fsyncs_done;
    return true;
  }
  // blkdev_issue_flush: an empty write with REQ_PREFLUSH, which reaches the
  // driver as a Flush of its own.
  f.flushing = true;
  f.flush = IoRequest{};
  f.flush.flush = true;
  f.flush.write = true;
  f.flush.cache = this;
  f.flush.issued = now;
  f.flush.clock.start(now);
  w.flushes.push_back({f.job, &f.flush});
  return false;
}

bool PageCache::flusher_due(Tick now) const {
  if (!active_ || writable_.empty()) return false;
  if (nr_dirty_ > bg_pages_) return true;
  if (old_pending_ && writable_.begin()->first <= old_cutoff_) return true;
  return tick_armed_ && now >= tick_at_;
}

Tick PageCache::flusher_next() const { return active_ && tick_armed_ ? tick_at_ : kNever; }

void PageCache::flusher_run(Tick now, Work& w) {
  if (tick_armed_ && now >= tick_at_) {  // wb_check_old_data_flush
    tick_armed_ = false;
    old_pending_ = now >= expire_;
    old_cutoff_ = now >= expire_ ? now - expire_ : 0;
  }
  uint32_t event = saturate(nr_dirty_);
  uint64_t budget = kWritebackChunk;
  while (!writable_.empty() && budget) {
    auto [t, idx] = *writable_.begin();
    bool background = nr_dirty_ > bg_pages_;
    bool old = old_pending_ && t <= old_cutoff_;
    if (!background && !old) break;
    uint64_t before = st_.wb_pages.value;
    writeback_run(idx, 0, ~uint64_t(0), event, w);
    ++(background ? st_.wb_background : st_.wb_periodic);
    budget -= std::min(budget, st_.wb_pages.value - before);
  }
  if (old_pending_ && (writable_.empty() || writable_.begin()->first > old_cutoff_)) old_pending_ = false;
  if (!tick_armed_ && interval_ && nr_dirty_ > 0) {
    tick_armed_ = true;
    tick_at_ = now + interval_;
  }
}

// ---------------------------------------------------------------- completions

void PageCache::completed(IoRequest& r, Tick now, Work& w) {
  if (r.status) ++st_.io_errors;
  if (r.flush) {  // an fsync's Flush: the fsync is done
    auto f = std::find_if(fsyncs_.begin(), fsyncs_.end(), [&](const FsyncWait& x) { return &x.flush == &r; });
    if (f != fsyncs_.end()) {
      w.synced.push_back(f->job);
      ++st_.fsyncs_done;
      fsyncs_.erase(f);
    }
    return;
  }
  Page& p = frames_[r.slot];
  if (!r.write) {
    p.reading = false;
    if (!p.dirty) p.uptodate = r.status == 0;  // a failed read leaves the page to be read again
  } else {
    p.writeback = false;
    wb_idx_.erase(p.index);
    --nr_writeback_;
    if (p.dirty) writable_.insert({p.dirtied, p.index});  // written again meanwhile: write it back again
  }
  lru_add(p);
  pump(now, w);
}

void PageCache::pump(Tick now, Work& w) {
  for (auto it = reads_.begin(); it != reads_.end();) {
    bool settled = true;
    for (uint64_t i = it->first; i < it->first + it->n && settled; ++i) settled = !find(i)->reading;
    if (!settled) {
      ++it;
      continue;
    }
    finish_read(*it->r, it->first, it->n, true, w);
    it = reads_.erase(it);
  }
  for (auto it = blocked_.begin(); it != blocked_.end();) {
    IoRequest& r = *it->r;
    bool ok = r.write ? try_write(r, now, w) : try_read(r, false, w);
    if (!ok) {
      ++it;
      continue;
    }
    if (it->throttled) st_.throttle_ps += now - it->since;
    it = blocked_.erase(it);
  }
  for (auto it = fsyncs_.begin(); it != fsyncs_.end();) {
    if (it->flushing) {
      ++it;
      continue;
    }
    writeback_range(it->lo, it->hi, w);
    auto busy = [&](const std::set<uint64_t>& s) {
      auto b = s.lower_bound(it->lo);
      return b != s.end() && *b < it->hi;
    };
    if (busy(dirty_idx_) || busy(wb_idx_)) {
      ++it;
      continue;
    }
    it = written_back(*it, now, w) ? fsyncs_.erase(it) : std::next(it);
  }
  if (kick && flusher_due(now)) kick();
}

void PageCache::observe_status(uint32_t result, Tick now, Work& w) {
  if (!fastdrain_) return;
  nvme::BufferState s = nvme::buffer_state(static_cast<uint16_t>(result));
  if ((s == nvme::BUF_FULL && !high_set_) || (s == nvme::BUF_DRAINED && high_set_)) {
    set_ratios(s == nvme::BUF_FULL);
    ++st_.ratio_switches;
    if (active_) pump(now, w);  // writers may go on under the high limit; the flusher may owe more
  }
}

nlohmann::json PageCache::summary() const {
  return {{"active", active_},
          {"size_pages", capacity_},
          {"dirtyable_pages", dirtyable_},
          {"host_reserve_pages", DirtyLimits::reserve_pages(memory_.map().low_bytes(), memory_.map().high_bytes())},
          {"cached_pages", map_.size()},
          {"dirty_pages", nr_dirty_},
          {"under_writeback_pages", nr_writeback_},
          {"written_back_pages", st_.wb_pages.value},
          {"dirty_background_ratio", ratio_bg_},
          {"dirty_ratio", ratio_hard_},
          {"background_limit_pages", bg_pages_},
          {"dirty_limit_pages", hard_pages_},
          {"ratio_set", !fastdrain_ ? "fixed" : high_set_ ? "high" : "low"},
          {"hits", st_.hits.value},
          {"misses", st_.misses.value},
          {"readahead_pages", st_.ra_pages.value},
          {"dirty_high_water", st_.high_water.value},
          {"writeback_commands", st_.wb_runs.value},
          {"throttle_events", st_.throttles.value},
          {"throttle_s", double(st_.throttle_ps.value) / 1e12},
          {"fsyncs", st_.fsyncs_done.value},
          {"ratio_switches", st_.ratio_switches.value},
          {"blocked_ios", blocked_.size()},
          {"waiting_reads", reads_.size()},
          {"waiting_fsyncs", fsyncs_.size()},
          {"free_frames", free_.size()},
          {"clean_lru_pages", lru_.size()}};
}

}  // namespace vp::host
