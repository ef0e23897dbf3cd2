// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/PlatformParams.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "vp/accel/IoAccelerator.hpp"
#include "vp/host/block/BlockDevices.hpp"
#include "vp/host/driver/NvmeDriver.hpp"
#include "vp/host/hw/HostDram.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/platform/DriveList.hpp"
#include "vp/ssd/Drive.hpp"

namespace vp::platform {

namespace {
using host::NvmeDriver;

unsigned host_cores(const Config& c) { return static_cast<unsigned>(c.get_int("host.cores")); }

// The driver's queues against what the drive's controller accepts.
void check_driver_on_controller(const Config& c, const std::string& drive) {
  ScopedConfig nvme(c, NvmeDriver::kScope);
  const std::string mq_key = drive + ".nvme.max_queue_entries", max_queues_key = drive + ".nvme.max_io_queues";
  int64_t qd = c.get_int("host.nvme.queue_depth"), mq = c.get_int(mq_key);
  if (qd > mq) c.fail({"host.nvme.queue_depth", mq_key}, "the queue is longer than the controller accepts");
  if (c.get_int("host.nvme.admin_queue_depth") > std::min<int64_t>(mq, 4096))
    c.fail({"host.nvme.admin_queue_depth", mq_key}, "the admin queue is longer than the controller accepts");
  int64_t cores = c.get_int("host.cores"), max_queues = c.get_int(max_queues_key);
  if (cores > max_queues)
    c.fail({"host.cores", max_queues_key},
           fmt::format("one I/O queue pair per core needs {} >= host.cores", max_queues_key));
  if (c.get_switch("host.nvme.dual_sq") && 2 * cores > max_queues)
    c.fail({"host.nvme.dual_sq", "host.cores", max_queues_key},
           fmt::format("two SQs per core need {} >= 2 * host.cores", max_queues_key));
  if (int64_t sqs = NvmeDriver::sq_ids(nvme, static_cast<unsigned>(cores)) - 1;
      NvmeDriver::separate_poll_queues(nvme) && sqs > max_queues) {
    const bool xler = c.is("host.nvme.completion", "xler");
    std::vector<std::string> keys = {xler || c.is("host.nvme.completion", "select_isr") ? "host.nvme.completion"
                                                                                         : "host.nvme.poll_queues",
                                     "host.cores", max_queues_key};
    if (c.get_switch("host.nvme.dual_sq")) keys.push_back("host.nvme.dual_sq");
    c.fail(keys, fmt::format("a poll queue pair per core{} besides the others needs {} >= {}",
                             xler ? " and the accelerator's pair per core" : "", max_queues_key, sqs));
  }
}
}  // namespace

void declare_run_params(ParamRegistry& r, bool time_limits) {
  r.integer("sim.seed", 1, "seed of every random stream of the run (--seed)").at_least(0);
  if (!time_limits) return;
  r.time("sim.max_time", "0ns", "stop the run after this much simulated time (0: run until the jobs end)");
  r.time("sim.watchdog", "300s",
         "wall-clock time (not simulated) a chunk of the simulation may take before the run is taken as stuck: it "
         "stops with its summary (completed false, the simulated time it was stuck at) and exit code 3 (0: never)");
}

void declare_nvme_host_params(ParamRegistry& r) {
  host::HostDram::declare_params(ParamScope(r, host::HostDram::kScope));
  NvmeDriver::declare_params(ParamScope(r, NvmeDriver::kScope));
  host::Workload::declare_params(r);
}

void declare_accelerator_params(ParamRegistry& r) {
  r.choice("accel.enabled", "off", {"off", "on"},
           "FlashShare's I/O-stack accelerator as a PCIe function of its own, in the root port after the drive's "
           "(bus 0 device 1), on a link of its own (accel.pcie.*); host.nvme.completion = xler uses it");
  accel::IoAccelerator::declare_params(ParamScope(r, accel::IoAccelerator::kScope), ParamScope(r, "accel.pci"));
  pcie::PcieLink::declare_params(ParamScope(r, "accel.pcie"));
}

void declare_drives(ParamRegistry& r, const std::vector<std::string>& drives) {
  declare_drive_list(r);
  for (unsigned k = 0; k < drives.size(); ++k) pcie::PcieLink::declare_params(ParamScope(r, link_scope(drives, k)));
  // ssd: the drives' common keys, the first drive's when it has that name.
  if (std::find(drives.begin(), drives.end(), kTemplateDrive) == drives.end())
    ssd::Drive::declare_params(ParamScope(r, kTemplateDrive));
  for (const auto& d : drives) ssd::Drive::declare_params(ParamScope(r, d));
}

void add_nvme_host_rules(ParamRegistry& r, const std::vector<std::string>& drives) {
  for (const auto& d : drives) r.rule([d](const Config& c) { check_driver_on_controller(c, d); });
}

host::JobTarget nvme_job_target(const Config& c) {
  const std::vector<std::string> drives = drives_of(c);
  host::JobTarget target;
  target.capacity_bytes = ssd::Drive::capacity_bytes(c, drives[0]);
  target.lba_size = c.get_size(drives[0] + ".nvme.lba_size");
  target.lba_size_setting = c.describe(drives[0] + ".nvme.lba_size");
  for (unsigned k = 0; k < drives.size(); ++k)
    target.devices.push_back({host::BlockDevices::nvme_path(k), ssd::Drive::capacity_bytes(c, drives[k])});
  target.cores = host_cores(c);
  target.cores_setting = c.describe("host.cores");
  NvmeDriver::Completion m = NvmeDriver::completion_from(ScopedConfig(c, NvmeDriver::kScope));
  target.interrupt_queues = m != NvmeDriver::Completion::Poll && m != NvmeDriver::Completion::Hybrid;
  target.completion_setting = c.describe("host.nvme.completion");
  return target;
}

void check_host_memory(const Config& c, const host::JobNeeds& needs,
                       const std::function<void(host::HostMemoryAllocator&)>& more,
                       const std::vector<std::string>& more_keys) {
  using host::HostMemoryAllocator;
  const unsigned drives = static_cast<unsigned>(drives_of(c).size());
  host::HostMemoryMap map(c.get_size("host.dram.size"));
  auto place = [&](HostMemoryAllocator& m) {
    for (unsigned d = 0; d < drives; ++d)
      NvmeDriver::reserve_memory(ScopedConfig(c, NvmeDriver::kScope), host_cores(c), m);
    if (more) more(m);
    for (const auto& b : needs.buffers) m.alloc_many(b.what, b.count, b.bytes);
  };
  try {
    HostMemoryAllocator run(map);
    place(run);
  } catch (const host::HostMemoryError& e) {
    HostMemoryAllocator unbounded(host::HostMemoryMap(uint64_t(1) << 62));
    place(unbounded);
    uint64_t need = HostMemoryAllocator::kReservedLow + unbounded.used_low() + unbounded.used_high();
    std::vector<std::string> keys = {"host.dram.size", "host.cores", "host.nvme.queue_depth"};
    keys.insert(keys.end(), more_keys.begin(), more_keys.end());
    c.fail(keys, fmt::format("too small for the queues and I/O buffers of this run (needs about {:.1f} GiB; {})",
                             double(need) / double(1ull << 30), needs.largest.empty() ? e.what() : needs.largest));
  }
}

}  // namespace vp::platform
