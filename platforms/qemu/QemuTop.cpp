// SPDX-License-Identifier: BSD-3-Clause
#include "platforms/qemu/QemuTop.hpp"

#include <fmt/format.h>
#include <poll.h>


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
  if (accel_fd < 0) return;
  accel_bridge_ = std::make_unique<pcie::QemuProxy2Tlm>("accel_bridge", svc, accel_fd, accel::regs::BAR0_SIZE);
  accel_link_ = std::make_unique<pcie::PcieLink>("accel_pcie", svc, "accel.pcie");
  accel_ = std::make_unique<accel::IoAccelerator>("accel", svc, accel_link_->timing());
  accel_bridge_->config_out.bind(accel_link_->cfg_in);
  accel_bridge_->mmio_out.bind(accel_link_->down_in);
  accel_link_->cfg_out.bind(accel_->config);
  accel_link_->down_out.bind(accel_->bar0);
  accel_->dma.bind(accel_link_->up_in);
  accel_link_->up_out.bind(accel_bridge_->dma_in);
  accel_->set_intx_address(pcie::QemuProxy2Tlm::kIntxAddress);
  accel_bridge_->reset_device = [this] { accel_->pci_reset(); };
  bridge.add_peer(*accel_bridge_);
  accel_bridge_->add_peer(bridge);
}

bool QemuTop::serve(int timeout_ms) {
  if (!accel_bridge_) return bridge.serve(timeout_ms);
  if (timeout_ms != 0) {  // wait for either socket, then drain both
    pollfd p[2] = {{bridge.socket_fd(), POLLIN, 0}, {accel_bridge_->socket_fd(), POLLIN, 0}};
    while (poll(p, 2, timeout_ms) < 0 && errno == EINTR) {
    }
  }
  return bridge.serve(0) && accel_bridge_->serve(0);
}

uint64_t QemuTop::messages() const {
  return bridge.messages() + (accel_bridge_ ? accel_bridge_->messages() : 0);
}

}  // namespace vp::platform
