// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host's page cache for buffered I/O (fio direct=0), after Linux's
// mm/filemap.c, mm/readahead.c, mm/page-writeback.c and fs/fs-writeback.c,
// event driven: it acts when a job reads, writes or fsyncs, when one of its
// device commands completes, and when the flusher core looks for work.
//
// Pages are 4 KiB frames of host DRAM (host.pagecache.size of them), so the
// device DMAs straight into and out of them and a read returns what was
// written. Each frame owns the IoRequest that carries it to the device; a
// device read or write-back of several pages submits them one after the other
// under a plug and blk-mq merges them into one command, as Linux's bios are.
//
// Reads: a page in the cache is a hit (host.pagecache.hit_cost per page,
// lookup and copy); a missing page starts a synchronous read-ahead and the
// job waits for its pages. Read-ahead follows Linux's on-demand window per
// job (the job is the file): an initial window on a miss at the start of the
// region or right after the previous read, then, when a read touches the
// window's marker page, an asynchronous window that grows x4 below max/16,
// x2 up to max (get_next_ra_size); random misses read just what was asked.
//
// Writes copy into the cache and dirty the pages (host.pagecache.write_cost
// per page) and complete at once, unless throttled: a writer that finds the
// dirty and under-write-back pages at or above the dirty limit blocks until
// write-back completions bring them below it (a simple stand-in for the
// pauses of balance_dirty_pages), or until pages it overwrites are no
// longer being read in. The page keeps the workload attribute of its last
// writer; a write-back command carries the largest of its pages'.
//
// Write-back (the flusher) runs as kernel work on core 0 (Linux's flusher is
// an unbound kworker; one fixed core keeps runs deterministic): above the
// background limit it writes the oldest dirty pages first, each with the
// contiguous dirty pages around it up to the largest transfer, until the
// dirty pages fall to the background limit; every writeback_interval it
// writes pages dirty for longer than dirty_expire. fsync writes back the
// job's region on the job's core and the job waits for it. When the
// controller reports a volatile write cache (Identify VWC bit 0, read by the
// driver), the written-back region is followed, as Linux's blkdev_fsync
// does, by one NVMe Flush submitted on the job's core (the job's thread is
// woken to send it when the last write-back completed elsewhere), and the
// fsync ends when the Flush completes; without one (today's firmware), no
// Flush is sent, as Linux sends none.
//
// A buffered I/O's record (HostCore marks it): host_submit while its thread
// is in access() and submits what it started, cache_wait until the cache
// hands it back in Work::done (pages read in, the throttle lifted), wakeup
// until its thread takes it.
//
// FastDrain (host.pagecache.fastdrain = on): write-back commands carry
// CDW2 bit 8 and, in CDW3, the dirty pages when their write-back round began;
// the thresholds start at the low set and a completion reporting the device
// buffer full switches to the high set, one reporting it drained back.
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <vector>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/block/IoRequest.hpp"

namespace vp::host {

class HostBlockDriver;
class FioJobRunner;

class PageCache {
 public:
  static constexpr uint32_t kPageSize = 4096;
  static constexpr const char* kScope = "host.pagecache";
  static void declare_params(const ParamScope& p);

  // What an entry point leaves for the calling core to do: kernel CPU time,
  // device I/O to submit (each inner list one run of contiguous pages, one
  // submission), and application I/Os and fsyncs that have finished.
  struct Work {
    Tick cpu = 0;
    std::vector<std::vector<IoRequest*>> runs;
    std::vector<IoRequest*> done;
    std::vector<FioJobRunner*> synced;
    // fsync Flushes to submit, each by its fsyncing job (first).
    std::vector<std::pair<FioJobRunner*, IoRequest*>> flushes;
  };

  // `memory`: where the page frames come from.
  PageCache(Services& svc, HostMemoryAllocator& memory, const std::string& scope = kScope);

  // Takes its frames from host memory once the driver is up (only if a
  // buffered job will use them).
  void begin(HostBlockDriver& drv, bool needed);
  bool active() const { return active_; }

  // A buffered read or write of job r.job issued on `core`: finishes in
  // w.done now, or later out of completed() / pump().
  void access(IoRequest& r, unsigned core, Tick now, Work& w);
  // Writes back the job's region and waits for it (the job is synced in
  // w.synced, now or later).
  void fsync(FioJobRunner& job, unsigned core, Tick now, Work& w);
  // A device command of the cache (one of its page requests) completed.
  void completed(IoRequest& r, Tick now, Work& w);
  // The buffer status a completion reported (FastDrain ratio switch).
  void observe_status(uint32_t result, Tick now, Work& w);
  // Wakes the flusher core (set by the platform).
  std::function<void()> kick;

  // The flusher (core 0): is there write-back to do at `now`, and when may
  // there be next without anything else happening (kNever: only on a kick).
  bool flusher_due(Tick now) const;
  Tick flusher_next() const;
  void flusher_run(Tick now, Work& w);

