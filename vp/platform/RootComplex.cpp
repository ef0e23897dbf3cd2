// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/RootComplex.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include "vp/host/hw/InterruptController.hpp"
#include "vp/pcie/PciConfigSpace.hpp"

namespace vp::platform {

PciePort& RootComplex::port(const std::string& name, Services& svc, const std::string& scope, uint64_t bar0_size) {
  const unsigned device = static_cast<unsigned>(ports_.size());
  if (device >= 32) throw std::logic_error("PCIe root complex: bus 0 has 32 devices at most");
  if (bar0_size == 0 || (bar0_size & (bar0_size - 1)))
    throw std::logic_error(fmt::format("PCIe port {}: BAR0 of {} bytes is not a power of two", name, bar0_size));
  const uint64_t bar = (next_bar_ + bar0_size - 1) / bar0_size * bar0_size;
  if (bar + bar0_size > kMmioEnd)
    throw std::logic_error(fmt::format("PCIe port {}: no room for a BAR0 of {} bytes in the MMIO window", name,
                                       bar0_size));
  next_bar_ = bar + bar0_size;
  PciePort& p = ports_.emplace_back(name, svc, scope, device, host::HostMemoryMap::config_address(0, device, 0), bar,
                                    bar0_size);
  bus_.map(p.link.down_in, p.bar0_base(), bar0_size, name + " bar0");
  bus_.map(p.link.cfg_in, p.config_address(), pcie::PciConfigSpace::kSize, name + " config space");
  p.link.up_out.bind(bus_.in);
  return p;
}

void RootComplex::attach(PciePort& p, pcie::PciFunction& fn) {
  p.plug(fn, host::InterruptController::intx_address());
}

}  // namespace vp::platform
