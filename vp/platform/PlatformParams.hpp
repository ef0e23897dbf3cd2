// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The parameters the platforms declare from the parts they have, and the
// checks they share: the run's own keys, the drives of platform.drives
// with their links (all three binaries), the modeled NVMe host's DRAM and
// driver with the jobs against the drives and the host's memory (vp-server,
// vp-drive), the I/O-stack accelerator (vp-server, vp-qemu). Each platform
// adds the parts only it has (vp-server: cores, blk-mq, page cache, md, a
// switch).
#include <functional>
#include <string>
#include <vector>

#include "vp/core/Config.hpp"
#include "vp/core/Param.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/workload/Workload.hpp"

namespace vp::platform {

// sim.seed, and with `time_limits` sim.max_time and sim.watchdog.
void declare_run_params(ParamRegistry& r, bool time_limits);
// platform.drives, each drive and its link (and ssd, the drives' common
// keys, when no drive has that name).
void declare_drives(ParamRegistry& r, const std::vector<std::string>& drives);
// host.dram.*, host.nvme.*, workload.fio.
void declare_nvme_host_params(ParamRegistry& r);
// accel.enabled, the accelerator's keys and its link's (accel.pcie).
void declare_accelerator_params(ParamRegistry& r);
// The rules joining the driver's queues to each drive's controller.
void add_nvme_host_rules(ParamRegistry& r, const std::vector<std::string>& drives);
// What the jobs run against: each drive's namespace (/dev/nvme<k>n1) and
// size, the first drive's block, the host's cores and completion mode.
host::JobTarget nvme_job_target(const Config& c);
// The host memory a run takes (every driver's queues and PRP lists, the
// jobs' buffers, and what `more` takes) placed as the run will; a run that
// does not fit fails naming host.dram.size, the keys that size it and `more_keys`.
void check_host_memory(const Config& c, const host::JobNeeds& needs,
                       const std::function<void(host::HostMemoryAllocator&)>& more,
                       const std::vector<std::string>& more_keys);

}  // namespace vp::platform
