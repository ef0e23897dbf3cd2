// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Page-level FTL: every logical page (one flash page) maps to any physical
// page; writes go out of place.
//
// Allocation: host writes stripe over allocation units (planes) in the
// configured channel/die/plane order; with translation shards (DeepFlash's
// TRANS) a logical page belongs to the shard picked by a modulo or XOR hash,
// and each shard writes either its own channels or its own blocks on every
// plane (block-interleaved). The latency-aware allocator (FastDrain FD-FTL)
// serves urgent writes from LSB pages across planes and fills the CSB/MSB
// pages of those blocks with background writes.
//
// Garbage collection per plane: greedy or cost-benefit victims, foreground
// when free blocks fall under a threshold (writes to that plane wait),
// background after an idle time; valid pages move by copy-back or
// read+program as background flash work that host reads overtake. Wear
// leveling: free blocks are taken least-erased first, and a plane whose
// erase-count spread passes a threshold migrates its coldest block.
//
// Journaling: each page's spare area records its logical page and a write
// sequence number; a periodic checkpoint saves the dirty parts of the map to
// reserved blocks. After a power loss the map is rebuilt from the last
// checkpoint plus a scan of the spare areas written since.
//
// Preconditioning sets up a used drive without simulating time: a
// sequential fill is kept as a rule (no memory per page), a random fill or
// ageing runs the allocator and GC functionally. Contents given before the
// run (an image file) are written the way ageing writes, after it.
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Services.hpp"
#include "vp/ssd/BlockManager.hpp"
#include "vp/ssd/MappingCache.hpp"
#include "vp/ssd/MappingTable.hpp"
#include "vp/ssd/SequentialLayout.hpp"
#include "vp/ssd/ShardHash.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class PageMappingFtl : public sc_core::sc_module, public IFtl, public flash::FlashClient {
 public:
  sc_core::sc_export<IFtl> target;
  sc_core::sc_port<flash::IFlash> flash;
  // The SSD DRAM holding the mapping table: every host lookup and update of
  // an entry is a 4-byte access to it before the flash command goes out.
  // Optional: unbound (unit rigs), the map costs no time.
  sc_core::sc_port<ISsdDram, 1, sc_core::SC_ZERO_OR_MORE_BOUND> dram;

  static void declare_params(ParamRegistry& reg);
  // Logical capacity the configuration gives.
  static uint64_t logical_pages_for(const Config& cfg);
  // How the configuration splits the logical space into translation shards.
  static ShardMap shard_map_from(const Config& cfg);

  PageMappingFtl(sc_core::sc_module_name name, Services& svc);
  ~PageMappingFtl() override;

  void submit(FtlRequest& r) override;
  uint64_t logical_pages() const override { return logical_pages_; }
  uint32_t page_size() const override { return geo_.page_size; }
  MediaHealth health() const override;
  void flash_done(flash::FlashTransaction& t) override;

  // Power is cut now: flash work in flight is lost, the FTL's DRAM is gone,
  // requests in flight never complete.
  void power_loss();
  // Rebuilds the FTL from flash (checkpoint + spare-area scan), as at boot.
  void recover();
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
  flash::FlashAddress where(uint64_t lpn) const { return flash::address_of(geo_, map_.get(lpn)); }  // mapped pages only
  nlohmann::json summary() const;
  uint64_t events() const { return eq_.fired(); }
  uint64_t host_bytes() const { return map_.host_bytes() + blocks_.host_bytes(); }
  // DRAM the map takes (ssd.ftl.map_table_bytes: the flat table, or the
  // cached pages plus their directory); the platform reserves it in the DRAM
  // it binds `dram` to and gives the FTL its base.
  uint64_t map_dram_bytes() const { return map_bytes_.value; }
  void set_map_base(uint64_t base) { map_base_ = base; }

 private:
  struct GcJob;
  struct Checkpoint;
  struct TpLoad;
  struct TpWrite;
  struct Waiting {
    FtlRequest* r;
    uint32_t next;   // first page not yet issued
    uint64_t plane;  // where it waits for a free block
  };
  enum class Alloc : uint8_t { Sequential, LsbSkip, LsbGroup };

  void end_of_elaboration() override;
  void precondition();
  void functional_write(uint32_t lpn, const uint8_t* data);  // ageing and loading: no simulated time
  void start_checkpoint_timer();

  // Allocation.
  uint64_t plane_of_unit(uint64_t unit) const { return unit_plane_[unit]; }
  uint32_t to_ppn(uint64_t block, uint32_t page) const {
    return static_cast<uint32_t>(block * geo_.pages_per_block + page);
  }
  bool open_block(uint64_t plane, int64_t& slot, bool for_gc);
  bool alloc_host(uint32_t lpn, bool urgent, uint64_t& ppn);
  // The page allocators: the logical page goes into the spare area by the
  // program, so they only pick where.
  bool alloc_in_plane(uint64_t plane, uint32_t shard, bool urgent, uint64_t& ppn);
  bool alloc_lsb(uint64_t plane, uint64_t& ppn);
  bool alloc_upper(uint64_t plane, uint64_t& ppn);
  bool alloc_gc(uint64_t plane, uint64_t& ppn);
  void place(uint64_t block, uint32_t page);
  void close_if_full(uint64_t block);
  void remap(uint32_t lpn, uint32_t ppn);  // host write or trim: the old copy becomes invalid
  void map_set(uint32_t lpn, uint32_t ppn);
  // The logical page in a physical page's spare area: what GC reads with the page.
  uint32_t lpn_at(uint64_t ppn) const;
  uint64_t ppn_of(const flash::FlashAddress& a) const { return flash::ppn_of(geo_, a); }
  uint32_t next_seq() { return ++seq_; }

  // Host requests.
  void translated(FtlRequest& r);  // its translation pages are in DRAM: issue it
  void issue_writes(FtlRequest& r, uint32_t from);
  void retry_waiting();
  // When the map entry of `lpn`, looked up or updated now, is read or written.
  Tick map_access(uint64_t lpn, bool update);
  // Sends `t` to the flash at `when` (now or later), unless power is lost before.
  void submit_at(Tick when, flash::FlashTransaction& t);
  // Keeps `r` from completing before `when`.
  void hold_until(Tick when, FtlRequest& r);
  void request_done(FtlRequest& r);
  void host_activity();

  // Garbage collection and wear leveling.
  bool pick_victim(uint64_t plane, uint64_t& victim) const;
  void maybe_gc(uint64_t plane, bool background);
  void start_job(uint64_t plane, uint64_t victim, bool wear, bool background);
  void job_txn_done(GcJob& j, flash::FlashTransaction& t);
  void job_erase(GcJob& j);
  void job_erased(GcJob& j);
  void check_wear(uint64_t plane);
  void gc_functional(uint64_t plane);
  void schedule_background();

  // Cached mapping table.
  void tp_load(uint32_t tp, FtlRequest* r, bool write_back);
  void tp_loaded(TpLoad& l);
  void tp_insert(uint32_t tp);
  void tp_dirty(uint64_t lpn);
  void tp_write_back(uint32_t tp);

  // Journaling.
  void take_checkpoint(bool timed);
  void checkpoint_step();

  flash::FlashGeometry geo_;
  Services& svc_;
  EventQueue eq_;
  uint64_t planes_, logical_pages_, epp_, tps_;  // translation pages: entries per page, count
  std::vector<uint64_t> unit_plane_;               // stripe order -> physical plane
  uint32_t shards_;
  bool xor_hash_, channel_partition_;
  std::vector<std::vector<uint64_t>> shard_units_;  // units each shard writes
  std::vector<uint32_t> shard_rr_;
  Alloc alloc_;
  uint64_t lsb_limit_pages_;
  bool greedy_, copyback_, preemptible_;
  uint32_t fg_threshold_, bg_threshold_, gc_reserve_, wl_threshold_, ckpt_blocks_;
  Tick bg_idle_, ckpt_interval_;
  bool ckpt_when_idle_ = false, ckpt_paused_ = false;

  MappingTable map_;
  BlockManager blocks_;
  std::vector<int64_t> host_open_;  // per shard x plane
  std::vector<int64_t> gc_open_;    // per plane
  std::vector<std::vector<uint64_t>> lsb_blocks_;  // per plane: blocks opened for LSB-only writes
  uint64_t lsb_only_pages_ = 0;
  std::vector<std::unique_ptr<GcJob>> jobs_;  // per plane, null when idle
  std::deque<Waiting> waiting_;
  std::unordered_map<uint32_t, std::pair<const uint8_t*, uint32_t>> writing_;  // lpn -> newest data, programs
  uint32_t seq_ = 0;
  uint64_t outstanding_ = 0, activity_ = 0, epoch_ = 0, blocked_plane_ = 0;
  bool bg_scheduled_ = false, powered_ = true;
  uint64_t map_base_ = 0;
  std::unique_ptr<RandomPermutation> order_;  // of a random preconditioning
  std::unique_ptr<SequentialLayout> layout_;  // where preconditioning put the pages
  bool has_rule_ = false;
  uint64_t pre_writes_ = 0, pre_moved_ = 0, loaded_ = 0;
  std::function<void()> at_start_;
  std::unique_ptr<MappingCache> cmt_;
  std::unordered_map<uint32_t, std::unique_ptr<TpLoad>> loading_;
  std::vector<uint8_t> scratch_, zero_page_;

  // What survives a power loss besides the flash: the last committed checkpoint.
  std::unique_ptr<Checkpoint> ckpt_, ckpt_pending_;
  std::vector<bool> dirty_chunks_;
  std::vector<uint64_t> ckpt_blocks_list_;
  uint64_t ckpt_cursor_ = 0, ckpt_todo_ = 0;
  flash::FlashTransaction ckpt_txn_;
  bool ckpt_erased_ = false;

  uint64_t free_blocks_signal_ = 0, gc_active_signal_ = 0;
  Counter &host_reads_, &host_writes_, &unmapped_reads_, &map_bytes_, &trimmed_, &gc_runs_, &gc_bg_runs_,
      &gc_moved_, &gc_copybacks_, &wl_runs_, &wasted_, &urgent_pages_, &lsb_urgent_, &waits_, &ckpts_,
      &ckpt_pages_, &recoveries_, &replayed_, &min_free_, &cmt_hits_, &cmt_misses_, &map_reads_, &map_writes_;
};

}  // namespace vp::ssd
