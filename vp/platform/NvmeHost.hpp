// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the platforms that drive an NVMe drive from a modeled host share
// (vp-server, vp-drive): host DRAM, the interrupt controller and the vector
// table, the DMA-able host memory, the host bus, the PCIe root complex with
// the drive's port (bus 0 device 0), and the NVMe driver on the bus with a
// request record per command id of every SQ it may create. The platform
// adds what runs above the driver and the drive below it.
#include <systemc>

#include "vp/core/Services.hpp"
#include "vp/host/hw/HostBus.hpp"
#include "vp/host/hw/HostDram.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/hw/InterruptController.hpp"
#include "vp/host/driver/InterruptRouting.hpp"
#include "vp/host/driver/NvmeDriver.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/platform/RootComplex.hpp"
#include "vp/ssd/Drive.hpp"

namespace vp::platform {

class NvmeHost : public sc_core::sc_module {
 public:
  // `queue_pairs`: the driver's I/O queue pairs (one per host core).
  NvmeHost(sc_core::sc_module_name name, Services& svc, unsigned queue_pairs);
  // The drive in the driver's port; its waveform holds the queues the driver may create.
  void attach(ssd::Drive& drive) {
    root.attach(drive_port, drive.nvme);
    drive.nvme.trace_queues(sq_ids_);
  }
  // The drive's link (keys and statistics "pcie").
  pcie::PcieLink& link() { return drive_port.link; }

  host::HostDram dram;
  host::InterruptController intc;
  host::InterruptRouting irqs;  // vector -> driver
  host::HostMemoryAllocator memory;  // DMA-able host memory for drivers, jobs and the page cache
  host::HostBus bus;
  RootComplex root;
  PciePort& drive_port;
  host::NvmeDriver driver;

 private:
  unsigned sq_ids_;  // SQ ids the driver may use (CQ ids are fewer)
};

}  // namespace vp::platform