  uint64_t background_limit() const { return bg_pages_; }
  uint64_t dirty_limit() const { return hard_pages_; }
  uint64_t dirty_pages() const { return nr_dirty_; }
  uint64_t writeback_pages() const { return nr_writeback_; }
  nlohmann::json summary() const;

 private:
  struct Page {
    uint64_t index = 0;  // page of the device (byte offset / 4 KiB)
    bool present = false, uptodate = false, reading = false, dirty = false, writeback = false, ra_mark = false;
    uint8_t attr = 0;
    Tick dirtied = 0;
    uint32_t pins = 0;  // reads waiting for this page's neighbours
    bool in_lru = false;
    std::list<uint32_t>::iterator lru;
    IoRequest io;
  };
  struct ReadWait {
    IoRequest* r;
    uint64_t first, n;
  };
  struct Blocked {
    IoRequest* r;
    unsigned core;
    Tick since;
    bool throttled;
  };
  struct FsyncWait {
    FioJobRunner* job;
    unsigned core;
    uint64_t lo, hi;  // pages of the job's region
    bool flushing = false;  // written back; its Flush is in flight
    IoRequest flush{};
  };
  struct Readahead {
    uint64_t start = 0, size = 0, async = 0;
    uint64_t prev = ~uint64_t(0);  // last page of the previous read
  };

  Page* find(uint64_t index);
  bool reserve(uint64_t frames);   // free frames (evicting clean pages); false if impossible
  uint32_t take_frame(uint64_t index);
  void lru_add(Page& p);
  void lru_remove(Page& p);
  bool try_read(IoRequest& r, bool count, Work& w);
  bool try_write(IoRequest& r, Tick now, Work& w);
  void finish_read(IoRequest& r, uint64_t first, uint64_t n, bool pinned, Work& w);
  void readahead(FioJobRunner* job, uint64_t index, uint64_t req, bool marker, uint64_t end, Work& w);
  void read_pages(uint64_t start, uint64_t n, uint64_t end, uint64_t mark, uint8_t attr, Work& w);
  void start_io(Page& p, bool write, Work& w);
  // One write-back run around writable dirty page `index` (within [lo, hi)).
  void writeback_run(uint64_t index, uint64_t lo, uint64_t hi, uint32_t event_dirty, Work& w);
  void writeback_range(uint64_t lo, uint64_t hi, Work& w);
  void make_dirty(Page& p, uint8_t attr, Tick now);
  void set_ratios(bool high);
  void pump(Tick now, Work& w);
  // The fsync's region is written back: synced now (true), or its Flush is
  // in w.flushes (false).
  bool written_back(FsyncWait& f, Tick now, Work& w);
  void note_high_water();

  ScopedConfig cfg_;
  StatGroup stats_;
  HostMemoryAllocator& memory_;
  HostBlockDriver* drv_ = nullptr;
  bool active_ = false;
  uint64_t capacity_;  // pages
  uint64_t dirtyable_;  // pages the dirty ratios are of (Linux's dirtyable memory)
  Tick hit_cost_, write_cost_, expire_, interval_;
  uint64_t ra_init_, ra_max_;  // pages
  bool fastdrain_;
  unsigned ratio_bg_, ratio_hard_;
  bool high_set_ = false;
  uint64_t bg_pages_ = 0, hard_pages_ = 0;
  uint32_t lba_per_page_ = 1, max_pages_ = 1;
  uint64_t base_ = 0;
  std::vector<Page> frames_;
  std::vector<uint32_t> free_;
  std::unordered_map<uint64_t, uint32_t> map_;
  std::list<uint32_t> lru_;  // clean pages, least recently used first
  std::set<std::pair<Tick, uint64_t>> writable_;  // dirty, not under write-back: (dirtied, page)
  std::set<uint64_t> dirty_idx_, wb_idx_;
  uint64_t nr_dirty_ = 0, nr_writeback_ = 0;
  std::unordered_map<const FioJobRunner*, Readahead> ra_;
  std::list<ReadWait> reads_;
  std::list<Blocked> blocked_;
  std::list<FsyncWait> fsyncs_;
  bool tick_armed_ = false, old_pending_ = false;
  Tick tick_at_ = 0, old_cutoff_ = 0;
  // The statistics it registers, named in its scope (a group, as gem5's).
  struct Stats {
    explicit Stats(const StatGroup& stats);
    Counter &hits, &misses, &ra_pages, &ra_windows, &evictions, &dirtied, &high_water, &wb_runs, &wb_pages,
        &wb_background, &wb_periodic, &wb_fsync, &throttles, &throttle_ps, &fsyncs_done, &ratio_switches,
        &io_errors, &victim_tagged;
  };
  Stats st_;
};

}  // namespace vp::host
