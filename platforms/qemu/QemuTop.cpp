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

QemuTop::QemuTop(sc_core::sc_module_name name, Services& svc, int proxy_fd, int accel_fd)
    : sc_module(name),
      drive_port(fabric.port("pcie", "bridge", svc, "pcie", nvme::BAR0_SIZE, proxy_fd)),
      bridge(fabric.bridge(0)),
      drive("ssd", svc, drive_port.link.timing()) {
  fabric.attach(drive_port, drive.nvme);
  if (accel_fd < 0) return;
  PciePort& port = fabric.port("accel_pcie", "accel_bridge", svc, "accel.pcie", accel::regs::BAR0_SIZE, accel_fd);
  accel_ = std::make_unique<accel::IoAccelerator>("accel", svc, port.link.timing());
  fabric.attach(port, *accel_);
}

bool QemuTop::serve(int timeout_ms) { return fabric.serve(timeout_ms); }

uint64_t QemuTop::messages() const { return fabric.messages(); }

}  // namespace vp::platform
