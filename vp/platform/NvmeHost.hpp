// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the platforms that drive an NVMe drive from a modeled host share
// (vp-server, vp-drive): host DRAM, the interrupt controller and the vector
// table, the DMA-able host memory, the host bus, and the NVMe driver on the
// bus with a request record per command id of every SQ it may create. The
// platform adds what runs above the driver and the drive below it.
#include <systemc>

#include "vp/core/Services.hpp"
#include "vp/host/hw/HostBus.hpp"
#include "vp/host/hw/HostDram.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/hw/InterruptController.hpp"
#include "vp/host/driver/InterruptRouting.hpp"
#include "vp/host/driver/NvmeDriver.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/ssd/Drive.hpp"

namespace vp::platform {

class NvmeHost : public sc_core::sc_module {
 public:
  // The drive's function: bus 0 device 0 function 0 of the ECAM window.
  static constexpr uint64_t kSsdConfig = host::HostMemoryMap::config_address(0, 0, 0);

  // `queue_pairs`: the driver's I/O queue pairs (one per host core).
  NvmeHost(sc_core::sc_module_name name, Services& svc, unsigned queue_pairs);
  // The drive behind `link`: its BAR0 and configuration space mapped on the
  // bus with DRAM and the interrupt controller, its DMA back up the link.
  void attach(pcie::PcieLink& link, ssd::Drive& drive);

  host::HostDram dram;
  host::InterruptController intc;
  host::InterruptRouting irqs;  // vector -> driver
  host::HostMemoryAllocator memory;  // DMA-able host memory for drivers, jobs and the page cache
  host::HostBus bus;
  host::NvmeDriver driver;
};

}  // namespace vp::platform
