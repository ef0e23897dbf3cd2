// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/PciePort.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace vp::platform {

PciePort::PciePort(const std::string& name, Services& svc, const std::string& scope, unsigned device,
                   uint64_t config_address, uint64_t bar0_base, uint64_t bar0_size)
    : link(name.c_str(), svc, scope),
      name_(name),
      scope_(scope),
      device_(device),
      config_address_(config_address),
      bar0_base_(bar0_base),
      bar0_size_(bar0_size) {}

void PciePort::plug(pcie::PciFunction& fn, uint64_t intx_address) {
  if (fn_) throw std::logic_error(fmt::format("PCIe port {}: a function is already plugged", name_));
  if (fn.bar0_size() != bar0_size_)
    throw std::logic_error(fmt::format("PCIe port {}: the function's BAR0 is {} bytes, the port's window {}", name_,
                                       fn.bar0_size(), bar0_size_));
  link.down_out.bind(fn.bar0);
  link.cfg_out.bind(fn.config);
  fn.dma.bind(link.up_in);
  fn.set_intx_address(intx_address);
  fn_ = &fn;
}

}  // namespace vp::platform
