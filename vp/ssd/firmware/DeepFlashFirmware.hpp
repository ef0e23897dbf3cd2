// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// DeepFlash's many-to-many thread network (FAST'20 sec. 4-6).
// Queue-gather: NVMQ threads fetch a batch of up to ssd.fw.fetch_batch
// commands of an SQ and parse them, take the command's ILOCK ranges, and
// complete commands through a CQ buffer flushed per batch; with DIOS a pool
// any NVMQ thread serves, else SQ s belongs to NVMQ thread (s - 1) mod n.
// Trans-apply: CACHE threads (with the bypass, an NVMQ thread looks the
// cache up itself and sends only hits and writes to CACHE, read misses
// straight to TRANS); one TRANS thread per FTL shard, chosen by the FTL's
// own hash. Flash-scatter (Firmware's FCMD stage): FCMD threads per channel
// group compose every flash transaction; GC's and the journal's go through
// BGC and LOG first. BaseDeepFlash is deepflash with per_sq dispatch, no
// lock forwarding and no cache bypass: an NVMQ thread waits for every lock
// reply, and for a held range until it is free.
//
// ILOCK (IndexLock) holds ssd.fw.ilock.range byte ranges per NVMQ thread
// until the requests that took them complete. With forwarding, a request
// whose range another NVMQ thread holds is forwarded to that thread, which
// serves it under its lock without asking ILOCK again. ILOCK sees an SQ's
// requests in SQ order, and a waiter for a range is served first come first
// served.
#include <deque>
#include <unordered_map>
#include <vector>

#include "vp/core/Counter.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/ssd/firmware/FirmwareOrganisation.hpp"
#include "vp/ssd/firmware/IndexLock.hpp"

namespace vp::ssd {

// DeepFlash's statistics, registered by the firmware whichever organisation
// it runs (they read 0 with the others), so every run lists the same counters.
struct DeepFlashStats {
  explicit DeepFlashStats(const StatGroup& fw);
  Counter &forwards, &lock_waits, &bypassed;
};

class DeepFlashFirmware : public FirmwareOrganisation {
 public:
  // In the firmware's scope (ssd.fw): ilock.*, cache_bypass, fetch_batch, threads.*.
  static void declare_params(const ParamScope& fw);
  DeepFlashFirmware(Firmware& fw, const ScopedConfig& cfg, uint32_t shards, DeepFlashStats& stats);

  const char* name() const override { return "deepflash"; }
  FwDispatch default_dispatch() const override { return FwDispatch::Dios; }
  std::vector<FwRole> roles(FirmwareRoles& r, const FirmwareCosts& costs) const override;
  void placed(FirmwareRoles& r, FirmwareCosts& costs) override;
  // Parallel parsing and paths of different lengths.
  bool reorders() const override { return true; }
  // ILOCK's ranges are whole pages of the FTL below.
  void bound(uint32_t page_bytes) override;
  void submit(FwJob& j) override;
  void finished(uint64_t lpn, uint32_t pages, bool locked) override;

 private:
  // Queue-gather.
  void fetch_more(uint16_t sqid);
  void parsed(FwJob& j, FirmwareThread& by);
  void lock(FwJob& j, FirmwareThread& requester);
  bool lock_waited(const FwJob& j) const;
  void wait_for_lock(FwJob& j);
  void poll_lock(FwJob& j);  // an earlier waiter wants one of its ranges
  void lock_reply(FwJob& j, FirmwareThread& requester, int holder);
  void release(uint64_t lpn, uint32_t pages);
  Tick lock_op_time() const;  // one ILOCK acquire, release or poll, with its message
  FirmwareThread& ilock_for(uint64_t lpn) const;
  // Trans-apply.
  void dispatch_job(FwJob& j, FirmwareThread& holder);
  void to_trans(FwJob& j);

  bool forwarding_, bypass_;
  Tick retry_;
  uint64_t range_bytes_;
  uint32_t fetch_batch_, shards_;
  unsigned n_nvmq_, n_ilock_, n_cache_, n_fcmd_, n_log_, n_bgc_;
  IndexLock lock_;
  std::unordered_map<uint16_t, std::deque<FwJob*>> sq_buf_;  // fetched-to-be, per SQ
  std::unordered_map<uint16_t, bool> fetching_;
  std::unordered_map<uint16_t, std::deque<FwJob*>> arrival_;  // per SQ, requests not yet at ILOCK
  std::vector<FwJob*> lock_queue_;                            // waiting for ranges (no forwarding), in order
  DeepFlashStats& stats_;
};

}  // namespace vp::ssd
