// SPDX-License-Identifier: BSD-3-Clause
#include "platforms/qemu/QemuTop.hpp"

#include <fmt/format.h>

#include "vp/core/Rng.hpp"
#include "vp/platform/DriveList.hpp"
#include "vp/platform/Summary.hpp"

namespace vp::platform {

std::vector<std::string> QemuTop::configure_interrupt_route(Config& cfg, bool intx) {
  std::vector<std::string> warnings;
  if (!intx) return warnings;
  std::vector<std::string> keys;
  for (const auto& d : drives_of(cfg)) keys.insert(keys.end(), {d + ".pci.msi", d + ".pci.msix"});
  for (const std::string& key : keys) {
    if (!cfg.is_set(key))
      cfg.set(key, "false", "--irq-route intx");
    else if (cfg.get_bool(key))
      warnings.push_back(fmt::format("{} = true ({}) under the INTx route: a guest driver that enables it will "
                                     "receive no interrupts",
                                     key, cfg.origin(key)));
  }
  return warnings;
}

QemuTop::MoreDrive::MoreDrive(QemuFabric& fabric, Services& base, unsigned k, const std::vector<std::string>& drives,
                              int fd)
    : svc{base.cfg, base.stats, base.waves, tracker, Rng::derive(base.seed, 0x6472697665ull + k), base.requests},
      port(fabric.port(drives[k] + "_pcie", drives[k] + "_bridge", svc, link_scope(drives, k), nvme::BAR0_SIZE, fd)),
      drive(drives[k].c_str(), svc, port.link.timing(), nullptr, drives[k]) {
  fabric.attach(port, drive.nvme);
}

QemuTop::QemuTop(sc_core::sc_module_name name, Services& svc, int proxy_fd, int accel_fd,
                 const std::vector<int>& more_fds)
    : sc_module(name),
      drive_port(fabric.port("pcie", "bridge", svc, "pcie", nvme::BAR0_SIZE, proxy_fd)),
      bridge(fabric.bridge(0)),
      drive(drives_of(svc.cfg)[0].c_str(), svc, drive_port.link.timing(), nullptr, drives_of(svc.cfg)[0]) {
  fabric.attach(drive_port, drive.nvme);
  const std::vector<std::string> drives = drives_of(svc.cfg);
  for (unsigned k = 1; k < drives.size(); ++k)
    more_.push_back(std::make_unique<MoreDrive>(fabric, svc, k, drives, more_fds.at(k - 1)));
  // The guest names the block devices: no path here.
  SummaryParts parts;
  parts.drives = drives;
  parts.accelerator = accel_fd >= 0;
  declare_parts(svc.stats, parts);
  if (accel_fd < 0) return;
  PciePort& port = fabric.port("accel_pcie", "accel_bridge", svc, "accel.pcie", accel::regs::BAR0_SIZE, accel_fd);
  accel_ = std::make_unique<accel::IoAccelerator>("accel", svc, port.link.timing());
  fabric.attach(port, *accel_);
}

bool QemuTop::serve(int timeout_ms) { return fabric.serve(timeout_ms); }

uint64_t QemuTop::messages() const { return fabric.messages(); }

}  // namespace vp::platform
