// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The modeled host's PCIe root complex: root ports on bus 0, one per
// function, numbered in the order the platform asks for them (device 0,
// 1, ...), as a BIOS enumerates them. Each port's configuration space is
// mapped in the host bus's ECAM window, its BAR0 in the MMIO window (each
// BAR aligned to its own size, one after the other from the window's start,
// as firmware assigns them), and its link's upstream side delivers the
// function's DMA and MSI/MSI-X writes to the bus; INTx messages go to the
// interrupt controller.
#include <deque>
#include <string>

#include "vp/core/Services.hpp"
#include "vp/host/hw/HostBus.hpp"
#include "vp/platform/PciePort.hpp"

namespace vp::platform {

class RootComplex {
 public:
  // The MMIO window BARs are placed in: from the bus's PCIe MMIO base up
  // to the interrupt controller's window.
  static constexpr uint64_t kMmioEnd = 0xFEC00000ull;

  explicit RootComplex(host::HostBus& bus) : bus_(bus) {}

  // The next root port, for a function whose BAR0 is `bar0_size` bytes,
  // its link's keys and statistics in `scope`. Drivers take the port's
  // configuration and BAR0 addresses before the function exists.
  PciePort& port(const std::string& name, Services& svc, const std::string& scope, uint64_t bar0_size);
  // Plugs `fn` into `p` (PciePort::plug) with INTx to the interrupt controller.
  void attach(PciePort& p, pcie::PciFunction& fn);

  const std::deque<PciePort>& ports() const { return ports_; }

 private:
  host::HostBus& bus_;
  std::deque<PciePort> ports_;  // stable addresses
  uint64_t next_bar_ = host::HostBus::kPcieMmioBase;
};

}  // namespace vp::platform
