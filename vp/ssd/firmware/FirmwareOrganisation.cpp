// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/firmware/FirmwareOrganisation.hpp"

#include <algorithm>
#include <set>

#include "vp/ssd/firmware/Firmware.hpp"

namespace vp::ssd {

void FirmwareOrganisation::placed(FirmwareRoles& r, FirmwareCosts&) {
  if (dispatch() == FwDispatch::Dios)
    for (auto* t : r.nvmq) t->serve(fw_.pool_);
}

const FirmwareCosts& FirmwareOrganisation::costs() const { return fw_.costs_; }
FirmwareRoles& FirmwareOrganisation::role_threads() const { return fw_.roles_; }
FwDispatch FirmwareOrganisation::dispatch() const { return fw_.dispatch_; }
unsigned FirmwareOrganisation::cores() const { return fw_.cores(); }
FirmwareThread& FirmwareOrganisation::nvmq_for(uint16_t sqid) const { return fw_.nvmq_for(sqid); }
void FirmwareOrganisation::to_nvmq(FirmwareThread& bound, FwWork w) const { fw_.to_nvmq(bound, std::move(w)); }
void FirmwareOrganisation::send(FirmwareThread& to, Tick cost, std::function<void(FirmwareThread&)> done) const {
  fw_.send(to, cost, std::move(done));
}
void FirmwareOrganisation::issue(FwJob& j) const { fw_.issue(j); }
unsigned FirmwareOrganisation::shard_of(uint64_t lpn) const { return fw_.shard_of(lpn); }
IFtl& FirmwareOrganisation::ftl() const { return *fw_.ftl.operator->(); }
EventQueue& FirmwareOrganisation::queue() const { return fw_.eq_; }

FwJob* FirmwareOrganisation::find(const HostCommand* c, uint64_t serial) const {
  auto it = fw_.jobs_.find(c);
  return it != fw_.jobs_.end() && it->second.serial == serial ? &it->second : nullptr;
}

size_t FirmwareOrganisation::cores_of(std::initializer_list<const std::vector<FirmwareThread*>*> groups) {
  std::set<unsigned> s;
  for (auto* g : groups)
    for (auto* t : *g) s.insert(t->core().index());
  return std::max<size_t>(1, s.size());
}

}  // namespace vp::ssd
