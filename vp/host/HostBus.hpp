// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host's memory interconnect: routes accesses from the CPU complex and
// from PCIe (device DMA, MSI) to DRAM, the interrupt controller or the PCIe
// MMIO window, by address. Targets see addresses relative to their base.
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <vector>

#include "vp/host/HostMemoryMap.hpp"

namespace vp::host {

class HostBus : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<HostBus> in;
  tlm_utils::multi_passthrough_initiator_socket<HostBus> out;

  // Address map of the modeled host (HostMemoryMap). The configuration
  // space of the SSD's function (bus 0, device 0, function 0) is the first
  // 4 KiB of an ECAM window.
  static constexpr uint64_t kDramBase = 0, kPcieConfigBase = HostMemoryMap::kPcieConfigBase,
                            kPcieMmioBase = HostMemoryMap::kPcieMmioBase;

  explicit HostBus(sc_core::sc_module_name name);
  // Output `port` (in binding order) serves [base, base + size), seeing
  // address base as `target_base` (a target mapped in several ranges).
  void map(unsigned port, uint64_t base, uint64_t size, const std::string& what, uint64_t target_base = 0);
  // Host DRAM on output `port`: below the PCI hole and above 4 GiB.
  void map_dram(unsigned port, const HostMemoryMap& m);

 private:
  struct Range {
    uint64_t base, size, target_base;
    unsigned port;
    std::string what;
  };
  const Range* decode(uint64_t addr) const;
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  bool get_dmi(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  std::vector<Range> ranges_;
};

}  // namespace vp::host
