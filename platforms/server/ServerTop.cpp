// SPDX-License-Identifier: BSD-3-Clause
#include "platforms/server/ServerTop.hpp"

#include <fmt/format.h>

#include "vp/accel/IoAccelerator.hpp"
#include "vp/host/HostProfile.hpp"

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
  if (m != NvmeDriver::Completion::Interrupt && m != NvmeDriver::Completion::DedCore &&
      c.get_switch("host.blkmq.rw_isolation"))
    c.fail({"host.nvme.completion", "host.blkmq.rw_isolation"},
           "a core polls its own queue pair, but rw_isolation sends its I/O to other cores' queues: not modeled "
           "together");
  // xler hands latency-critical bios to the accelerator, a queue per core.
  if (m == NvmeDriver::Completion::Xler && !c.get_switch("accel.enabled"))
    c.fail({"host.nvme.completion", "accel.enabled"},
           "xler needs the I/O-stack accelerator on the PCIe fabric (accel.enabled = on)");
  if (m == NvmeDriver::Completion::Xler && c.get_int("host.cores") > accel::regs::kMaxQueues)
    c.fail({"host.nvme.completion", "host.cores"},
           fmt::format("the accelerator has a queue for each of at most {} cores", accel::regs::kMaxQueues));
  // dedcore takes one of the cores for polling.
  if (m == NvmeDriver::Completion::DedCore && c.get_int("host.cores") < 2)
    c.fail({"host.nvme.completion", "host.cores"},
           "dedcore needs a core for the jobs besides the polling core (host.cores >= 2)");
}

// The driver's queues against what the controller accepts.
void check_driver_on_controller(const Config& c) {
  ScopedConfig nvme(c, NvmeDriver::kScope);
  int64_t qd = c.get_int("host.nvme.queue_depth"), mq = c.get_int("ssd.nvme.max_queue_entries");
  if (qd > mq)
    c.fail({"host.nvme.queue_depth", "ssd.nvme.max_queue_entries"}, "the queue is longer than the controller accepts");
  if (c.get_int("host.nvme.admin_queue_depth") > std::min<int64_t>(mq, 4096))
    c.fail({"host.nvme.admin_queue_depth", "ssd.nvme.max_queue_entries"},
           "the admin queue is longer than the controller accepts");
  int64_t cores = c.get_int("host.cores"), max_queues = c.get_int("ssd.nvme.max_io_queues");
  if (cores > max_queues)
    c.fail({"host.cores", "ssd.nvme.max_io_queues"},
           "one I/O queue pair per core needs ssd.nvme.max_io_queues >= host.cores");
  if (c.get_switch("host.nvme.dual_sq") && 2 * cores > max_queues)
    c.fail({"host.nvme.dual_sq", "host.cores", "ssd.nvme.max_io_queues"},
           "two SQs per core need ssd.nvme.max_io_queues >= 2 * host.cores");
  if (int64_t sqs = NvmeDriver::sq_ids(nvme, static_cast<unsigned>(cores)) - 1;
      NvmeDriver::separate_poll_queues(nvme) && sqs > max_queues) {
    const bool xler = c.is("host.nvme.completion", "xler");
    std::vector<std::string> keys = {xler || c.is("host.nvme.completion", "select_isr") ? "host.nvme.completion"
                                                                                         : "host.nvme.poll_queues",
                                     "host.cores", "ssd.nvme.max_io_queues"};
    if (c.get_switch("host.nvme.dual_sq")) keys.push_back("host.nvme.dual_sq");
    c.fail(keys, fmt::format("a poll queue pair per core{} besides the others needs ssd.nvme.max_io_queues >= {}",
                             xler ? " and the accelerator's pair per core" : "", sqs));
  }
}

// The host memory a run takes (the driver's queues and PRP lists, the page
// cache's frames, the jobs' buffers), placed by the allocator the run uses.
void check_host_memory(const Config& c, const host::JobNeeds& needs) {
  using host::HostMemoryAllocator;
  host::HostMemoryMap map(c.get_size("host.dram.size"));
  const uint64_t frames = needs.buffered ? c.get_size("host.pagecache.size") : 0;
  if (needs.buffered && frames + HostMemoryAllocator::kReservedLow > map.largest_region())
    c.fail({"host.pagecache.size", "host.dram.size"},
           fmt::format("{} of page frames fit neither below the PCI hole ({}) nor above 4 GiB ({})",
                       format_size(frames), format_size(map.low_bytes()), format_size(map.high_bytes())));
  auto place = [&](HostMemoryAllocator& m) {
    NvmeDriver::reserve_memory(ScopedConfig(c, NvmeDriver::kScope), host_cores(c), m);
    if (c.is("host.nvme.completion", "xler"))
      host::AcceleratorDriver::reserve_memory(ScopedConfig(c, NvmeDriver::kScope), host_cores(c), m);
    if (needs.buffered) m.alloc("page cache frames", frames);
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
    if (needs.buffered) keys.push_back("host.pagecache.size");
    c.fail(keys, fmt::format("too small for the queues and I/O buffers of this run (needs about {:.1f} GiB; {})",
                             double(need) / double(1ull << 30), needs.largest.empty() ? e.what() : needs.largest));
  }
}
}  // namespace

