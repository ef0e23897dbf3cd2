// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where the page-mapping FTL writes (MQSim's block allocation): host writes
// stripe over allocation units (planes) in the configured channel/die/plane
// order; with translation shards a logical page belongs to its shard, and
// each shard writes either its own channels or its own blocks on every plane
// (block-interleaved). The latency-aware allocator (FastDrain FD-FTL) serves
// urgent writes from LSB pages across planes and fills the CSB/MSB pages of
// those blocks with background writes. GC writes into a block of its own per
// plane. The allocators only pick the page: the logical page goes into the
// spare area by the program.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "vp/core/Counter.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/core/Waves.hpp"
#include "vp/ssd/ftl/FtlState.hpp"
#include "vp/ssd/ShardHash.hpp"

namespace vp::ssd {

class PageAllocator {
 public:
  // Parameters in the FTL's scope (ssd.ftl).
  static void declare_params(const ParamScope& ftl);

  PageAllocator(FtlState& s, const ScopedConfig& ftl, const ShardMap& shards, const StatGroup& stats, Waves& waves);

  // A page for logical page `lpn` written by the host; false when its plane
  // has no free block left for host writes (blocked_plane() names it).
  bool alloc_host(uint32_t lpn, bool urgent, uint64_t& ppn);
  // A page for a GC migration in `plane` (GC may take the last free block).
  bool alloc_gc(uint64_t plane, uint64_t& ppn);
  uint64_t blocked_plane() const { return blocked_plane_; }
  // Sub-page mapping: closes the page of unit `last`, the last unit placed
  // in it; the units after it stay empty and, when `timed`, go to the flash
  // as padding (as `use`), which completes the page's program. Returns them.
  uint32_t pad(uint64_t last, bool timed, flash::FlashUse use = flash::FlashUse::Host, bool background = false);
  // Allocation units in stripe order -> physical plane.
  const std::vector<uint64_t>& stripe() const { return unit_plane_; }

  // One shard writing pages in order: what a sampled ageing models.
  bool plain() const { return shard_map_.shards == 1 && alloc_ == Alloc::Sequential; }
  // A block a sampled ageing left open becomes the plane's host (or GC) block.
  void adopt_open(uint64_t plane, uint64_t block, bool for_gc) {
    (for_gc ? gc_open_[plane] : host_open_[plane]) = static_cast<int64_t>(block);
  }
  static constexpr uint32_t kGcReserve = 1;  // free blocks per plane host writes leave to GC

  // The free-block count changed (a block erased, the FTL rebuilt).
  void free_changed() { free_blocks_signal_ = s_.blocks.free_total(); }
  // The run starts with the blocks preconditioning left (the units it left
  // in partly written pages are never written: the run's pages are whole).
  void started();
  // After a power loss: no block is open.
  void reset();
  void report(nlohmann::json& j) const;

 private:
  enum class Alloc : uint8_t { Sequential, LsbSkip, LsbGroup };

  bool open_block(uint64_t plane, int64_t& slot, bool for_gc);
  bool alloc_in_plane(uint64_t plane, uint32_t shard, bool urgent, uint64_t& ppn);
  bool alloc_lsb(uint64_t plane, uint64_t& ppn);
  bool alloc_upper(uint64_t plane, uint64_t& ppn);
  void place(uint64_t block, uint32_t page);
  void close_if_full(uint64_t block);

  FtlState& s_;
  ShardMap shard_map_;
  Alloc alloc_;
  uint64_t lsb_limit_pages_;
  std::vector<uint64_t> unit_plane_;                // stripe order -> physical plane
  std::vector<std::vector<uint64_t>> shard_units_;  // units each shard writes
  std::vector<uint32_t> shard_rr_;
  std::vector<int64_t> shard_last_;  // sub-page mapping: a shard's last unit, in a page it left partly filled
  std::vector<int64_t> host_open_;                 // per shard x plane
  std::vector<int64_t> gc_open_;                   // per plane
  std::vector<std::vector<uint64_t>> lsb_blocks_;  // per plane: blocks opened for LSB-only writes
  uint64_t lsb_only_pages_ = 0, blocked_plane_ = 0, free_blocks_signal_ = 0;
  Counter &wasted_, &lsb_urgent_, &min_free_, &padded_;
};

}  // namespace vp::ssd
