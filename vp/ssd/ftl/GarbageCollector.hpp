// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Garbage collection and wear leveling of the page-mapping FTL (MQSim's
// GC_and_WL_Unit), one job per plane at a time. Victims are greedy (fewest
// valid pages) or cost-benefit; GC runs in the foreground when a plane's
// free blocks fall under a threshold (writes to that plane wait) and in the
// background after an idle time. Valid pages move by copy-back or
// read+program as background flash work that host reads overtake. Wear
// leveling: free blocks are taken least-erased first (BlockManager), and a
// plane whose erase-count spread passes a threshold migrates its coldest
// block. Preconditioning collects the same way without simulated time.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "vp/core/Counter.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/core/Waves.hpp"
#include "vp/ssd/ftl/FtlMapping.hpp"
#include "vp/ssd/ftl/FtlState.hpp"
#include "vp/ssd/ftl/PageAllocator.hpp"

namespace vp::ssd {

// What GC asks of the FTL: host writes waiting for a free block.
struct GcClient {
  virtual bool writes_waiting() const = 0;
  // A block was reclaimed: waiting writes try again.
  virtual void retry_writes() = 0;

 protected:
  ~GcClient() = default;
};

class GarbageCollector {
 public:
  // gc.* and wl.* in the FTL's scope (ssd.ftl).
  static void declare_params(const ParamScope& ftl);
  static uint32_t fg_threshold_of(const ScopedConfig& ftl);

  GarbageCollector(FtlState& s, PageAllocator& alloc, FtlMapping& mapping, GcClient& client, const ScopedConfig& ftl,
                   const StatGroup& stats, Waves& waves);
  ~GarbageCollector();

  // Starts a job on `plane` if its free blocks are under the foreground (or
  // background) threshold and a victim exists.
  void maybe_collect(uint64_t plane, bool background);
  // A program into `block` finished: a block whose last program ends may
  // become a victim for writes that wait.
  void program_done(uint64_t block);
  // Whether `plane` will free a block without new writes: a job runs, or
  // programs in flight may leave a victim.
  bool reclaiming(uint64_t plane) const;
  // A host request arrived; the FTL fell idle (background GC after bg_idle).
  void host_arrived() { ++activity_; }
  void idle();
  // Preconditioning: reclaims one block of `plane` without simulated time,
  // counting the pages moved; false when nothing can be reclaimed.
  bool collect_now(uint64_t plane, uint64_t& moved);
  // Whether writes to `plane` would start foreground GC.
  bool short_of_blocks(uint64_t plane) const { return s_.blocks.free_count(plane) < fg_threshold_; }
  uint32_t fg_threshold() const { return fg_threshold_; }
  void power_loss();

  uint64_t pages_moved() const { return moved_.value; }
  void report(nlohmann::json& j) const;

 private:
  struct Job;

  bool pick_victim(uint64_t plane, uint64_t& victim) const;
  void start_job(uint64_t plane, uint64_t victim, bool wear, bool background);
  void job_txn_done(Job& j, flash::FlashTransaction& t);
  void job_erase(Job& j);
  void job_erased(Job& j);
  void check_wear(uint64_t plane);

  FtlState& s_;
  PageAllocator& alloc_;
  FtlMapping& mapping_;
  GcClient& client_;
  bool greedy_, copyback_, preemptible_;
  uint32_t fg_threshold_, bg_threshold_, wl_threshold_;
  Tick bg_idle_;
  std::vector<std::unique_ptr<Job>> jobs_;  // per plane, null when idle
  uint64_t activity_ = 0, active_signal_ = 0;
  bool bg_scheduled_ = false;
  Counter &runs_, &bg_runs_, &moved_, &copybacks_, &wl_runs_;
};

}  // namespace vp::ssd
