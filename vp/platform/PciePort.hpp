// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A port of the platform's PCIe fabric and the link below it (a root port,
// as libsystemctlm-soc's pcie-root-port owns its wiring): where a function
// sits (bus 0, its device number), the windows its configuration space and
// BAR0 answer in, and the link that carries its traffic. The fabric that
// made the port (RootComplex for a modeled host, QemuFabric for a guest's
// QEMU) has bound the link's upstream side; plug() binds the function.
#include <cstdint>
#include <string>

#include "vp/core/Services.hpp"
#include "vp/pcie/PciFunction.hpp"
#include "vp/pcie/PcieLink.hpp"

namespace vp::platform {

class PciePort {
 public:
  // `scope`: the link's keys and statistics ("pcie" for the first drive's).
  PciePort(const std::string& name, Services& svc, const std::string& scope, unsigned device, uint64_t config_address,
           uint64_t bar0_base, uint64_t bar0_size);
  PciePort(const PciePort&) = delete;
  PciePort& operator=(const PciePort&) = delete;

  // The function below the link: configuration requests and MMIO down to it,
  // its DMA and interrupt messages up; INTx messages to `intx_address`.
  // Throws std::logic_error when the function's BAR0 is not the port's
  // window or a function is already plugged.
  void plug(pcie::PciFunction& fn, uint64_t intx_address);

  const std::string& name() const { return name_; }
  const std::string& scope() const { return scope_; }
  unsigned device() const { return device_; }
  // Where the host's configuration requests for the function go (its ECAM
  // address; 0 when the guest's firmware places it instead).
  uint64_t config_address() const { return config_address_; }
  uint64_t bar0_base() const { return bar0_base_; }
  uint64_t bar0_size() const { return bar0_size_; }
  pcie::PciFunction* function() const { return fn_; }

  pcie::PcieLink link;

 private:
  std::string name_, scope_;
  unsigned device_;
  uint64_t config_address_, bar0_base_, bar0_size_;
  pcie::PciFunction* fn_ = nullptr;
};

}  // namespace vp::platform
