// SPDX-License-Identifier: BSD-3-Clause
#include "platforms/drive/DriveTop.hpp"

#include <fmt/format.h>

#include "vp/host/sched/CoreScheduler.hpp"
#include "vp/platform/PlatformParams.hpp"
#include "vp/platform/Summary.hpp"

namespace vp::platform {

namespace {
unsigned queue_pairs(const Config& c) { return static_cast<unsigned>(c.get_int("host.cores")); }

[[noreturn]] void refuse(const host::FioJob& j, const std::string& option, const std::string& why,
                         const std::string& then = "") {
  throw ConfigError(fmt::format("{}: {} (vp-drive has no host above the NVMe queues; vp-server runs it){}",
                                j.at(option), why, then));
}
}  // namespace

std::vector<std::string> DriveTop::check_workload(const std::vector<host::FioJob>& jobs, const Config& c) {
  using host::NvmeDriver;
  NvmeDriver::Completion m = NvmeDriver::completion_from(ScopedConfig(c, NvmeDriver::kScope));
  if (m != NvmeDriver::Completion::Interrupt && m != NvmeDriver::Completion::Poll)
    c.fail({"host.nvme.completion"}, "vp-drive takes completions by interrupt or by polling (interrupt, poll); the "
                                     "others are host-side mechanisms of vp-server");
  const int64_t mdts = c.get_int("ssd.nvme.mdts");
  const uint64_t max_transfer = mdts > 0 ? uint64_t(4096) << mdts : 0;
  for (const host::FioJob& j : jobs) {
    // No page cache here: a job fio would run buffered (direct=0, its
    // default) is refused, not run direct behind the user's back.
    if (j.buffered_io())
      refuse(j, j.where.count("buffered") && !j.where.count("direct") ? "buffered" : "direct",
             "buffered I/O (direct=0) goes through a page cache", j.direct_hint());
    if (j.online) refuse(j, "online", "an online server needs host cores for its workers");
    if (j.thinktime_spin_ps) refuse(j, "thinktime_spin", "spinning burns CPU on a host core");
    if (j.thinktime_insts) refuse(j, j.app.empty() ? "thinktime_insts" : "app", "compute between I/Os runs on a host core");
    if (max_transfer && j.read_iolog.empty() && j.max_bs() > max_transfer && (j.has_reads() || j.has_writes()))
      refuse(j, j.bssplit.empty() ? "bs" : "bssplit",
             fmt::format("a {}-byte I/O is over the drive's largest transfer ({} bytes, ssd.nvme.mdts = {}), "
                         "and there is no blk-mq to split it", j.max_bs(), max_transfer, mdts));
  }
  host::JobNeeds needs = host::Workload::check(jobs, nvme_job_target(c));
  check_host_memory(c, needs, nullptr, {});
  return needs.notes;
}

void DriveTop::declare_params(ParamRegistry& r) {
  declare_run_params(r, true);
  declare_drives(r, {"ssd"});
  declare_nvme_host_params(r);
  r.integer("host.cores", 4,
            "I/O queue pairs the driver creates, one per modeled host core: a job is placed on a core (cpus_allowed) "
            "and issues on its queue pair")
      .range(1, 256);
  host::CoreScheduler::declare_llc_cores(ParamScope(r, "host.sched"));
  add_nvme_host_rules(r, {"ssd"});
}

DriveTop::DriveTop(sc_core::sc_module_name name, Services& svc)
    : NvmeHost(name, svc, queue_pairs(svc.cfg)),
      workload(svc, queue_pairs(svc.cfg), static_cast<unsigned>(svc.cfg.get_int("host.sched.llc_cores")),
               static_cast<uint32_t>(svc.cfg.get_size("ssd.nvme.lba_size")), memory),
      drive("ssd", svc, link().timing()),
      queues("queues", svc, driver, irqs, workload, queue_pairs(svc.cfg)),
      report_(svc.stats, drive, link(), driver) {
  attach(drive);
  for (unsigned q = 0; q < queue_pairs(svc.cfg); ++q) intc.cpu.bind(queues.irq(q));
  SummaryParts parts;
  parts.drives = {drive.scope()};
  declare_parts(svc.stats, parts);
}

uint64_t DriveTop::kernel_events() const { return Calendar::get().callbacks(); }

}  // namespace vp::platform
