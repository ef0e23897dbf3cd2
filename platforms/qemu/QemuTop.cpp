// SPDX-License-Identifier: BSD-3-Clause
#include "platforms/qemu/QemuTop.hpp"

#include <fmt/format.h>


namespace vp::platform {

std::vector<std::string> QemuTop::configure_interrupt_route(Config& cfg, bool intx) {
  std::vector<std::string> warnings;
  if (!intx) return warnings;
  for (const char* key : {"ssd.pci.msi", "ssd.pci.msix"}) {
    if (!cfg.is_set(key))
      cfg.set(key, "false", "--irq-route intx");
    else if (cfg.get_bool(key))
      warnings.push_back(fmt::format("{} = true ({}) under the INTx route: a guest driver that enables it will "
                                     "receive no interrupts",
                                     key, cfg.origin(key)));
  }
  return warnings;
}

QemuTop::QemuTop(sc_core::sc_module_name name, Services& svc, int proxy_fd)
    : sc_module(name),
      bridge("bridge", svc, proxy_fd, nvme::BAR0_SIZE),
      link("pcie", svc, "pcie"),
      drive("ssd", svc, link.timing()) {
  bridge.config_out.bind(link.cfg_in);
  bridge.mmio_out.bind(link.down_in);
  link.cfg_out.bind(drive.config());
  link.down_out.bind(drive.bar0());
  drive.dma().bind(link.up_in);
  link.up_out.bind(bridge.dma_in);
  drive.set_intx_address(pcie::QemuProxy2Tlm::kIntxAddress);
  bridge.reset_device = [this] { drive.nvme.pci_reset(); };
}

}  // namespace vp::platform
