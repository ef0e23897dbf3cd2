// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/firmware/ManyLayeredFirmware.hpp"

namespace vp::ssd {

std::vector<FwRole> ManyLayeredFirmware::roles(FirmwareRoles& r, const FirmwareCosts& c) const {
  return {{&r.nvmq, "layered", shards_,
           c.planned({{Fetch, 1}, {Parse, 1}, {CacheLookup, 1}, {Trans, 1}, {Complete, 1}, {CqFlush, 1}, {Message, 2}})},
          {&r.fcmd, "fcmd", shards_, c.planned({{Compose, 1}, {Message, 1}})}};
}

void ManyLayeredFirmware::placed(FirmwareRoles& r, FirmwareCosts& costs) {
  r.trans = r.nvmq;
  // A CQ's tail is moved by every instance completing its SQ's commands.
  costs.shared(CqFlush, cores_of({&r.nvmq}));
}

void ManyLayeredFirmware::submit(FwJob& j) {
  nvmq_for(j.c->sqid).post(FwWork{costs().time({{FetchBatch, 1}, {Fetch, 1}, {Parse, 1}}), {},
                                  [this, &j](FirmwareThread& by) { parsed(j, by); }, j.latency()});
}

void ManyLayeredFirmware::parsed(FwJob& j, FirmwareThread& by) {
  FirmwareThread& owner = *role_threads().nvmq[j.pages ? shard_of(j.lpn) : 0];
  j.home = &owner;
  Tick work = costs().time({{CacheLookup, j.pages}, {Trans, j.pages}});
  auto go = [this, &j](FirmwareThread&) { issue(j); };
  if (&owner == &by)
    by.post_urgent(FwWork{work, {}, go});
  else
    send(owner, work, go);
}

}  // namespace vp::ssd
