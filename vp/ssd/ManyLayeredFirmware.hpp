// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// ManyLayered (DeepFlash FAST'19 sec. 4.2): the drive split per translation
// shard (ssd.ftl.shards, each owning its channels), a layered thread and a
// flash transaction (FCMD) thread per shard. A command is fetched and parsed
// by its SQ's instance and handed to the instance owning its pages, which
// looks the cache up and translates.
#include "vp/ssd/FirmwareOrganisation.hpp"

namespace vp::ssd {

class ManyLayeredFirmware : public FirmwareOrganisation {
 public:
  ManyLayeredFirmware(Firmware& fw, uint32_t shards) : FirmwareOrganisation(fw), shards_(shards) {}
  const char* name() const override { return "manylayered"; }
  std::vector<FwRole> roles(FirmwareRoles& r, const FirmwareCosts& costs) const override;
  // The instances translate their own shards: no pool, no shared structure.
  void placed(FirmwareRoles& r, FirmwareCosts&) override { r.trans = r.nvmq; }
  // One owner per page keeps an SQ's order to it.
  bool reorders() const override { return false; }
  void submit(FwJob& j) override;

 private:
  void parsed(FwJob& j, FirmwareThread& by);
  uint32_t shards_;
};

}  // namespace vp::ssd