std::vector<std::string> ServerTop::check_workload(const std::vector<host::FioJob>& jobs, const Config& c) {
  host::JobTarget target;
  target.capacity_bytes = ssd::Drive::capacity_bytes(c);
  target.lba_size = c.get_size("ssd.nvme.lba_size");
  target.lba_size_setting = c.describe("ssd.nvme.lba_size");
  target.cores = host_cores(c);
  target.cores_setting = c.describe("host.cores");
  NvmeDriver::Completion m = NvmeDriver::completion_from(ScopedConfig(c, NvmeDriver::kScope));
  target.interrupt_queues = m != NvmeDriver::Completion::Poll && m != NvmeDriver::Completion::Hybrid;
  target.completion_setting = c.describe("host.nvme.completion");
  host::JobNeeds needs = host::Workload::check(jobs, target);
  check_host_memory(c, needs);
  return needs.notes;
}

void ServerTop::declare_params(ParamRegistry& r) {
  r.integer("sim.seed", 1, "seed of every random stream of the run (--seed)").at_least(0);
  r.time("sim.max_time", "0ns", "stop the run after this much simulated time (0: run until the jobs end)");
  r.time("sim.watchdog", "300s",
         "wall-clock time (not simulated) a chunk of the simulation may take before the run is taken as stuck: it "
         "stops with its summary (completed false, the simulated time it was stuck at) and exit code 3 (0: never)");
  host::HostCore::declare_params(ParamScope(r, host::HostCore::kScope));
  host::HostProfile::declare_params(ParamScope(r, host::HostCore::kScope));
  host::HostDram::declare_params(ParamScope(r, host::HostDram::kScope));
  NvmeDriver::declare_params(ParamScope(r, NvmeDriver::kScope));
  host::BlkMqQueue::declare_params(ParamScope(r, host::BlkMqQueue::kScope));
  host::PageCache::declare_params(ParamScope(r, host::PageCache::kScope));
  host::Workload::declare_params(r);
  pcie::PcieLink::declare_params(ParamScope(r, "pcie"));
  // The I/O-stack accelerator and its own link (vp/accel), and its driver.
  r.choice("accel.enabled", "off", {"off", "on"},
           "FlashShare's I/O-stack accelerator as a PCIe function of its own, in the root port after the drive's "
           "(bus 0 device 1), on a link of its own (accel.pcie.*); host.nvme.completion = xler uses it");
  accel::IoAccelerator::declare_params(ParamScope(r, accel::IoAccelerator::kScope), ParamScope(r, "accel.pci"));
  pcie::PcieLink::declare_params(ParamScope(r, "accel.pcie"));
  host::AcceleratorDriver::declare_params(ParamScope(r, host::AcceleratorDriver::kScope));
  ssd::Drive::declare_params(ParamScope(r, ssd::Drive::kScope));
  r.rule(check_host_queues);
  r.rule(check_driver_on_controller);
}

ServerTop::ServerTop(sc_core::sc_module_name name, Services& svc, ssd::IFirmware* firmware)
    : NvmeHost(name, svc, host_cores(svc.cfg)),
      blkmq(ScopedConfig(svc.cfg, host::BlkMqQueue::kScope), StatGroup(svc.stats, host::BlkMqQueue::kScope), driver,
            host_cores(svc.cfg), host_cores(svc.cfg)),
      pagecache(svc, memory),
      workload(svc, host_cores(svc.cfg), static_cast<unsigned>(svc.cfg.get_int("host.sched.llc_cores")),
               static_cast<uint32_t>(svc.cfg.get_size("ssd.nvme.lba_size")), memory),
      drive("ssd", svc, link().timing(), firmware),
      report_(drive, link(), driver) {
  const unsigned n_cores = host_cores(svc.cfg);
  attach(drive);
  if (svc.cfg.get_switch("accel.enabled")) attach_accelerator(svc);
  unsigned polling = host::HostCore::polling_core(ScopedConfig(svc.cfg, host::HostCore::kScope));
  for (unsigned c = 0; c < n_cores; ++c) {
    host::CoreRole role{driver.completion(),
                        driver.completion() == NvmeDriver::Completion::DedCore && c == polling};
    cores_.push_back(std::make_unique<host::HostCore>(fmt::format("core{}", c).c_str(), svc, c, role, driver, irqs,
                                                      blkmq, workload));
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
  svc.stats.section("cpu", [this] { return cpu_summary(); });
  // The CFS tunables in effect (host.sched.*: 0 takes Linux's for the core count).
  svc.stats.section("sched", [this] {
    const host::CoreScheduler& s = core(0).scheduler();
    return nlohmann::json{{"latency_us", double(s.latency()) / 1e6},
                          {"min_granularity_us", double(s.min_granularity()) / 1e6},
                          {"wakeup_granularity_us", double(s.wakeup_granularity()) / 1e6}};
  });
  svc.stats.section("device", [this] { return report_.summary(); });
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
