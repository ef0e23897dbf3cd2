// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The QEMU platform: the SSD (PCIe link, NVMe controller, firmware, FTL,
// flash) served to a Linux guest running in QEMU, through QEMU's PCI proxy.
//
//   QEMU --(x-pci-proxy-dev socket)-- QemuProxy2Tlm.config_out/mmio_out -> PcieLink -> Drive (config, bar0)
//   Drive.dma -> PcieLink.up -> QemuProxy2Tlm.dma_in -> guest RAM | interrupt route
//   inside the Drive: NvmeController -> Firmware -> CacheLayer -> PageMappingFtl -> FlashArray, SsdDram
// With accel.enabled, FlashShare's I/O-stack accelerator is a second proxied
// function on a link of its own; each bridge sends the device's accesses to
// the other function's BAR (as the guest placed it) to that function, so the
// accelerator rings the SSD's doorbells and the SSD fetches from and posts
// into the accelerator's queue windows peer to peer:
//   QEMU --(second x-pci-proxy-dev)-- QemuProxy2Tlm -> PcieLink(accel.pcie) -> IoAccelerator
// With several drives (platform.drives), drive k > 0 is a proxied function
// of its own (its bridge, link <drive>.pcie and Drive), listed to QEMU
// after the first drive and before the accelerator; the guest sees
// /dev/nvme<k>n1.
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "vp/accel/IoAccelerator.hpp"
#include "vp/core/Services.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/pcie/QemuProxy2Tlm.hpp"
#include "vp/platform/QemuFabric.hpp"
#include "vp/ssd/Drive.hpp"

namespace vp::platform {

class QemuTop : public sc_core::sc_module {
 public:
  // `proxy_fd`: this process's end of the socket QEMU's proxy device uses;
  // `accel_fd`: the accelerator's proxy device's (-1: no accelerator);
  // `more_fds`: the proxies of drives 1.. of platform.drives, in order.
  QemuTop(sc_core::sc_module_name name, Services& svc, int proxy_fd, int accel_fd = -1,
          const std::vector<int>& more_fds = {});

  // Serves every message either proxy sends within `timeout_ms` (as
  // QemuProxy2Tlm::serve); false once QEMU has closed a connection.
  bool serve(int timeout_ms);
  uint64_t messages() const;
  pcie::QemuProxy2Tlm* accel_bridge() { return accel_ ? &fabric.bridge(fabric.size() - 1) : nullptr; }
  // Drive k (0: `drive`) and its proxy.
  size_t drives() const { return 1 + more_.size(); }
  ssd::Drive& drive_at(size_t k) { return k ? more_.at(k - 1)->drive : drive; }
  pcie::QemuProxy2Tlm& bridge_at(size_t k) { return fabric.bridge(k); }

  // Before the model is built: the INTx route cannot deliver MSI or MSI-X,
  // so the function is built without them (ssd.pci.msi/msix = false) unless
  // the configuration sets them itself; that choice is kept, and each
  // capability left on under the INTx route yields a warning (returned).
  static std::vector<std::string> configure_interrupt_route(Config& cfg, bool intx);

  QemuFabric fabric;
  PciePort& drive_port;
  pcie::QemuProxy2Tlm& bridge;  // the drive's proxy
  ssd::Drive drive;

 private:
  // A drive after the first: the record of its commands, its Services and the drive.
  struct MoreDrive {
    MoreDrive(QemuFabric& fabric, Services& base, unsigned k, const std::vector<std::string>& drives, int fd);
    RequestTracker tracker;
    Services svc;
    PciePort& port;
    ssd::Drive drive;
  };
  std::vector<std::unique_ptr<MoreDrive>> more_;
  std::unique_ptr<accel::IoAccelerator> accel_;
};

}  // namespace vp::platform
