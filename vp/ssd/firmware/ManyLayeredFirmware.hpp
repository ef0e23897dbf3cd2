// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// ManyLayered (DeepFlash FAST'20 sec. 6): the drive split statically per
// translation shard (ssd.ftl.shards, each owning its channels), a layered
// thread (HIL and FTL) and a flash transaction (FCMD) thread per shard. A
// command is fetched and parsed by its SQ's instance and handed to the
// instance owning its pages, which looks the cache up, translates and
// completes it. The shard of a page is the FTL's (ssd.ftl.shard_hash=modulo:
// lpn mod shards, the channel a page-striping FTL puts it on), unscrambled.
// What the static split costs besides: the instances share the host's CQs
// (an SQ's commands complete on whichever instance owns their pages, so
// every instance moves every CQ's tail: CqFlush pays contention over the
// instances' cores), and the placement (ssd.fw.pin in the manylayered
// preset: an instance's pair on one core) leaves cores with two instances.
#include "vp/ssd/firmware/FirmwareOrganisation.hpp"

namespace vp::ssd {

class ManyLayeredFirmware : public FirmwareOrganisation {
 public:
  ManyLayeredFirmware(Firmware& fw, uint32_t shards) : FirmwareOrganisation(fw), shards_(shards) {}
  const char* name() const override { return "manylayered"; }
  std::vector<FwRole> roles(FirmwareRoles& r, const FirmwareCosts& costs) const override;
  // The instances translate their own shards (no pool); they share the CQs.
  void placed(FirmwareRoles& r, FirmwareCosts& costs) override;
  // One owner per page keeps an SQ's order to it.
  bool reorders() const override { return false; }
  void submit(FwJob& j) override;

 private:
  void parsed(FwJob& j, FirmwareThread& by);
  uint32_t shards_;
};

}  // namespace vp::ssd
