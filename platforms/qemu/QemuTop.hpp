// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The QEMU platform: the SSD (PCIe link, NVMe controller, firmware, FTL,
// flash) served to a Linux guest running in QEMU, through QEMU's PCI proxy.
//
//   QEMU --(x-pci-proxy-dev socket)-- QemuProxy2Tlm.config_out/mmio_out -> PcieLink -> Drive (config, bar0)
//   Drive.dma -> PcieLink.up -> QemuProxy2Tlm.dma_in -> guest RAM | interrupt route
//   inside the Drive: NvmeController -> Firmware -> CacheLayer -> PageMappingFtl -> FlashArray, SsdDram
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/Services.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/pcie/QemuProxy2Tlm.hpp"
#include "vp/ssd/Drive.hpp"

namespace vp::platform {

class QemuTop : public sc_core::sc_module {
 public:
  // `proxy_fd`: this process's end of the socket QEMU's proxy device uses.
  QemuTop(sc_core::sc_module_name name, Services& svc, int proxy_fd);

  // Before the model is built: the INTx route cannot deliver MSI or MSI-X,
  // so the function is built without them (ssd.pci.msi/msix = false) unless
  // the configuration sets them itself; that choice is kept, and each
  // capability left on under the INTx route yields a warning (returned).
  static std::vector<std::string> configure_interrupt_route(Config& cfg, bool intx);

  pcie::QemuProxy2Tlm bridge;
  pcie::PcieLink link;
  ssd::Drive drive;
};

}  // namespace vp::platform
