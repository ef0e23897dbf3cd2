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

#include "vp/host/mm/HostMemoryMap.hpp"

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
  // Binds `target` to the bus and maps it at [base, base + size): one call
  // attaches a device, and the binding order means nothing. Overlapping
  // ranges are refused at elaboration.
  template <class TargetSocket>
  void map(TargetSocket& target, uint64_t base, uint64_t size, const std::string& what) {
    check_free(base, size, what);  // before binding: a refused map leaves the bus as it was
    map_port(bind_port(target), base, size, what);
  }
  // Host DRAM: below the PCI hole and above 4 GiB, one target seen at two
  // bus ranges.
  template <class TargetSocket>
  void map_dram(TargetSocket& target, const HostMemoryMap& m) {
    check_free(0, m.low_bytes(), "dram below the PCI hole");
    if (m.high_bytes()) check_free(HostMemoryMap::kHighBase, m.high_bytes(), "dram above 4 GiB");
    unsigned port = bind_port(target);
    map_port(port, 0, m.low_bytes(), "dram below the PCI hole");
    if (m.high_bytes()) map_port(port, HostMemoryMap::kHighBase, m.high_bytes(), "dram above 4 GiB", m.low_bytes());
  }

 private:
  template <class TargetSocket>
  unsigned bind_port(TargetSocket& target) {
    out.bind(target);
    return bound_++;
  }
  // Port `port` serves [base, base + size), seeing address base as
  // `target_base` (a target mapped in several ranges).
  // Throws std::logic_error if [base, base + size) is empty or overlaps a mapped range.
  void check_free(uint64_t base, uint64_t size, const std::string& what) const;
  void map_port(unsigned port, uint64_t base, uint64_t size, const std::string& what, uint64_t target_base = 0);
  unsigned bound_ = 0;
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
