// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/QemuFabric.hpp"

#include <cerrno>
#include <poll.h>
#include <vector>

namespace vp::platform {

PciePort& QemuFabric::port(const std::string& name, const std::string& bridge_name, Services& svc,
                           const std::string& scope, uint64_t bar0_size, int fd) {
  auto& b = bridges_.emplace_back(std::make_unique<pcie::QemuProxy2Tlm>(bridge_name.c_str(), svc, fd, bar0_size));
  PciePort& p = ports_.emplace_back(name, svc, scope, static_cast<unsigned>(ports_.size()), 0, 0, bar0_size);
  b->config_out.bind(p.link.cfg_in);
  b->mmio_out.bind(p.link.down_in);
  p.link.up_out.bind(b->dma_in);
  for (size_t i = 0; i + 1 < bridges_.size(); ++i) {
    bridges_[i]->add_peer(*b);
    b->add_peer(*bridges_[i]);
  }
  return p;
}

void QemuFabric::attach(PciePort& p, pcie::PciFunction& fn) {
  p.plug(fn, pcie::QemuProxy2Tlm::kIntxAddress);
  for (size_t i = 0; i < ports_.size(); ++i)
    if (&ports_[i] == &p) bridges_[i]->reset_device = [&fn] { fn.pci_reset(); };
}

bool QemuFabric::serve(int timeout_ms) {
  if (bridges_.size() == 1) return bridges_[0]->serve(timeout_ms);
  if (timeout_ms != 0) {  // wait for any socket, then drain them all
    std::vector<pollfd> p;
    for (const auto& b : bridges_) p.push_back({b->socket_fd(), POLLIN, 0});
    while (poll(p.data(), p.size(), timeout_ms) < 0 && errno == EINTR) {
    }
  }
  bool open = true;
  for (const auto& b : bridges_) open = b->serve(0) && open;
  return open;
}

uint64_t QemuFabric::messages() const {
  uint64_t n = 0;
  for (const auto& b : bridges_) n += b->messages();
  return n;
}

}  // namespace vp::platform
