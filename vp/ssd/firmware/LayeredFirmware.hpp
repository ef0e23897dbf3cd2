// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The layered firmware: one thread per core, each a whole firmware (HIL +
// FTL + FIL) doing fetch, parse, cache lookup, translation and flash command
// composition for a command in one task. With more cores there is one
// instance per SQ (ssd.fw.dispatch = per_sq, DeepFlash's Naive) or any
// instance takes any command (dios). The instances share one map, cache and
// flash controller, so those tasks pay the memory contention.
#include "vp/ssd/firmware/FirmwareOrganisation.hpp"

namespace vp::ssd {

class LayeredFirmware : public FirmwareOrganisation {
 public:
  using FirmwareOrganisation::FirmwareOrganisation;
  const char* name() const override { return "layered"; }
  std::vector<FwRole> roles(FirmwareRoles& r, const FirmwareCosts& costs) const override;
  void placed(FirmwareRoles& r, FirmwareCosts& costs) override;
  // One thread per SQ keeps an SQ's order by itself; parallel parsing does not.
  bool reorders() const override { return dispatch() == FwDispatch::Dios; }
  void submit(FwJob& j) override;
  uint64_t completion_messages() const override { return 0; }
};

}  // namespace vp::ssd
