// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The SSD's DRAM cache between the firmware and the FTL (FlashShare OSDI'18
// sec. 4.2, DeepFlash FAST'20 sec. 4.3, FastDrain CAL'20 sec. 3): a
// set-associative page cache (CacheTags) holding real page data in the
// SSD's DRAM, write-back, with the organisation (CachePolicy) deciding which
// ways a request's class may fill and read and how much a read miss
// prefetches.
//
// Reads: a hit costs a DRAM read of the page; misses go to the FTL in runs
// of consecutive pages (plus the prefetch after the request's last page)
// and are installed when they return (a DRAM write each). Writes: into the
// cache (a DRAM write each) and complete at once; with force unit access or
// the host's write cache switched off they also go through to the FTL and
// complete when it has them. A replaced dirty line is copied out (a DRAM
// read) and written to the FTL; until that write completes, reads of its
// page are served from the copy (the non-blocking lookup of DeepFlash's
// evicted-LPN field) and another eviction of the same page waits for it, so
// the FTL never holds two writes of one page at once. Flush writes back
// every dirty line and completes when they, and every eviction before it,
// are on flash. `none` passes every request straight to the FTL.
//
// An organisation plugs into two slots, chosen once at elaboration: a
// CachePolicy places pages (which ways a class fills and reads, prefetch),
// a WriteBufferPolicy handles written data. Three organisations are write
// buffers, whose read misses go to the FTL without being cached:
// `bulk` (BulkFlushBuffer: a conventional buffer that flushes a bulk of
// dirty data when a write finds it full), `fastdrain` (FastDrainBuffer: watermarks, background and foreground
// drains, buffer status in every completion) and `burst` (BurstBuffer:
// direct mapped, a write to an entry still being evicted goes to the FTL).
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "vp/core/Hook.hpp"
#include "vp/core/ObjectPool.hpp"
#include "vp/core/EventQueue.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/ssd/cache/CachePolicy.hpp"
#include "vp/ssd/cache/CacheTags.hpp"
#include "vp/ssd/SsdInterfaces.hpp"
#include "vp/ssd/buffer/WriteBufferLevel.hpp"
#include "vp/ssd/buffer/WriteBufferPolicy.hpp"

namespace vp::ssd {

class CacheLayer : public sc_core::sc_module, public IFtl, public FtlClient, public IPowerDrain, private CacheLines {
 public:
  sc_core::sc_export<IFtl> target;
  sc_core::sc_export<IPowerDrain> power;  // what power-loss protection drains
  sc_core::sc_port<IFtl> ftl;
  sc_core::sc_port<ISsdDram> dram;

  static constexpr const char* kScope = "ssd.cache";
  static void declare_params(const ParamScope& p);
  // `line_bytes`: a line holds one mapping unit of the FTL below (a flash
  // page); the platform that binds `ftl` knows it. `write_buffer_bytes`:
  // the drive's write buffer, which holds the write-back caches' copies on
  // their way to flash. `stripe_pages`: one page for every plane of the
  // drive (a conventional buffer's bulk flush).
  CacheLayer(sc_core::sc_module_name name, Services& svc, uint32_t line_bytes, uint64_t write_buffer_bytes,
             uint64_t stripe_pages, const std::string& scope = kScope);
  ~CacheLayer() override;

  void submit(FtlRequest& r) override;
  uint64_t logical_pages() const override { return ftl->logical_pages(); }
  uint32_t page_size() const override { return ftl->page_size(); }
  void prefetch(uint64_t lpn, uint32_t pages) const override { ftl->prefetch(lpn, pages); }
  void prefetch_overwrite(uint64_t lpn, uint32_t pages) const override { ftl->prefetch_overwrite(lpn, pages); }
  MediaHealth health() const override { return ftl->health(); }
  // Under power-loss protection the write cache is not volatile (NVMe VWC 0).
  bool volatile_write_cache() const override { return enabled_ && !protected_; }
  bool buffers_writes() const override { return enabled_; }
  void set_write_cache(bool on) override;
  void set_power_protected(bool on) { protected_ = on; }
  void drain(std::function<void()> drained) override;
  std::vector<uint64_t> undrained_pages() const override;
  // Each page write the FTL completed (evictions, write-backs,
  // write-throughs): that data is on flash now.
  Hook<uint64_t /*lpn*/, const uint8_t* /*data*/> on_persisted;
  bool cached(uint64_t lpn, uint32_t pages) const override;
  void ftl_done(FtlRequest& r) override;

  uint64_t events() const { return eq_.fired(); }
  // The SSD DRAM the cache's lines take, and where the platform put them.
  uint64_t dram_bytes() const { return tags_ ? tags_->lines() * page_ : 0; }
  // SSD DRAM of the drive's write buffer this organisation uses (the
  // write-back caches'; 0 for none and the write buffers, whose lines are their buffer).
  uint64_t write_buffer_dram_bytes() const { return write_buffer_bytes_; }
  void set_base(uint64_t base) { base_ = base; }
  const CacheTags* tags() const { return tags_.get(); }
  const CachePolicy* policy() const { return policy_.get(); }
  // The adaptive organisations' epochs up to `now` (cache_epochs.csv); empty for the others.
  std::vector<CacheEpoch> epochs(Tick now) const { return policy_ ? policy_->epochs(now) : std::vector<CacheEpoch>{}; }
  // The run's cache files in `dir`: write_buffer.csv (fastdrain) and, if
  // `epochs`, cache_epochs.csv (uni, uni-dyn, split).
  void write_outputs(const std::string& dir, bool epochs) const;
  // Functional read of a page as the cache holds it (its line or an
  // eviction copy); false: not in the cache.
  bool peek(uint64_t lpn, uint8_t* page) const;
  // FastDrain's buffer level and its series (null for other organisations).
  const WriteBufferLevel* buffer_level() const { return buffer_->level(); }

