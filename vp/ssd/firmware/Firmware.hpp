// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The SSD firmware as threads on embedded cores (DeepFlash FAST'20 sec. 3-5).
// Every firmware task costs cycles on the core its thread runs on
// (FirmwareCosts); threads pass requests to each other as messages, each
// costing its receiver `ssd.fw.cost.message` cycles; a core runs its
// threads' work one item at a time, round robin (EmbeddedCore).
// `ssd.fw.organisation` picks the FirmwareOrganisation, which decides the
// threads and the path of a request (LayeredFirmware, ManyLayeredFirmware,
// DeepFlashFirmware). Firmware keeps what they share: the cores and the
// placement of threads on them, the per-page order guard, completions
// through the CQ buffer, and the FCMD stage the FTL's flash port binds to.
//
// Same-queue same-LBA ordering: a request reaches the cache layer and FTL
// only after every earlier request of its SQ touching one of its pages did,
// whatever paths they took (the order guard, for organisations whose paths
// can reorder an SQ); below, the cache layer and FTL keep that order.
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/RecycledNodes.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/flash/FlashTypes.hpp"
#include "vp/ssd/firmware/DeepFlashFirmware.hpp"
#include "vp/ssd/firmware/EmbeddedCore.hpp"
#include "vp/ssd/firmware/FcmdStage.hpp"
#include "vp/ssd/firmware/FirmwareCosts.hpp"
#include "vp/ssd/firmware/FirmwareOrganisation.hpp"
#include "vp/ssd/firmware/FirmwareThread.hpp"
#include "vp/ssd/ShardHash.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class Firmware : public sc_core::sc_module, public IFirmware, public FtlClient {
 public:
  sc_core::sc_export<IFirmware> target;
  sc_core::sc_port<IFtl> ftl;
  // The FCMD stage (FcmdStage): the FTL's flash port binds here, and its
  // transactions go on to the flash array through `flash` (left unbound in
  // rigs whose FTL has no flash).
  sc_core::sc_export<flash::IFlash> fcmd;
  sc_core::sc_port<flash::IFlash, 1, sc_core::SC_ZERO_OR_MORE_BOUND> flash;

  using Dispatch = FwDispatch;
  using Task = FwTask;

  static constexpr const char* kScope = "ssd.fw";
  static void declare_params(const ParamScope& fw);
  // ssd.fw.pin: role -> the cores its threads are dealt over.
  static std::map<std::string, std::vector<unsigned>> pins(const ScopedConfig& c);
  // `shards`: how the FTL below splits the logical space (TRANS threads and
  // ManyLayered instances follow it); the platform that joins them gives it.
  Firmware(sc_core::sc_module_name name, Services& svc, const ShardMap& shards, const std::string& scope = kScope);
  ~Firmware() override;

  // IFirmware
  void submit(HostCommand& c) override;
  void prefetch(const HostCommand& c) const override;
  uint64_t capacity_bytes() const override { return ftl->logical_pages() * uint64_t(ftl->page_size()); }
  uint32_t mapping_unit() const override { return ftl->page_size(); }
  MediaHealth health() const override { return ftl->health(); }
  // The cache layer below, if any, holds written data in DRAM.
  bool volatile_write_cache() const override { return ftl->volatile_write_cache(); }
  void set_write_cache(bool enabled) override { ftl->set_write_cache(enabled); }
  void ftl_done(FtlRequest& r) override;

  uint64_t events() const { return eq_.fired(); }
  const char* organisation() const { return org_->name(); }
  Dispatch dispatch() const { return dispatch_; }
  unsigned cores() const { return static_cast<unsigned>(cores_.size()); }
  const EmbeddedCore& core(unsigned i) const { return *cores_[i]; }
  const std::vector<std::unique_ptr<FirmwareThread>>& threads() const { return threads_; }
  // Every thread's queue (and the NVMQ pool) serves latency-critical
  // commands' work first; the platform that knows the attribute sets it.
  void set_latency_first(bool on) {
    for (auto& t : threads_) t->set_latency_first(on);
    pool_.latency_first = on;
  }
  // Core time of `n` of task `k` on this platform (clock, core type and
  // contention included).
  Tick task_time(Task k, uint64_t n = 1) const { return costs_.time(k, n); }
  // The layered task of a command of `pages` pages.
  Tick layered_time(uint32_t pages) const;
  // The TRANS thread (deepflash) or instance (manylayered) of a page.
  unsigned shard_of(uint64_t lpn) const;
  // The run's firmware block: organisation, each core's and each thread's
  // utilisation over `elapsed`.
  nlohmann::json summary(Tick elapsed) const;

 private:
  friend class FirmwareOrganisation;  // its helpers reach the shared parts below

  void build();
  void end_of_elaboration() override;
  FirmwareThread& nvmq_for(uint16_t sqid) const;
  static uint64_t order_key(const FwJob& j, uint32_t page);
  // Leaving the firmware, in per-page arrival order.
  void issue(FwJob& j);
  void issue_now(FwJob& j);
  void finish(FwJob& j);
  // NVMQ work: to the pool with DIOS, else to the thread the SQ is bound to.
  void to_nvmq(FirmwareThread& bound, FwWork w);
  void send(FirmwareThread& to, Tick cost, std::function<void(FirmwareThread&)> done);

  StatGroup stats_;
  EventQueue eq_;
  FirmwareCosts costs_;
  DeepFlashStats deepflash_stats_;
  std::unique_ptr<FirmwareOrganisation> org_;
  Dispatch dispatch_;
  bool balanced_, ordered_;
  ShardMap shards_;
  std::map<std::string, std::vector<unsigned>> pins_;
  uint64_t serial_ = 0;
  std::vector<std::unique_ptr<EmbeddedCore>> cores_;
  std::vector<std::unique_ptr<FirmwareThread>> threads_;
  FirmwareRoles roles_;
  FwWorkQueue pool_;  // DIOS: work any NVMQ thread takes
  FcmdStage fcmd_stage_;
  std::unordered_map<const HostCommand*, FwJob> jobs_;  // nodes: a job stays put while it lives
  RecycledNodes<decltype(jobs_)> job_nodes_;
  std::unordered_map<uint64_t, std::deque<FwJob*>> page_order_;  // per SQ and page, requests not yet issued
  std::unordered_map<FirmwareThread*, std::vector<FwJob*>> done_;  // completions for each NVMQ thread's CQ buffer
  Counter &commands_, &order_waits_;
};

}  // namespace vp::ssd
