// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The drive platform (vp-drive): the same drive as vp-server's (NVMe
// controller, firmware, cache, FTL, flash, SSD DRAM) behind the same PCIe
// link, brought up and driven by the same NVMe driver through real SQs and
// CQs in host DRAM, but with nothing of the host above the driver's queues:
// fio jobs issue straight into them (QueueHost). For SSD-internal studies,
// where the host's CPU time and the Linux stack would only get in the way.
//
//   QueueHost -> NvmeDriver -> HostBus -> HostDram | InterruptController | PcieLink.down
//   InterruptController --(irq)-- QueueHost
//   PcieLink.down -> Drive (config, bar0)      Drive.dma -> PcieLink.up -> HostBus
//   inside the Drive: NvmeController -> Firmware -> CacheLayer -> PageMappingFtl -> FlashArray, SsdDram
//
// It declares only the parameters of what it has: the run's, host DRAM,
// the NVMe driver, host.cores (the I/O queue pairs, one per modeled core)
// and host.sched.llc_cores (how jobs are spread over them), the workload,
// the drive and its link. vp-server's presets run unchanged: their keys
// for parts vp-drive lacks (the cores' costs, the scheduler, blk-mq, the
// page cache, md, the accelerator) are left out, while the same keys given
// by --set or a configuration file are refused (ServerRun).
#include <string>
#include <systemc>
#include <vector>

#include "platforms/drive/QueueHost.hpp"
#include "vp/platform/DriveReport.hpp"
#include "vp/platform/NvmeHost.hpp"
#include "vp/core/Services.hpp"
#include "vp/host/workload/Workload.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/ssd/Drive.hpp"

namespace vp::platform {

class DriveTop : public NvmeHost {
 public:
  static void declare_params(ParamRegistry& reg);
  // The jobs against the drive platform: what needs a host it does not have
  // (buffered I/O, fsync, CPU think time, online servers; host-side
  // completion mechanisms) is refused naming the job option or key, then
  // vp-server's checks (capacity, LBA size, host memory) apply.
  static std::vector<std::string> check_workload(const std::vector<host::FioJob>& jobs, const Config& cfg);

  DriveTop(sc_core::sc_module_name name, Services& svc);
  // Callbacks the components ran on the calendar.
  uint64_t kernel_events() const;

  host::Workload workload;
  ssd::Drive drive;
  QueueHost queues;
  // The one drive, as the platforms with several name theirs.
  size_t drives() const { return 1; }
  ssd::Drive& drive_at(size_t) { return drive; }
  pcie::PcieLink& link_at(size_t) { return link(); }

 private:
  DriveReport report_;
};

}  // namespace vp::platform
