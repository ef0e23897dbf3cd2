// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/HostBus.hpp"

#include <algorithm>

namespace vp::host {

HostBus::HostBus(sc_core::sc_module_name name) : sc_module(name), in("in"), out("out") {
  in.register_b_transport(this, &HostBus::b_transport);
  in.register_get_direct_mem_ptr(this, &HostBus::get_dmi);
}

void HostBus::map(unsigned port, uint64_t base, uint64_t size, const std::string& what, uint64_t target_base) {
  ranges_.push_back({base, size, target_base, port, what});
}

void HostBus::map_dram(unsigned port, const HostMemoryMap& m) {
  map(port, 0, m.low_bytes(), "dram below the PCI hole");
  if (m.high_bytes()) map(port, HostMemoryMap::kHighBase, m.high_bytes(), "dram above 4 GiB", m.low_bytes());
}

const HostBus::Range* HostBus::decode(uint64_t a) const {
  for (const auto& r : ranges_)
    if (a >= r.base && a - r.base < r.size) return &r;
  return nullptr;
}

void HostBus::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t a = gp.get_address();
  const Range* r = decode(a);
  if (!r || a + gp.get_data_length() - r->base > r->size) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  gp.set_address(a - r->base + r->target_base);
  out[r->port]->b_transport(gp, delay);
  gp.set_address(a);
}

bool HostBus::get_dmi(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  uint64_t a = gp.get_address();
  const Range* r = decode(a);
  if (!r) return false;
  gp.set_address(a - r->base + r->target_base);
  bool ok = out[r->port]->get_direct_mem_ptr(gp, dmi);
  gp.set_address(a);
  if (ok) {  // the target's range, clipped to this one, in bus addresses
    uint64_t lo = std::max<uint64_t>(dmi.get_start_address(), r->target_base);
    uint64_t hi = std::min<uint64_t>(dmi.get_end_address(), r->target_base + r->size - 1);
    dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (lo - dmi.get_start_address()));
    dmi.set_start_address(lo - r->target_base + r->base);
    dmi.set_end_address(hi - r->target_base + r->base);
  }
  return ok;
}

}  // namespace vp::host
