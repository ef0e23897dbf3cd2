// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The QEMU platform: the SSD (PCIe link, NVMe controller, firmware, FTL,
// flash) served to a Linux guest running in QEMU, through QEMU's PCI proxy.
//
//   QEMU --(x-pci-proxy-dev socket)-- QemuProxy2Tlm.config_out/mmio_out -> PcieLink -> NvmeController
//   NvmeController.dma -> PcieLink.up -> QemuProxy2Tlm.dma_in -> guest RAM | interrupt route
//   NvmeController -> Firmware -> PageMappingFtl -> FlashArray
//   NvmeController.dram, PageMappingFtl.dram -> SsdDram (data staging, mapping table)
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/Services.hpp"
#include "vp/flash/FlashArray.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/pcie/QemuProxy2Tlm.hpp"
#include "vp/ssd/CacheLayer.hpp"
#include "vp/ssd/Firmware.hpp"
#include "vp/ssd/NvmeController.hpp"
#include "vp/ssd/PageMappingFtl.hpp"
#include "vp/ssd/PowerLossProtection.hpp"
#include "vp/ssd/SsdDram.hpp"

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
  ssd::NvmeController nvme;
  ssd::Firmware fw;
  ssd::CacheLayer cache;
  ssd::PageMappingFtl ftl;
  ssd::SsdDram dram_ssd;
  ssd::PowerLossProtection plp;
  flash::FlashArray flash;
};

}  // namespace vp::platform
