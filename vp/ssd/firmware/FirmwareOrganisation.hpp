// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A firmware organisation (ssd.fw.organisation): which threads the firmware
// runs and the path a command takes through them, from its arrival to the
// moment it leaves for the cache layer and FTL. One is chosen at
// elaboration and plugs into Firmware, SST-subcomponent style; Firmware
// keeps what every organisation shares: the cores and the placement of
// threads on them, the per-page order guard, completions through the CQ
// buffer, and the FCMD stage in front of the flash.
//   LayeredFirmware      one whole firmware per core
//   ManyLayeredFirmware  a layered instance and an FCMD thread per shard
//   DeepFlashFirmware    DeepFlash's many-to-many thread network
#include <cstdint>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/ssd/firmware/FirmwareCosts.hpp"
#include "vp/ssd/firmware/FirmwareThread.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class Firmware;

// Which thread takes a command: SQ s's own (static queue allocation), or any
// free one (DeepFlash's DIOS).
enum class FwDispatch { PerSq, Dios };

// A host command on its way through the firmware.
struct FwJob {
  HostCommand* c;
  uint64_t lpn = 0;
  uint32_t pages = 0;
  FirmwareThread* home = nullptr;  // the thread that completes it (and holds its lock)
  bool locked = false, issued = false;
  bool parsed = false;
  bool waiting = false;  // for a range (no forwarding)
  uint64_t serial = 0;   // tells a job from a later one of the same command slot
  bool ready = false;    // done in the firmware, waiting for an earlier request to one of its pages
  // The command carries a latency-critical workload attribute (FlashShare).
  bool latency() const { return c->attr != 0; }
};

// The threads of each role, once placed. NVMQ is also the layered instances.
struct FirmwareRoles {
  std::vector<FirmwareThread*> nvmq, ilock, cache, trans, fcmd, log, bgc;
};

// A role an organisation asks for: its threads, and the cycles one request
// costs the role in all (placement spreads them over the cores).
struct FwRole {
  std::vector<FirmwareThread*>* group;
  const char* name;
  unsigned threads;
  double cycles;
};

class FirmwareOrganisation {
 public:
  explicit FirmwareOrganisation(Firmware& fw) : fw_(fw) {}
  virtual ~FirmwareOrganisation() = default;

  virtual const char* name() const = 0;
  // ssd.fw.dispatch = auto.
  virtual FwDispatch default_dispatch() const { return FwDispatch::PerSq; }
  virtual std::vector<FwRole> roles(FirmwareRoles& r, const FirmwareCosts& costs) const = 0;
  // The threads are on their cores: the NVMQ threads serve the DIOS pool,
  // and the organisation says which structures its cores share.
  virtual void placed(FirmwareRoles& r, FirmwareCosts& costs);
  // The FTL below is bound: its mapping unit (one page) in bytes.
  virtual void bound(uint32_t /*page_bytes*/) {}
  // Whether one SQ's requests can overtake each other on their way through
  // the firmware: then Firmware guards their per-page order.
  virtual bool reorders() const = 0;
  // A command arrived (Firmware made its job); it ends in issue().
  virtual void submit(FwJob& j) = 0;
  // Messages a completion costs the thread that completes the command.
  virtual uint64_t completion_messages() const { return 1; }
  // The command completed; `locked`: it held ILOCK ranges.
  virtual void finished(uint64_t /*lpn*/, uint32_t /*pages*/, bool /*locked*/) {}

 protected:
  // What the organisations use of the firmware they plug into.
  const FirmwareCosts& costs() const;
  FirmwareRoles& role_threads() const;
  FwDispatch dispatch() const;
  unsigned cores() const;
  // The NVMQ (or layered) thread SQ `sqid` is bound to.
  FirmwareThread& nvmq_for(uint16_t sqid) const;
  // NVMQ work: to the pool with DIOS, else to `bound`.
  void to_nvmq(FirmwareThread& bound, FwWork w) const;
  // A message to `to`, costing it `cost` besides its receipt.
  void send(FirmwareThread& to, Tick cost, std::function<void(FirmwareThread&)> done) const;
  // The command leaves the firmware (in per-page arrival order).
  void issue(FwJob& j) const;
  unsigned shard_of(uint64_t lpn) const;
  IFtl& ftl() const;
  EventQueue& queue() const;
  // The job of command `c` if it is still the one numbered `serial`.
  FwJob* find(const HostCommand* c, uint64_t serial) const;
  // How many cores the threads of `groups` run on.
  static size_t cores_of(std::initializer_list<const std::vector<FirmwareThread*>*> groups);

  Firmware& fw_;
};

}  // namespace vp::ssd