 private:
  struct Host;   // a host request waiting for its misses and write-throughs
  struct Child;  // a request of this layer to the FTL
  void end_of_elaboration() override;
  void read(FtlRequest& r);
  void prefetch_after(const FtlRequest& r, CacheClass c, std::vector<Child*>& out);
  void write(FtlRequest& r);
  void flush(FtlRequest& r);
  void trim(FtlRequest& r);
  void pass_down(FtlRequest& r);
  bool evicting_any(uint64_t lpn, uint32_t pages) const;
  void queue_write(uint64_t lpn, const uint8_t* data, const uint8_t* copy, Host* h,
                   CacheDrain mode = CacheDrain::None);
  Child& child(int kind, Host* h, IoOp op, uint64_t lpn, uint32_t pages, uint8_t* data);
  // Frees `line` for lpn: a dirty page is copied out and written to the FTL.
  void evict(int64_t line, Tick now);
  // `mode`: who asked (FastDrain's background or foreground eviction, or neither).
  void write_back(int64_t line, Tick now, bool keep, CacheDrain mode = CacheDrain::None);
  void issue_eviction(uint64_t lpn);
  void install(uint64_t lpn, const uint8_t* data, CacheClass c, bool prefetched, Tick& ready);
  // A miss or prefetch of pages [lpn, lpn + pages) is on its way from flash.
  void begin_fill(uint64_t lpn, uint32_t pages);
  // Page `lpn` came back from flash with `data`, in the cache by `ready`:
  // the reads that waited for it get it; false if none did.
  bool end_fill(uint64_t lpn, const uint8_t* data, Tick ready);
  void host_part_done(Host& h, Tick at);
  void check_flushes();
  // CacheLines: what the write-buffer policy asks of the layer.
  void drain_line(int64_t line, CacheDrain mode) override;
  bool host_work_at_ftl() const override;
  void write_now(FtlRequest& r) override;
  uint8_t* frame(int64_t line);
  uint64_t frame_addr(int64_t line) const { return base_ + uint64_t(line) * page_; }
  static CacheClass class_of(const FtlRequest& r) { return r.attr ? CacheClass::Latency : CacheClass::Throughput; }

  ScopedConfig cfg_;
  StatGroup stats_;
  EventQueue eq_;
  enum class Organisation { None, Uni, UniDyn, Split, Bulk, FastDrain, Burst };
  Organisation organisation_;
  bool enabled_;  // a cache organisation, and the host has not switched it off
  bool protected_ = false;  // the drive's hold-up power drains the cache when the host's power fails
  std::function<void()> drained_;  // draining for a power failure: called once the last buffered page is written
  uint64_t bytes_;
  uint32_t ways_, page_ = 0;
  uint64_t base_ = 0;
  std::unique_ptr<CacheTags> tags_;
  std::unique_ptr<CachePolicy> policy_;
  std::vector<std::unique_ptr<uint8_t[]>> frames_;  // page data per line, allocated on first fill
  std::vector<bool> prefetched_;  // line filled by a prefetch and not yet used
  bool fill_reads_ = true;        // read misses are installed (not in the write buffers)
  // The organisation's handling of written data (a write buffer's engine, or plain write-back).
  std::unique_ptr<WriteBufferPolicy> buffer_;
  uint64_t write_buffer_bytes_ = 0;
  uint64_t host_at_ftl_ = 0;           // host work of this layer at the FTL (misses, pass-downs, write-throughs)
  // Writes of pages to the FTL in flight, by page, in order; later ones of a page wait.
  struct Eviction {
    std::vector<uint8_t> copy;  // a line's data, copied out
    const uint8_t* data;        // what is written: the copy or the host's buffer
    uint64_t seq;
    Host* host;  // a write-through's host request, completed with it
    bool buffered;  // a line's copy: part of the buffer's level until on flash
    CacheDrain mode;
  };
  std::map<uint64_t, std::deque<Eviction>> evicting_;
  std::set<uint64_t> writes_out_;  // sequence numbers of write-backs and evictions not yet on flash
  uint64_t seq_ = 0;
  struct FlushWait {
    FtlRequest* r;
    uint64_t upto;
  };
  std::vector<FlushWait> flushes_;
  std::vector<FtlRequest*> trims_;  // waiting for evictions of their pages
  // Pages a miss or prefetch is reading from flash, and the host reads
  // that came meanwhile and wait for that fill (hit-under-miss) instead of
  // reading the page again.
  struct FillWaiter {
    Host* host;
    uint8_t* dst;
  };
  std::unordered_map<uint64_t, std::vector<FillWaiter>> filling_;
  // Requests in flight: their parts at the FTL and the host requests waiting for them.
  ObjectPool<Child> children_;
  ObjectPool<Host> hosts_;
  Counter *hits_[2], *misses_[2], *whits_[2], *wmisses_[2];
  // The statistics it registers, named in its scope (a group, as gem5's).
  struct Stats {
    explicit Stats(const StatGroup& stats);
    Counter &prefetched_pages, &prefetch_hits, &dirty_evictions, &clean_evictions, &write_backs,
        &eviction_copy_hits, &bypasses, &write_throughs, &inflight_hits;
  };
  Stats st_;
};

}  // namespace vp::ssd
