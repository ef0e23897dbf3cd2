// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/NvmeHost.hpp"

#include "vp/pcie/PciConfigSpace.hpp"

namespace vp::platform {

NvmeHost::NvmeHost(sc_core::sc_module_name name, Services& svc, unsigned queue_pairs)
    : sc_module(name),
      dram("dram", svc),
      intc("intc", svc),
      irqs(svc.stats),
      memory(host::HostMemoryMap(dram.size())),
      bus("bus"),
      driver("driver", svc, irqs, memory, queue_pairs, kSsdConfig, host::HostBus::kPcieMmioBase) {
  ScopedConfig driver_cfg(svc.cfg, host::NvmeDriver::kScope);
  svc.tracker.resize(host::NvmeDriver::sq_ids(driver_cfg, queue_pairs),
                     static_cast<unsigned>(driver_cfg.get_int("queue_depth")));
  // The CPU complex is the bus's first initiator; polled CQs wait on device writes landing.
  driver.bus.bind(bus.in);
  driver.watch_memory(dram);
}

void NvmeHost::attach(pcie::PcieLink& link, ssd::Drive& drive) {
  link.up_out.bind(bus.in);
  bus.map_dram(dram.socket, host::HostMemoryMap(dram.size()));
  bus.map(intc.socket, host::InterruptController::kBase, host::InterruptController::kSize, "msi");
  bus.map(link.down_in, host::HostBus::kPcieMmioBase, nvme::BAR0_SIZE, "nvme bar0");
  bus.map(link.cfg_in, kSsdConfig, pcie::PciConfigSpace::kSize, "nvme config space");
  link.down_out.bind(drive.bar0());
  link.cfg_out.bind(drive.config());
  drive.set_intx_address(host::InterruptController::intx_address());
  drive.dma().bind(link.up_in);
}

}  // namespace vp::platform
