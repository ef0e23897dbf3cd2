// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Page-level FTL: every logical page (one flash page) maps to any physical
// page; writes go out of place. A façade over its parts (as MQSim's FTL):
//   PageAllocator      where host and GC writes go (stripes, shards, LSB groups)
//   GarbageCollector   GC and wear leveling, one job per plane
//   FtlMapping         the map in SSD DRAM: FlatMapping or CachedMapping (DFTL)
//   FtlJournal         checkpoints, and recovery after a power loss
//   Preconditioner     a used drive set up without simulated time
// which share FtlState (geometry, map, blocks, write sequence, flash). The
// façade serves host requests: translation, reads, writes and their waits
// for free blocks, trims.
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/RecycledNodes.hpp"
#include "vp/core/Services.hpp"
#include "vp/ssd/ftl/CachedMapping.hpp"
#include "vp/ssd/ftl/FtlJournal.hpp"
#include "vp/ssd/ftl/FtlMapping.hpp"
#include "vp/ssd/ftl/FtlState.hpp"
#include "vp/ssd/ftl/GarbageCollector.hpp"
#include "vp/ssd/ftl/PageAllocator.hpp"
#include "vp/ssd/ftl/precondition/Preconditioner.hpp"
#include "vp/ssd/ShardHash.hpp"
#include "vp/ssd/SsdInterfaces.hpp"
#include "vp/ssd/ftl/SubPageFlash.hpp"

namespace vp::ssd {

class PageMappingFtl : public sc_core::sc_module, public IFtl, public flash::FlashClient {
 public:
  sc_core::sc_export<IFtl> target;
  sc_core::sc_port<flash::IFlash> flash;
  // The SSD DRAM holding the mapping table: every host lookup and update of
  // an entry is a 4-byte access to it before the flash command goes out.
  // Optional: unbound (unit rigs), the map costs no time.
  sc_core::sc_port<ISsdDram, 1, sc_core::SC_ZERO_OR_MORE_BOUND> dram;

  static constexpr const char* kScope = "ssd.ftl";
  // Preconditioning is configured beside the FTL, not inside it.
  static constexpr const char* kPreconditionScope = "ssd.precondition";
  // Parameters relative to the FTL's scope; the rules joining them to the
  // flash are the drive's.
  static void declare_params(const ParamScope& ftl);
  // Logical capacity (mapping units) the FTL's parameters give on flash of geometry `g`.
  static uint64_t logical_pages_for(const ScopedConfig& ftl, const flash::FlashGeometry& g);
  // Mapping units a flash page of `g` holds (ssd.ftl.map_unit; 1: page mapping).
  static uint32_t units_per_page(const ScopedConfig& ftl, const flash::FlashGeometry& g);
  // The flash of geometry `g` as the FTL addresses it: by mapping unit.
  static flash::FlashGeometry geometry_for(const ScopedConfig& ftl, const flash::FlashGeometry& g);
  // How the configuration splits the logical space into translation shards.
  static ShardMap shard_map_from(const ScopedConfig& ftl);

  // `geometry`: of the flash the platform binds `flash` to (checked at
  // the end of elaboration); it sizes the map and blocks from the start.
  // `precondition_scope`: where the preconditioning's keys are.
  PageMappingFtl(sc_core::sc_module_name name, Services& svc, const flash::FlashGeometry& geometry,
                 const std::string& scope = kScope, const std::string& precondition_scope = kPreconditionScope);
  ~PageMappingFtl() override;

  void submit(FtlRequest& r) override;
  uint64_t logical_pages() const override { return s_.logical_pages; }
  uint32_t page_size() const override { return s_.geo.page_size; }
  void prefetch(uint64_t lpn, uint32_t pages) const override {
    s_.map.prefetch(lpn);
    if (pages > 1) s_.map.prefetch(lpn + pages - 1);
  }
  void prefetch_overwrite(uint64_t lpn, uint32_t pages) const override {
    prefetch_block_of(lpn);
    if (pages > 1) prefetch_block_of(lpn + pages - 1);
  }
  MediaHealth health() const override;
  void flash_done(flash::FlashTransaction& t) override;

