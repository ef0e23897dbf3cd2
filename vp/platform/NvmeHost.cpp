// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/NvmeHost.hpp"

namespace vp::platform {

NvmeHost::NvmeHost(sc_core::sc_module_name name, Services& svc, unsigned queue_pairs)
    : sc_module(name),
      dram("dram", svc),
      intc("intc", svc),
      irqs(svc.stats),
      memory(host::HostMemoryMap(dram.size())),
      bus("bus"),
      root(bus),
      drive_port(root.port("pcie", svc, "pcie", nvme::BAR0_SIZE)),
      driver("driver", svc, irqs, memory, queue_pairs, drive_port.config_address(), drive_port.bar0_base()) {
  ScopedConfig driver_cfg(svc.cfg, host::NvmeDriver::kScope);
  sq_ids_ = host::NvmeDriver::sq_ids(driver_cfg, queue_pairs);
  svc.tracker.resize(sq_ids_,
                     static_cast<unsigned>(driver_cfg.get_int("queue_depth")));
  // The CPU complex is the bus's first initiator; polled CQs wait on device writes landing.
  driver.bus.bind(bus.in);
  driver.watch_memory(dram);
  bus.map_dram(dram.socket, host::HostMemoryMap(dram.size()));
  bus.map(intc.socket, host::InterruptController::kBase, host::InterruptController::kSize, "msi");
}

}  // namespace vp::platform
