// SPDX-License-Identifier: BSD-3-Clause
#include "platforms/server/ServerTop.hpp"

#include <fmt/format.h>

#include "vp/accel/IoAccelerator.hpp"
#include "vp/host/completion/DedCoreCompletion.hpp"
#include "vp/core/Rng.hpp"
#include "vp/core/Quote.hpp"
#include "vp/host/HostProfile.hpp"
#include "vp/platform/DriveList.hpp"
#include "vp/platform/PlatformParams.hpp"
#include "vp/platform/Summary.hpp"

namespace vp::platform {

namespace {
using host::NvmeDriver;

unsigned host_cores(const Config& c) { return static_cast<unsigned>(c.get_int("host.cores")); }

// blk-mq and the driver on the host's cores.
void check_host_queues(const Config& c) {
  // Read/write isolation splits the cores' hardware queues in two.
  if (c.get_switch("host.blkmq.rw_isolation") && c.get_int("host.cores") < 2)
    c.fail({"host.blkmq.rw_isolation", "host.cores"},
           "needs at least two hardware queues, one per core (host.cores >= 2)");
  ScopedConfig nvme(c, NvmeDriver::kScope);
  auto cpus = NvmeDriver::irq_cpus_from(nvme);
  if (!cpus.empty() && cpus.back() >= c.get_int("host.cores"))
    c.fail({"host.nvme.irq_affinity", "host.cores"}, fmt::format("cpu {} does not exist", cpus.back()));
  NvmeDriver::Completion m = NvmeDriver::completion_from(nvme);
  // With separate poll queues (select_isr, xler, poll_queues) a polled I/O
  // stays on its core's poll queue and isolation splits the others; poll and
  // hybrid poll every queue, each from its own core only.
  if ((m == NvmeDriver::Completion::Poll || m == NvmeDriver::Completion::Hybrid) &&
      c.get_switch("host.blkmq.rw_isolation"))
    c.fail({"host.nvme.completion", "host.blkmq.rw_isolation"},
           "every queue pair is polled by its own core, but rw_isolation sends a core's I/O to other cores' "
           "queues: use select_isr, or interrupt with host.nvme.poll_queues");
  // xler hands latency-critical bios to the accelerator, a queue per core.
  if (m == NvmeDriver::Completion::Xler && !c.get_switch("accel.enabled"))
    c.fail({"host.nvme.completion", "accel.enabled"},
           "xler needs the I/O-stack accelerator on the PCIe fabric (accel.enabled = on)");
  if (m == NvmeDriver::Completion::Xler && c.get_int("host.cores") > accel::regs::kMaxQueues)
    c.fail({"host.nvme.completion", "host.cores"},
           fmt::format("the accelerator has a queue for each of at most {} cores", accel::regs::kMaxQueues));
  // The accelerator frees its SQ entries by each completion's SQ head.
  if (m == NvmeDriver::Completion::Xler)
    for (const auto& d : drives_of(c))
      if (c.is(d + ".nvme.buffer_status_field", "sq_head"))
        c.fail({"host.nvme.completion", d + ".nvme.buffer_status_field"},
               "the accelerator frees its submission queue entries by each completion's SQ head, which the "
               "write-buffer status would overwrite (its queues would fill and never drain): report it in dw0");
  // dedcore takes one of the cores for polling.
  if (m == NvmeDriver::Completion::DedCore && c.get_int("host.cores") < 2)
    c.fail({"host.nvme.completion", "host.cores"},
           "dedcore needs a core for the jobs besides the polling core (host.cores >= 2)");
}

constexpr const char* kSwitchedKey = "platform.switched";

std::vector<std::string> switched_drives(const Config& c) {
  if (c.get_string(kSwitchedKey).empty()) return {};
  return parse_drives(c.get_string(kSwitchedKey), c.origin(kSwitchedKey));
}

// What several drives (and an array over them) need of each other and of the host.
void check_drives(const Config& c) {
  const std::vector<std::string> drives = drives_of(c);
  const host::MdRaid::Level md = host::MdRaid::level_from(ScopedConfig(c, host::MdRaid::kScope));
  if (md != host::MdRaid::Level::None) {
    if (drives.size() < 2)
      c.fail({"host.md.level", kDrivesKey}, "an array needs at least two drives");
    for (const auto& d : drives)
      if (c.get_size(d + ".nvme.lba_size") != c.get_size(drives[0] + ".nvme.lba_size"))
        c.fail({"host.md.level", d + ".nvme.lba_size", drives[0] + ".nvme.lba_size"},
               "the array's members need one LBA size");
    if (c.get_size("host.md.chunk") % 4096 || c.get_size("host.md.chunk") % c.get_size(drives[0] + ".nvme.lba_size"))
      c.fail({"host.md.chunk", drives[0] + ".nvme.lba_size"}, "not a multiple of 4 KiB and of the LBA size");
  }
  const std::vector<std::string> switched = switched_drives(c);
  for (const auto& d : switched) {
    auto k = std::find(drives.begin(), drives.end(), d);
    if (k == drives.end())
      c.fail({kSwitchedKey, kDrivesKey}, fmt::format("{} is not a drive of the platform", vp::quoted(d)));
    const std::string sw = link_scope(drives, static_cast<unsigned>(k - drives.begin())) + ".switches";
    if (c.get_int(sw) < 1)
      c.fail({kSwitchedKey, sw}, fmt::format("drive {} is below the switch, one of the switches its link counts: 1 or more", d));
  }
  if (drives.size() < 2) return;
  if (c.is("host.nvme.completion", "xler"))
    c.fail({"host.nvme.completion", kDrivesKey},
           "the accelerator serves one drive; xler with several drives is not modeled");
  std::vector<std::string> losing;
  for (const auto& d : drives)
    if (c.get_time(d + ".power_loss_at") != 0) losing.push_back(d + ".power_loss_at");
  if (losing.size() > 1)
    c.fail(losing, "one drive loses power in a run (the run ends with its check); more than one is not modeled");
}

// What vp-server's own parts take of host memory besides the drivers' and
// the jobs': the page cache's frames, the accelerator's queues, md's stripe cache.
void check_server_memory(const Config& c, const host::JobNeeds& needs) {
  using host::HostMemoryAllocator;
  host::HostMemoryMap map(c.get_size("host.dram.size"));
  const uint64_t frames = needs.buffered ? c.get_size("host.pagecache.size") : 0;
  if (needs.buffered && frames + HostMemoryAllocator::kReservedLow > map.largest_region())
    c.fail({"host.pagecache.size", "host.dram.size"},
           fmt::format("{} of page frames fit neither below the PCI hole ({}) nor above 4 GiB ({})",
                       format_size(frames), format_size(map.low_bytes()), format_size(map.high_bytes())));
  const unsigned drives = static_cast<unsigned>(drives_of(c).size());
  std::vector<std::string> keys;
  if (needs.buffered) keys.push_back("host.pagecache.size");
  check_host_memory(
      c, needs,
      [&](HostMemoryAllocator& m) {
        if (c.is("host.nvme.completion", "xler"))
          host::AcceleratorDriver::reserve_memory(ScopedConfig(c, NvmeDriver::kScope), host_cores(c), m);
        if (needs.buffered) m.alloc("page cache frames", frames);
        if (uint64_t cache = host::MdRaid::stripe_cache_bytes(ScopedConfig(c, host::MdRaid::kScope), drives))
          m.alloc("md stripe cache", cache);
      },
      keys);
}
}  // namespace

std::vector<std::string> ServerTop::check_workload(const std::vector<host::FioJob>& jobs, const Config& c) {
  const std::vector<std::string> drives = drives_of(c);
  host::JobTarget target = nvme_job_target(c);
  uint64_t smallest = ~uint64_t(0);
  for (const auto& d : target.devices) smallest = std::min(smallest, d.capacity_bytes);
  ScopedConfig md(c, host::MdRaid::kScope);
  if (host::MdRaid::Level level = host::MdRaid::level_from(md); level != host::MdRaid::Level::None)
    target.devices.push_back({host::MdRaid::kPath, host::MdRaid::capacity(level, md.get_size("chunk"), smallest,
                                                                           static_cast<unsigned>(drives.size()))});
  host::JobNeeds needs = host::Workload::check(jobs, target);
  if (host::MdRaid::level_from(md) == host::MdRaid::Level::Raid5)
    for (const auto& j : jobs)
      if (j.filename == host::MdRaid::kPath && j.has_writes() &&
          host::MdRaid::max_rows(j.max_bs(), md.get_size("chunk"), static_cast<unsigned>(drives.size())) >
              uint64_t(md.get_int("stripe_cache")))
        c.fail({"host.md.stripe_cache", "host.md.chunk"},
               fmt::format("{}: a write of {} bytes may touch {} rows of the RAID-5 array, more than its stripe "
                           "heads",
                           j.at("bs"), j.max_bs(),
                           host::MdRaid::max_rows(j.max_bs(), md.get_size("chunk"), static_cast<unsigned>(drives.size()))));
  // A power loss is judged per drive; an array's blocks are the array's.
  if (host::MdRaid::level_from(md) != host::MdRaid::Level::None)
    for (const auto& d : drives)
      if (c.get_time(d + ".power_loss_at") != 0)
        for (const auto& j : jobs)
          if (j.filename == host::MdRaid::kPath && j.verify)
            c.fail({d + ".power_loss_at", "host.md.level"},
                   fmt::format("{}: what it writes to {} is not judged after a power loss of one of the array's "
                               "drives (the check reads back a drive's own blocks): verify on /dev/nvme<k>n1",
                               j.at("verify"), host::MdRaid::kPath));
  check_server_memory(c, needs);
  return needs.notes;
}

void ServerTop::declare_params(ParamRegistry& r, const std::vector<std::string>& drives) {
  declare_run_params(r, true);
  declare_drives(r, drives);
  declare_nvme_host_params(r);
  host::HostCore::declare_params(ParamScope(r, host::HostCore::kScope));
  host::HostProfile::declare_params(ParamScope(r, host::HostCore::kScope));
  host::BlkMqQueue::declare_params(ParamScope(r, host::BlkMqQueue::kScope));
  host::PageCache::declare_params(ParamScope(r, host::PageCache::kScope));
  host::MdRaid::declare_params(ParamScope(r, host::MdRaid::kScope));
  r.string(kSwitchedKey, "",
           "drives whose links are below one PCIe switch (names of platform.drives, a YAML list or separated by commas; "
           "empty: none): their traffic also crosses the switch's upstream link, pcie_switch.* (gen, lanes, "
           "encoding), and shares its bandwidth; each such link must count the switch (<link>.switches >= 1)")
      .as_list();
  pcie::PcieSwitch::declare_params(ParamScope(r, "pcie_switch"));
  // The I/O-stack accelerator and its own link (vp/accel), and its driver.
  declare_accelerator_params(r);
  host::AcceleratorDriver::declare_params(ParamScope(r, host::AcceleratorDriver::kScope));
  r.rule(check_host_queues);
  add_nvme_host_rules(r, drives);
  r.rule(check_drives);
}

ServerTop::MoreDrive::MoreDrive(ServerTop& top, Services& base, unsigned k, const std::vector<std::string>& drives)
    : svc{base.cfg, base.stats, base.waves, tracker, Rng::derive(base.seed, 0x6472697665ull + k), base.requests},
      port(top.root.port(drives[k] + "_pcie", svc, link_scope(drives, k), nvme::BAR0_SIZE)),
      driver(fmt::format("driver{}", k).c_str(), svc, top.irqs, top.memory, host_cores(base.cfg),
             port.config_address(), port.bar0_base(), NvmeDriver::kScope, fmt::format("host.nvme{}", k)),
      blkmq(ScopedConfig(base.cfg, host::BlkMqQueue::kScope), StatGroup(base.stats, fmt::format("host.blkmq{}", k)),
            driver, host_cores(base.cfg), host_cores(base.cfg)),
      drive(drives[k].c_str(), svc, port.link.timing(), nullptr, drives[k]),
      report(base.stats, drive, port.link, driver) {
  ScopedConfig driver_cfg(base.cfg, NvmeDriver::kScope);
  tracker.resize(NvmeDriver::sq_ids(driver_cfg, host_cores(base.cfg)),
                 static_cast<unsigned>(driver_cfg.get_int("queue_depth")));
  drive.nvme.trace_queues(NvmeDriver::sq_ids(driver_cfg, host_cores(base.cfg)));  // the waveform's queues
  driver.bus.bind(top.bus.in);
  driver.watch_memory(top.dram);
  top.root.attach(port, drive.nvme);
}

ServerTop::ServerTop(sc_core::sc_module_name name, Services& svc, ssd::IFirmware* firmware)
    : NvmeHost(name, svc, host_cores(svc.cfg)),
      blkmq(ScopedConfig(svc.cfg, host::BlkMqQueue::kScope), StatGroup(svc.stats, host::BlkMqQueue::kScope), driver,
            host_cores(svc.cfg), host_cores(svc.cfg)),
      pagecache(svc, memory),
      workload(svc, host_cores(svc.cfg), static_cast<unsigned>(svc.cfg.get_int("host.sched.llc_cores")),
               static_cast<uint32_t>(svc.cfg.get_size(drives_of(svc.cfg)[0] + ".nvme.lba_size")), memory),
      drive(drives_of(svc.cfg)[0].c_str(), svc, link().timing(), firmware, drives_of(svc.cfg)[0]),
      report_(svc.stats, drive, link(), driver) {
  const unsigned n_cores = host_cores(svc.cfg);
  attach(drive);
  devices.add(driver, &blkmq, svc.tracker);
  const std::vector<std::string> drives = drives_of(svc.cfg);
  for (unsigned k = 1; k < drives.size(); ++k) {
    more_.push_back(std::make_unique<MoreDrive>(*this, svc, k, drives));
    devices.add(more_.back()->driver, &more_.back()->blkmq, more_.back()->tracker);
  }
  if (const auto below = switched_drives(svc.cfg); !below.empty()) {
    switch_ = std::make_unique<pcie::PcieSwitch>("pcie_switch", svc, "pcie_switch");
    for (const auto& d : below) {
      const unsigned k = static_cast<unsigned>(std::find(drives.begin(), drives.end(), d) - drives.begin());
      switch_->attach(k == 0 ? link() : more_[k - 1]->port.link);
    }
  }
  if (host::MdRaid::level_from(ScopedConfig(svc.cfg, host::MdRaid::kScope)) != host::MdRaid::Level::None)
    devices.add_md(ScopedConfig(svc.cfg, host::MdRaid::kScope), StatGroup(svc.stats, host::MdRaid::kScope), memory);
  if (svc.cfg.get_switch("accel.enabled")) attach_accelerator(svc);
  unsigned polling = host::DedCoreCompletion::polling_core(ScopedConfig(svc.cfg, host::HostCore::kScope));
  for (unsigned c = 0; c < n_cores; ++c) {
    host::CoreRole role{driver.completion(),
                        driver.completion() == NvmeDriver::Completion::DedCore && c == polling};
    cores_.push_back(
        std::make_unique<host::HostCore>(fmt::format("core{}", c).c_str(), svc, c, role, devices, irqs, workload));
    intc.cpu.bind(cores_.back()->irq);
    peers_.push_back(cores_.back().get());
  }
  for (auto& c : cores_) {
    c->set_peers(&peers_);
    c->set_page_cache(&pagecache);
    if (driver.completion() == NvmeDriver::Completion::Xler) c->set_accelerator(accel_driver_.get());
  }
  pagecache.kick = [this] { cores_[0]->kick(); };  // core 0 runs the flusher
  blkmq.on_run_queued = [this](unsigned c) { cores_[c]->blk_run_queued(); };
  for (auto& m : more_) m->blkmq.on_run_queued = [this](unsigned c) { cores_[c]->blk_run_queued(); };
  svc.stats.section(host::HostCore::kScope, "cpu",
                    "one row per host core: its time as user, kernel, irq, context switches, polling and idle",
                    [this] { return cpu_summary(); });
  // The CFS tunables in effect (host.sched.*: 0 takes Linux's for the core count).
  svc.stats.section(host::HostCore::kScope, "sched", "the CFS tunables in effect", [this] {
    const host::CoreScheduler& s = core(0).scheduler();
    return nlohmann::json{{"latency_us", double(s.latency()) / 1e6},
                          {"min_granularity_us", double(s.min_granularity()) / 1e6},
                          {"wakeup_granularity_us", double(s.wakeup_granularity()) / 1e6}};
  });
  declare_parts(svc.stats, {drives, [this](unsigned k) { return nlohmann::json(devices.path(k)); }, accel_ != nullptr,
                            switch_ != nullptr});
}

// The next root port (bus 0 device 1), on a link of its own; its DMA
// (segment lists, doorbells peer to peer) and the SSD's accesses to its
// queue windows go through the host bus.
void ServerTop::attach_accelerator(Services& svc) {
  PciePort& port = root.port("accel_pcie", svc, "accel.pcie", accel::regs::BAR0_SIZE);
  accel_ = std::make_unique<accel::IoAccelerator>("accel", svc, port.link.timing());
  root.attach(port, *accel_);
  if (driver.completion() != NvmeDriver::Completion::Xler) return;  // on the fabric, unused
  accel_driver_ = std::make_unique<host::AcceleratorDriver>("accel_driver", svc, irqs, memory, driver,
                                                            port.config_address(), port.bar0_base());
  accel_driver_->bus.bind(bus.in);
  // A thread polling the accelerator's register waits for what its next read would see.
  accel::IoAccelerator* a = accel_.get();
  accel_driver_->watch_status(a->done_changed(), [a](unsigned q) { return a->done_waiting(q); });
}

nlohmann::json ServerTop::cpu_summary() {
  nlohmann::json rows = nlohmann::json::array();
  Tick now = now_ps();
  for (unsigned i = 0; i < cores(); ++i) {
    host::CpuTime t = core(i).account_to(now);
    double el = double(now);
    auto pct = [&](Tick v) { return el > 0 ? 100.0 * double(v) / el : 0.0; };
    rows.push_back({{"core", i}, {"elapsed_ps", now}, {"user_ps", t.user}, {"kernel_ps", t.kernel},
                    {"irq_ps", t.irq}, {"ctxsw_ps", t.ctxsw}, {"poll_ps", t.poll}, {"idle_ps", t.idle},
                    {"user_pct", pct(t.user)}, {"kernel_pct", pct(t.kernel)}, {"irq_pct", pct(t.irq)},
                    {"ctxsw_pct", pct(t.ctxsw)}, {"poll_pct", pct(t.poll)}, {"idle_pct", pct(t.idle)}});
  }
  return rows;
}

uint64_t ServerTop::kernel_events() const {
  uint64_t n = Calendar::get().callbacks();
  for (const auto& c : cores_) n += c->wakeups();
  return n;
}

}  // namespace vp::platform
