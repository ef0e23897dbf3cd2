// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/hw/HostBus.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace vp::host {

HostBus::HostBus(sc_core::sc_module_name name) : sc_module(name), in("in"), out("out") {
  in.register_b_transport(this, &HostBus::b_transport);
  in.register_get_direct_mem_ptr(this, &HostBus::get_dmi);
}

void HostBus::check_free(uint64_t base, uint64_t size, const std::string& what) const {
  if (size == 0 || base + size < base)
    throw std::logic_error(fmt::format("{}: {} mapped with size {:#x} at {:#x}", name(), what, size, base));
  for (const auto& r : ranges_)
    if (base < r.base + r.size && r.base < base + size)
      throw std::logic_error(fmt::format("{}: {} at [{:#x}, {:#x}) overlaps {} at [{:#x}, {:#x})", name(), what, base,
                                         base + size, r.what, r.base, r.base + r.size));
}

void HostBus::map_port(unsigned port, uint64_t base, uint64_t size, const std::string& what, uint64_t target_base) {
  ranges_.push_back({base, size, target_base, port, what});
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
