// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The SSD firmware as threads on embedded cores (DeepFlash FAST'19 sec. 3-5).
// Every firmware task costs cycles on the core its thread runs on; threads
// pass requests to each other as messages, each costing its receiver
// `ssd.fw.cost.message` cycles; a core runs its threads' work one item at a
// time, round robin (EmbeddedCore). `ssd.fw.organisation` decides the
// threads and the path of a request:
//
//   layered      one thread per core, each a whole firmware (HIL + FTL + FIL)
//                doing fetch, parse, cache lookup, translation and flash
//                command composition for a command in one task. With more
//                cores there is one instance per SQ (`ssd.fw.dispatch` =
//                per_sq, DeepFlash's Naive) or any instance takes any command
//                (dios). The instances share one map, cache and flash
//                controller, so those tasks pay the memory contention.
//   manylayered  the drive split per translation shard (ssd.ftl.shards, each
//                owning its channels): a layered thread and a flash
//                transaction (FCMD) thread per shard. A command is fetched
//                and parsed by its SQ's instance and handed to the instance
//                owning its pages.
//   deepflash    the many-to-many network. Queue-gather: NVMQ threads fetch
//                a batch of up to `ssd.fw.fetch_batch` commands of an SQ and
//                parse them, take the command's ILOCK ranges, and complete
//                commands through a CQ buffer flushed per batch; with DIOS a
//                pool any NVMQ thread serves, else SQ s belongs to NVMQ
//                thread (s - 1) mod n. Trans-apply: CACHE threads (with the
//                bypass, an NVMQ thread looks the cache up itself and sends
//                only hits and writes to CACHE, read misses straight to
//                TRANS); one TRANS thread per FTL shard, chosen by the FTL's
//                own hash (XOR scrambling). Flash-scatter: FCMD threads per
//                channel group compose every flash transaction; GC's and
//                the journal's go through BGC and LOG first.
//                BaseDeepFlash is deepflash with per_sq dispatch, no lock
//                forwarding and no cache bypass: an NVMQ thread waits for
//                every lock reply, and for a held range until it is free.
//
// ILOCK (IndexLock) holds `ssd.fw.ilock.range` byte ranges per NVMQ thread
// until the requests that took them complete. With forwarding, a request
// whose range another NVMQ thread holds is forwarded to that thread, which
// serves it under its lock without asking ILOCK again.
//
// Same-queue same-LBA ordering: ILOCK sees an SQ's requests in SQ order, a
// waiter for a range is served first come first served, and a request
// reaches the cache layer and FTL only after every earlier request of its
// SQ touching one of its pages did, whatever paths they took; below, the
// cache layer and FTL keep that order.
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Services.hpp"
#include "vp/flash/FlashTypes.hpp"
#include "vp/ssd/EmbeddedCore.hpp"
#include "vp/ssd/FirmwareThread.hpp"
#include "vp/ssd/IndexLock.hpp"
#include "vp/ssd/ShardHash.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class Firmware : public sc_core::sc_module, public IFirmware, public FtlClient, public flash::IFlash {
 public:
  sc_core::sc_export<IFirmware> target;
  sc_core::sc_port<IFtl> ftl;
  // The FCMD stage: the FTL's flash port binds here, and its transactions
  // go on to the flash array through `flash` (left unbound in rigs whose
  // FTL has no flash).
  sc_core::sc_export<flash::IFlash> fcmd;
  sc_core::sc_port<flash::IFlash, 1, sc_core::SC_ZERO_OR_MORE_BOUND> flash;

  enum class Organisation { Layered, ManyLayered, DeepFlash };
  enum class Dispatch { PerSq, Dios };
  enum Task : unsigned { Fetch, FetchBatch, Parse, Lock, LockLevel, CacheLookup, Cache, Trans, Compose, Complete, CqFlush, Gc,
                         Journal, Message, kTasks };

  static void declare_params(ParamRegistry& reg);
  // ssd.fw.pin: role -> the cores its threads are dealt over.
  static std::map<std::string, std::vector<unsigned>> pins(const Config& c);
  // `shards`: how the FTL below splits the logical space (TRANS threads and
  // ManyLayered instances follow it); the platform that joins them gives it.
  Firmware(sc_core::sc_module_name name, Services& svc, const ShardMap& shards);
  ~Firmware() override;

  // IFirmware
  void submit(HostCommand& c) override;
  uint64_t capacity_bytes() const override { return ftl->logical_pages() * uint64_t(ftl->page_size()); }
  uint32_t mapping_unit() const override { return ftl->page_size(); }
  MediaHealth health() const override { return ftl->health(); }
  // The cache layer below, if any, holds written data in DRAM.
  bool volatile_write_cache() const override { return ftl->volatile_write_cache(); }
  void set_write_cache(bool enabled) override { ftl->set_write_cache(enabled); }
  void ftl_done(FtlRequest& r) override;

  // IFlash: the FCMD stage in front of the flash array.
  void submit(flash::FlashTransaction& t) override;
  const flash::FlashGeometry& geometry() const override { return flash->geometry(); }
  const flash::FlashTiming& timing() const override { return flash->timing(); }
  bool peek(uint64_t ppn, uint8_t* data, flash::FlashOob* oob) const override { return flash->peek(ppn, data, oob); }
  void preload_page(uint64_t ppn, const flash::FlashOob& oob, const uint8_t* data) override {
    flash->preload_page(ppn, oob, data);
  }
  void preload_copy(uint64_t src, uint64_t dst, const flash::FlashOob& oob) override {
    flash->preload_copy(src, dst, oob);
  }
  void preload_block(uint64_t block, uint32_t pages, uint32_t first_lpn, uint32_t lpn_stride,
                     uint32_t seq) override {
    flash->preload_block(block, pages, first_lpn, lpn_stride, seq);
  }
  void preload_erase(uint64_t block) override { flash->preload_erase(block); }
  uint32_t erase_count(uint64_t block) const override { return flash->erase_count(block); }
  void power_loss() override { flash->power_loss(); }

  uint64_t events() const { return eq_.fired(); }
  Organisation organisation() const { return org_; }
  Dispatch dispatch() const { return dispatch_; }
  unsigned cores() const { return static_cast<unsigned>(cores_.size()); }
  const EmbeddedCore& core(unsigned i) const { return *cores_[i]; }
  const std::vector<std::unique_ptr<FirmwareThread>>& threads() const { return threads_; }
  // Core time of `n` of task `k` on this platform (clock, core type and
  // contention included).
  Tick task_time(Task k, uint64_t n = 1) const;
  // The layered task of a command of `pages` pages.
  Tick layered_time(uint32_t pages) const;
  // The TRANS thread (deepflash) or instance (manylayered) of a page.
  unsigned shard_of(uint64_t lpn) const;
  const IndexLock& index_lock() const { return lock_; }
  // The run's firmware block: organisation, each core's and each thread's
  // utilisation over `elapsed`.
  nlohmann::json summary(Tick elapsed) const;

 private:
  struct Job;
  void build();
  Tick cycles(std::initializer_list<std::pair<Task, uint64_t>> work) const;
  FirmwareThread& nvmq_for(uint16_t sqid) const;
  // Queue-gather.
  void fetch_more(uint16_t sqid);
  void parsed(Job& j, FirmwareThread& by);
  void lock(Job& j, FirmwareThread& requester);
  bool lock_waited(const Job& j) const;
  void wait_for_lock(Job& j);
  void poll_lock(Job& j);  // an earlier waiter wants one of its ranges
  static uint64_t order_key(const Job& j, uint32_t page);
  void lock_reply(Job& j, FirmwareThread& requester, int holder);
  void release(uint64_t lpn, uint32_t pages);
  Tick lock_op_time() const;  // one ILOCK acquire, release or poll, with its message
  // Trans-apply.
  void dispatch_job(Job& j, FirmwareThread& holder);
  void to_trans(Job& j);
  // Leaving the firmware, in per-page arrival order.
  void issue(Job& j);
  void issue_now(Job& j);
  void finish(Job& j);
  // NVMQ work: to the pool with DIOS, else to the thread the SQ is bound to.
  void to_nvmq(FirmwareThread& bound, FwWork w);
  void send(FirmwareThread& to, Tick cost, std::function<void(FirmwareThread&)> done);
  bool locks() const { return org_ == Organisation::DeepFlash; }

  StatRegistry& stats_;
  EventQueue eq_;
  Organisation org_;
  Dispatch dispatch_;
  bool forwarding_, balanced_, bypass_, ftl_xor_, ordered_;
  uint32_t fetch_batch_, shards_;
  Tick retry_ = 0;
  std::map<std::string, std::vector<unsigned>> pins_;
  uint64_t serial_ = 0;
  uint64_t cycles_[kTasks];
  double ps_per_cycle_, contention_;
  double mult_[kTasks];
  unsigned n_nvmq_, n_ilock_, n_cache_, n_fcmd_, n_log_, n_bgc_;
  std::vector<std::unique_ptr<EmbeddedCore>> cores_;
  std::vector<std::unique_ptr<FirmwareThread>> threads_;
  std::vector<FirmwareThread*> nvmq_, ilock_, cache_, trans_, fcmd_, log_, bgc_;
  FwWorkQueue pool_;  // DIOS: work any NVMQ thread takes
  uint32_t channels_ = 1;
  IndexLock lock_;
  std::unordered_map<const HostCommand*, std::unique_ptr<Job>> jobs_;
  std::unordered_map<uint16_t, std::deque<Job*>> sq_buf_;  // fetched-to-be, per SQ
  std::unordered_map<uint16_t, bool> fetching_;
  std::unordered_map<uint64_t, std::deque<Job*>> page_order_;  // per SQ and page, requests not yet issued
  std::unordered_map<uint16_t, std::deque<Job*>> arrival_;     // per SQ, requests not yet at ILOCK
  std::vector<Job*> lock_queue_;                               // waiting for ranges (no forwarding), in order
  std::unordered_map<FirmwareThread*, std::vector<Job*>> done_;  // completions for each NVMQ thread's CQ buffer
  Counter &commands_, &forwards_, &lock_waits_, &bypassed_, &order_waits_;
};

}  // namespace vp::ssd
