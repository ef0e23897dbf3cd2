// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/firmware/LayeredFirmware.hpp"

#include "vp/ssd/firmware/Firmware.hpp"

namespace vp::ssd {

std::vector<FwRole> LayeredFirmware::roles(FirmwareRoles& r, const FirmwareCosts&) const {
  return {{&r.nvmq, "layered", cores(), 1.0}};
}

void LayeredFirmware::placed(FirmwareRoles& r, FirmwareCosts& costs) {
  FirmwareOrganisation::placed(r, costs);
  // One map, one cache and one flash controller for every instance.
  size_t n = cores_of({&r.nvmq});
  for (FwTask k : {CacheLookup, Trans, Compose}) costs.shared(k, n);
}

void LayeredFirmware::submit(FwJob& j) {
  // The whole firmware in one task; contention is in layered_time.
  FwWork w{fw_.layered_time(j.pages), {}, [this, &j](FirmwareThread& by) {
             j.home = &by;
             issue(j);
           }, j.latency()};
  to_nvmq(nvmq_for(j.c->sqid), std::move(w));
}

}  // namespace vp::ssd
