// SPDX-License-Identifier: BSD-3-Clause
#include "platforms/server/ServerTop.hpp"

#include <fmt/format.h>

namespace vp::platform {

namespace {
// The SSD's function: bus 0 device 0 function 0 of the ECAM window.
constexpr uint64_t kSsdConfig = host::HostMemoryMap::config_address(0, 0, 0);
}  // namespace

void ServerTop::declare_params(ParamRegistry& r) {
  r.integer("sim.seed", 1, "seed of every random stream of the run (--seed)").at_least(0);
  r.time("sim.max_time", "0ns", "stop the run after this much simulated time (0: run until the jobs end)");
  r.time("ssd.power_loss_at", "0ns",
         "the power fails at this simulated time (the drive idles until then if the jobs end first): with "
         "ssd.plp.enabled the drive drains its buffers on hold-up power, then its power is cut, the FTL is rebuilt "
         "from flash and every block verify=1 jobs acknowledged is checked against what NVMe promised (durable "
         "blocks must read back); the run ends there (0: never)");
  host::HostCore::declare_params(r);
  host::HostDram::declare_params(r);
  host::NvmeDriver::declare_params(r);
  host::BlkMqQueue::declare_params(r);
  host::PageCache::declare_params(r);
  host::Workload::declare_params(r);
  pcie::PcieLink::declare_params(ParamScope(r, "pcie"));
  ssd::Drive::declare_params(r);
}

ServerTop::ServerTop(sc_core::sc_module_name name, Services& svc, ssd::IFirmware* firmware)
    : sc_module(name),
      dram("dram", svc),
      intc("intc", svc),
      irqs(svc.stats),
      memory(host::HostMemoryMap(svc.cfg.get_size("host.dram.size"))),
      bus("bus"),
      driver("driver", svc, irqs, memory, static_cast<unsigned>(svc.cfg.get_int("host.cores")), kSsdConfig,
             host::HostBus::kPcieMmioBase),
      blkmq(svc.cfg, svc.stats, driver, static_cast<unsigned>(svc.cfg.get_int("host.cores")),
            static_cast<unsigned>(svc.cfg.get_int("host.cores"))),
      pagecache(svc, memory),
      workload(svc, static_cast<unsigned>(svc.cfg.get_int("host.cores")), memory),
      link("pcie", svc, "pcie"),
      drive("ssd", svc, link.timing(), firmware),
      stats_(svc.stats) {
  // Host side: the CPU complex and PCIe upstream are the bus's initiators.
  driver.bus.bind(bus.in);
  driver.watch_memory(dram.written());  // polled CQs wait on device writes landing
  link.up_out.bind(bus.in);
  bus.map_dram(dram.socket, host::HostMemoryMap(dram.size()));
  bus.map(intc.socket, host::InterruptController::kBase, host::InterruptController::kSize, "msi");
  bus.map(link.down_in, host::HostBus::kPcieMmioBase, nvme::BAR0_SIZE, "nvme bar0");
  bus.map(link.cfg_in, kSsdConfig, pcie::PciConfigSpace::kSize, "nvme config space");
  // PCIe to the SSD and back.
  link.down_out.bind(drive.bar0());
  link.cfg_out.bind(drive.config());
  drive.set_intx_address(host::InterruptController::intx_address());
  drive.dma().bind(link.up_in);
  for (unsigned c = 0; c < static_cast<unsigned>(svc.cfg.get_int("host.cores")); ++c) {
    cores_.push_back(
        std::make_unique<host::HostCore>(fmt::format("core{}", c).c_str(), svc, c, driver, irqs, blkmq,
                                                       workload));
    intc.cpu.bind(cores_.back()->irq);
    peers_.push_back(cores_.back().get());
  }
  for (auto& c : cores_) {
    c->set_peers(&peers_);
    c->set_page_cache(&pagecache);
  }
  pagecache.kick = [this] { cores_[0]->kick(); };  // core 0 runs the flusher
  drive.nvme.on_command.subscribe([this](const ssd::NvmeController::CommandRecord& c) {
    if (c.opcode == nvme::IO_READ) ++commands_.reads;
    if (c.opcode != nvme::IO_WRITE) return;
    ++commands_.writes;
    commands_.written_blocks += c.nlb;
    if (c.victim) {
      ++commands_.victim_writes;
      commands_.victim_pages_max = std::max<uint64_t>(commands_.victim_pages_max, c.victim_pages);
    }
  });
  svc.stats.section("cpu", [this] { return cpu_summary(); });
  svc.stats.section("device", [this] { return device_summary(); });
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

nlohmann::json ServerTop::device_summary() const {
  return {{"flash_reads", stats_.value("ssd.flash.reads")},
          {"flash_programs", stats_.value("ssd.flash.programs")},
          {"flash_erases", stats_.value("ssd.flash.erases")},
          {"pcie_bytes_down", stats_.value("pcie.bytes_down")},
          {"pcie_bytes_up", stats_.value("pcie.bytes_up")},
          {"nvme_error_completions", stats_.value("ssd.nvme.error_completions")},
          {"volatile_write_cache", driver.info().volatile_write_cache},  // Identify VWC as the host read it
          {"flash_stored_bytes", drive.flash.stored_bytes()},
          {"read_commands", commands_.reads},
          {"write_commands", commands_.writes},
          {"written_blocks", commands_.written_blocks},
          {"victim_writes", commands_.victim_writes},
          {"victim_pages_max", commands_.victim_pages_max}};
}

uint64_t ServerTop::kernel_events() const {
  uint64_t n = dram.events() + intc.events() + drive.events();
  for (const auto& c : cores_) n += c->wakeups();
  return n;
}

}  // namespace vp::platform
