// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The PCIe fabric of a guest in QEMU: each port is served to QEMU through
// a PCI proxy device of its own (QemuProxy2Tlm on the socket `fd`); QEMU's
// machine places the function on its bus and its BAR where the guest's
// firmware puts it. The link's upstream side delivers DMA and interrupt
// messages to the proxy; each proxy sends the device's accesses to another
// port's BAR (as the guest placed it) to that port's function, so functions
// reach each other peer to peer (the accelerator and the SSD's doorbells
// and queue windows).
#include <deque>
#include <memory>
#include <string>

#include "vp/core/Services.hpp"
#include "vp/pcie/QemuProxy2Tlm.hpp"
#include "vp/platform/PciePort.hpp"

namespace vp::platform {

class QemuFabric {
 public:
  // The next port, served on `fd`, for a function whose BAR0 is `bar0_size`
  // bytes, its link's keys and statistics in `scope`; its proxy is the
  // module `bridge_name`.
  PciePort& port(const std::string& name, const std::string& bridge_name, Services& svc, const std::string& scope,
                 uint64_t bar0_size, int fd);
  // Plugs `fn` into `p` (INTx to the proxy's INTx address); QEMU's machine
  // reset is the function's conventional reset.
  void attach(PciePort& p, pcie::PciFunction& fn);

  pcie::QemuProxy2Tlm& bridge(size_t i) { return *bridges_.at(i); }
  size_t size() const { return bridges_.size(); }
  // Serves every message any proxy sends within `timeout_ms` (as
  // QemuProxy2Tlm::serve); false once QEMU has closed a connection.
  bool serve(int timeout_ms);
  uint64_t messages() const;

 private:
  std::deque<PciePort> ports_;
  std::deque<std::unique_ptr<pcie::QemuProxy2Tlm>> bridges_;  // bridges_[i] serves ports_[i]
};

}  // namespace vp::platform