  // What a power cut now would interrupt (the power-loss report's "during").
  struct InFlight {
    uint32_t gc_jobs = 0;        // planes whose GC is moving pages
    bool checkpoint = false;     // a checkpoint taken and not yet committed
    uint64_t host_programs = 0;  // host pages being programmed
  };
  InFlight in_flight() const;
  // Power is cut now: flash work in flight is lost, the FTL's DRAM is gone,
  // requests in flight never complete.
  void power_loss();
  // Rebuilds the FTL from flash (checkpoint + spare-area scan), as at boot.
  void recover();
  // Blocks the last recovery read page by page.
  uint64_t recovery_scanned_blocks() const { return journal_.scanned_blocks(); }
  // Functional read of a logical page as a host read would now see it: the
  // data of a write still being programmed, else the mapped page (false:
  // unmapped, zeros).
  bool debug_read(uint64_t lpn, uint8_t* page) const;
  // Contents written before the run without simulated time (an image file):
  // `fn` runs once the FTL is set up, after preconditioning and before the
  // first checkpoint, and calls load_page().
  void at_start(std::function<void()> fn) { at_start_ = std::move(fn); }
  // Writes a logical page (page_size bytes) as preconditioning's overwrites
  // do: allocated like a host write, its spare area naming it, GC run
  // functionally when a plane runs short. Only from the at_start hook.
  void load_page(uint64_t lpn, const uint8_t* data);
  // Calls fn(lpn) in increasing order, for lpn < `limit`, on every logical
  // page that may hold something other than zeros: the mapped pages of map
  // chunks changed since boot. The others are unmapped, or where
  // preconditioning laid them out, holding zeros.
  void for_each_written(uint64_t limit, const std::function<void(uint64_t lpn)>& fn) const;
  uint32_t shard_of(uint64_t lpn) const;
  // Where a mapped logical unit is: its page (and, with sub-page mapping, `unit` its place in the page).
  flash::FlashAddress where(uint64_t lpn, uint32_t* unit = nullptr) const {
    const uint32_t at = s_.map.get(lpn);
    if (unit) *unit = at % s_.units_per_page();
    return flash::address_of(s_.page_geo, at / s_.units_per_page());
  }
  uint32_t units_per_page() const { return s_.units_per_page(); }
  uint32_t valid_pages(uint64_t block) const { return s_.blocks[block].valid; }  // pages the map points at
  nlohmann::json summary() const;
  uint64_t events() const { return eq_.fired(); }
  uint64_t host_bytes() const { return s_.map.host_bytes() + s_.blocks.host_bytes(); }
  // DRAM the map takes (ssd.ftl.map_table_bytes: the flat table, or the
  // cached pages plus their directory); the platform reserves it in the DRAM
  // it binds `dram` to and gives the FTL its base.
  uint64_t map_dram_bytes() const { return map_bytes_.value; }
  void set_map_base(uint64_t base) { map_base_ = base; }

 private:
  struct Waiting {
    FtlRequest* r;
    uint32_t next;   // first page not yet issued
    uint64_t plane;  // where it waits for a free block
  };
  // The parts' callbacks, kept off the public interface.
  struct Callbacks : MappingClient, GcClient {
    PageMappingFtl& ftl;
    explicit Callbacks(PageMappingFtl& f) : ftl(f) {}
    void translated(FtlRequest& r) override { ftl.translated(r); }
    void write_map_page(FtlRequest& r) override { ftl.submit(r); }
    bool writes_waiting() const override { return !ftl.waiting_.empty(); }
    void retry_writes() override { ftl.retry_waiting(); }
  };

  void end_of_elaboration() override;
  // A hint: the block record of the page `lpn` maps to now, which an
  // overwrite of `lpn` updates.
  void prefetch_block_of(uint64_t lpn) const {
    if (lpn >= s_.map.size()) return;
    const uint32_t old = s_.map.get(lpn);
    if (old != MappingTable::kUnmapped) s_.blocks.prefetch(s_.block_of(old));
  }

  void translated(FtlRequest& r);  // its translation pages are in DRAM: issue it
  // Sub-page mapping: a host unit went into `unit`'s page; a page left
  // partly filled is padded ssd.ftl.pack_wait later.
  void unit_placed(uint64_t unit);
  void arm_padding();
  void issue_writes(FtlRequest& r, uint32_t from);
  void retry_waiting();
  // When the map entry of `lpn`, looked up or updated now, is read or written.
  Tick map_access(uint64_t lpn, bool update);
  // Sends `t` to the flash at `when` (now or later), unless power is lost before.
  void submit_at(Tick when, flash::FlashTransaction& t);
  // Keeps `r` from completing before `when`.
  void hold_until(Tick when, FtlRequest& r);
  void request_done(FtlRequest& r);

  ScopedConfig cfg_;
  StatGroup stats_;
  EventQueue eq_;
  const Tick pack_wait_;
  FtlState s_;
  Callbacks callbacks_{*this};
  MapCacheStats map_cache_stats_;
  std::unique_ptr<FtlMapping> mapping_;
  PageAllocator alloc_;
  GarbageCollector gc_;
  FtlJournal journal_;
  Preconditioner pre_;
  ShardMap shards_;
  std::deque<Waiting> waiting_;
  std::unordered_map<uint32_t, std::pair<const uint8_t*, uint32_t>> writing_;  // lpn -> newest data, programs
  RecycledNodes<decltype(writing_)> writing_nodes_;
  std::unique_ptr<SubPageFlash> sub_page_;                 // the flash by unit, with sub-page mapping
  std::unordered_map<uint64_t, uint64_t> open_pages_;      // pages partly filled by host units -> the last unit
  std::deque<std::pair<uint64_t, Tick>> pad_due_;          // those pages, when each is padded
  uint64_t map_base_ = 0;
  std::function<void()> at_start_;
  Counter &host_reads_, &host_writes_, &unmapped_reads_, &map_bytes_, &trimmed_, &urgent_pages_, &waits_;
};

}  // namespace vp::ssd
