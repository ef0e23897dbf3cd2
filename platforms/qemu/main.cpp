// SPDX-License-Identifier: BSD-3-Clause
// vp-qemu: the SSD model served to a Linux guest in QEMU. Starts QEMU,
// answers its PCI proxy, and simulates the SSD while the guest runs; ends
// when QEMU ends. The guest's console is this program's stdin/stdout; this
// program's own messages go to stderr. See README.md ("A Linux guest in QEMU").
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <iostream>
#include <memory>
#include <cerrno>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemc>
#include <thread>
#include <unistd.h>

#include "platforms/qemu/QemuProcess.hpp"
#include "platforms/qemu/QemuTop.hpp"
#include "vp/platform/DriveList.hpp"
#include "vp/platform/OutputFolder.hpp"
#include "platforms/server/ServerTop.hpp"
#include "vp/platform/RunCli.hpp"
#include "vp/platform/ServerRun.hpp"
#include "vp/platform/Summary.hpp"
#include "vp/core/BuildInfo.hpp"
#include "vp/core/Quote.hpp"
#include "vp/core/RequestRecord.hpp"
#include "vp/pcie/IvshmemServer.hpp"

namespace po = boost::program_options;
using namespace vp;
using namespace vp::platform;

namespace {
// How a guest run goes, from the command line.
struct GuestRun {
  std::string route;  // ivshmem or intx
  bool paced = false;
  double pace_scale = 1.0;
  std::string trace;  // --requests
  unsigned spin_us = 200;
  std::string out_dir;
  bool intx() const { return route == "intx"; }
};

// The run's sockets live here; declared before the server that puts its
// socket in it, so it is removed after, on every way out.
struct RunDir {
  std::string path;
  explicit RunDir(std::string p) : path(std::move(p)) {
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) throw std::runtime_error("cannot create " + path);
  }
  ~RunDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

using CsvFile = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// Every I/O command as the device saw it (--requests); closed when returned.
CsvFile open_command_trace(QemuTop& top, const std::string& path) {
  CsvFile csv(nullptr, &std::fclose);
  if (path.empty()) return csv;
  csv.reset(std::fopen(path.c_str(), "w"));
  if (!csv) throw std::runtime_error("cannot write " + path);
  // New columns go at the end: scripts index the columns. `drive`: the
  // drive's index in platform.drives.
  std::fputs("sqid,cid,opcode,slba,nlb,attr,status,fetch_ps,complete_ps,victim,victim_pages,buffer_status,drive\n",
             csv.get());
  for (size_t k = 0; k < top.drives(); ++k)
    top.drive_at(k).nvme.on_command.subscribe([f = csv.get(), k](const ssd::NvmeController::CommandRecord& r) {
      fmt::print(f, "{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.sqid, r.cid, r.opcode, r.slba, r.nlb, r.attr,
                 r.status, r.fetched, r.completed, r.victim ? 1 : 0, r.victim_pages, r.buffer_status, k);
    });
  return csv;
}

// Serves QEMU's messages and simulates whatever they bring, until QEMU ends.
void simulate_with_guest(QemuTop& top, QemuProcess& qemu, const GuestRun& run) {
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaboration
  auto wall0 = std::chrono::steady_clock::now();
  bool open = true;
  while (open) {
    if (!top.serve(0)) break;
    if (sc_core::sc_pending_activity()) {
      sc_core::sc_time step = sc_core::sc_time_to_pending_activity();
      if (run.paced) {  // the guest should see simulated latencies, scaled: hold back until the wall clock catches up
        double due = (sc_core::sc_time_stamp() + step).to_seconds() * run.pace_scale;
        for (;;) {
          double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
          if (now >= due) break;
          int ms = static_cast<int>((due - now) * 1000);
          if (!(open = top.serve(std::min(ms, 50)))) break;
          if (ms == 0) std::this_thread::yield();
        }
        if (!open) break;
        step = sc_core::sc_time_to_pending_activity();  // a message may have brought work earlier
      }
      sc_core::sc_start(step);
    } else {
      // Idle: the guest's next register access usually follows soon, and
      // its vCPU waits for the answer; polling for a short while answers
      // it without the cost of waking a sleeping process.
      auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(run.spin_us);
      uint64_t before = top.messages();
      while (open && top.messages() == before && std::chrono::steady_clock::now() < spin_until)
        open = top.serve(0);
      if (open && top.messages() == before) open = top.serve(100);
      if (qemu.exited(false)) break;
    }
  }
  qemu.exited(true);
}

// What crossed the bridge (summary.json's "qemu").
nlohmann::json bridge_summary(const QemuTop& top, const QemuProcess& qemu, const GuestRun& run, uint64_t raised) {
  const auto& n = top.bridge.counts();
  uint64_t accesses = n.config + n.bar_reads + n.bar_writes;
  return {{"ended", qemu.how_it_ended()},
          {"config_accesses", n.config},
          {"bar_reads", n.bar_reads},
          {"bar_writes", n.bar_writes},
          {"irq_route", run.route},
          {"interrupts_raised", raised},
          {"irqfd_pairs", n.irqfd_sets},
          {"irqfd_resamples", n.resamples},
          {"irqfd_rearms", n.rearms},
          {"register_access_wall_us", accesses ? n.access_wall_s / double(accesses) * 1e6 : 0.0},
          {"irq_to_doorbell_wall_us",
           n.irq_round_trips ? n.irq_to_doorbell_wall_s / double(n.irq_round_trips) * 1e6 : 0.0}};
}

void print_bridge_counts(const QemuTop& top, const nlohmann::json& q, bool intx) {
  const auto& n = top.bridge.counts();
  if (intx) {
    fmt::print(stderr, "vp-qemu: INTx route: {} irqfd pairs received, {} line raises ({} at a resample that found "
                       "the level asserted, of {} resamples)\n", n.irqfd_sets, n.irqfd_writes, n.rearms, n.resamples);
    if (n.irqfd_sets == 0) fmt::print(stderr, "vp-qemu: warning: QEMU sent no irqfd pair: no interrupt reached the guest\n");
  }
  fmt::print(stderr,
             "vp-qemu: {}; {:.6f} s simulated; {} config, {} BAR reads, {} BAR writes, {} RAM maps, {} resets, "
             "{} interrupts raised\n",
             q["ended"].get<std::string>(), sc_core::sc_time_stamp().to_seconds(), n.config, n.bar_reads, n.bar_writes,
             n.sysmem_syncs, n.resets, q["interrupts_raised"].get<uint64_t>());
  fmt::print(stderr,
             "vp-qemu: wall costs: {:.1f} us to serve a register access (mean of {}), {:.1f} us from raising an "
             "interrupt to the guest's CQ head doorbell (mean of {})\n",
             q["register_access_wall_us"].get<double>(), n.config + n.bar_reads + n.bar_writes,
             q["irq_to_doorbell_wall_us"].get<double>(), n.irq_round_trips);
}

// The run's configuration and summary, as vp-server writes them.
void write_guest_outputs(const std::string& out_dir, const Config& cfg, const StatRegistry& stats, QemuTop& top,
                         const nlohmann::json& bridge) {
  std::filesystem::create_directories(out_dir);
  nlohmann::ordered_json s = summary_head("qemu", cfg);
  s["qemu"] = bridge;
  add_statistics(s, stats);  // each drive's nvme, pcie, dram, firmware, write_buffer, ftl, flash, image
  for (size_t k = 0; k < top.drives(); ++k) s["drives"][k]["nvme"]["cc_ams"] = top.drive_at(k).nvme.arbitration();
  write_run_files(out_dir, cfg, s);
  top.drive.cache.write_outputs(out_dir, true);  // write_buffer.csv, cache_epochs.csv
  fmt::print(stderr, "vp-qemu: outputs in {}/\n", out_dir);
}

// Runs the model against QEMU until QEMU ends; returns the process exit code.
// `run.route`: "ivshmem" (an ivshmem-doorbell companion device and the
// guest's forwarder module) or "intx" (INTx through QEMU's irqfd pair, KVM only).
int serve_guest(const Config& cfg, const QemuOptions& qo, const GuestRun& run) {
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  Services svc{cfg, stats, waves, tracker, static_cast<uint64_t>(cfg.get_int("sim.seed"))};
  int sv[2], av[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw std::runtime_error("socketpair failed");
  // Drives 1.. of platform.drives: a proxied function each.
  const std::vector<std::string> drives = drives_of(cfg);
  std::vector<int> more_ours, more_qemu;
  for (size_t k = 1; k < drives.size(); ++k) {
    int dv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, dv) != 0) throw std::runtime_error("socketpair failed");
    more_ours.push_back(dv[0]);
    more_qemu.push_back(dv[1]);
  }
  // FlashShare's I/O-stack accelerator: a second proxied function.
  const bool accel = cfg.get_switch("accel.enabled");
  if (accel && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, av) != 0)
    throw std::runtime_error("socketpair failed");
  RunDir run_dir(fmt::format("/tmp/vp-qemu-{}", getpid()));
  fmt::print(stderr, "vp-qemu: run folder {} (removed at exit)\n", run_dir.path);
  std::unique_ptr<pcie::IvshmemServer> irq;
  if (!run.intx()) irq = std::make_unique<pcie::IvshmemServer>(run_dir.path + "/irq.sock");
  QemuTop top("top", svc, sv[0], av[0], more_ours);
  for (size_t k = 0; k < top.drives(); ++k) {
    top.bridge_at(k).set_intx_route(run.intx());
    const uint32_t region = pcie::IvshmemServer::drive_region(static_cast<unsigned>(k));
    if (irq) top.bridge_at(k).raise_irq = [&irq, region](uint32_t v) { irq->raise_in(v, region); };
  }
  if (irq && top.accel_bridge())
    top.accel_bridge()->raise_irq = [&irq](uint32_t v) { irq->raise(v, pcie::IvshmemServer::Function::Accelerator); };
  CsvFile csv = open_command_trace(top, run.trace);
  std::vector<ProxyDevice> proxies = {{"flashvp-ssd", sv[1]}};
  for (size_t k = 1; k < drives.size(); ++k) proxies.push_back({"flashvp-" + drives[k], more_qemu[k - 1]});
  if (accel) proxies.push_back({"flashvp-accel", av[1]});
  QemuProcess qemu(qo, proxies, irq ? irq->path() : "");
  for (const ProxyDevice& p : proxies) close(p.fd);
  fmt::print(stderr, "vp-qemu: started {}\n", qemu.command());
  fmt::print(stderr, "vp-qemu: interrupt route {}\n",
             run.intx() ? fmt::format("intx (QEMU's irqfd/resample pair; function built with MSI {}, MSI-X {})",
                                      cfg.get_bool("ssd.pci.msi") ? "on" : "off",
                                      cfg.get_bool("ssd.pci.msix") ? "on" : "off")
                        : "ivshmem (ivshmem-doorbell device and the guest's flashvp_irqfwd module)");
  if (run.intx() && !qo.kvm)
    fmt::print(stderr, "vp-qemu: warning: without KVM QEMU never reads the irqfd: the guest will receive no "
                       "interrupts (only polled queues complete)\n");
  // QEMU connects its ivshmem device while it starts, before the guest runs.
  while (irq && !irq->accept_client(200)) {
    if (qemu.exited(false)) {
      fmt::print(stderr, "vp-qemu: {} before connecting its devices\n", qemu.how_it_ended());
      return 4;
    }
  }
  simulate_with_guest(top, qemu, run);
  nlohmann::json bridge = bridge_summary(top, qemu, run, irq ? irq->raised() : top.bridge.counts().irqfd_writes);
  print_bridge_counts(top, bridge, run.intx());
  for (size_t k = 0; k < top.drives(); ++k)
    if (ssd::SsdImage& image = top.drive_at(k).image; image.enabled()) {
      image.save();
      fmt::print(stderr, "vp-qemu: {} pages loaded from {} at start, {} pages saved to it in {:.3f} s\n",
                 image.loaded().pages, image.path(), image.saved().pages, image.saved().wall_s);
    }
  if (!run.out_dir.empty()) write_guest_outputs(run.out_dir, cfg, stats, top, bridge);
  int st = qemu.status();
  if (WIFSIGNALED(st)) return 4;
  return WEXITSTATUS(st) == 0 ? 0 : 5;
}
}  // namespace

int sc_main(int argc, char** argv) {
  po::options_description desc("vp-qemu options");
  std::vector<std::string> sets;
  RunOptions opt;
  QemuOptions qo;
  std::string pacing = "fast", trace, irq_route = "auto";
  double scale = 1.0;
  unsigned spin_us = 200;
  desc.add_options()("help,h", "show this help")
      ("version", "print the build's version (git describe), its summary.json schema_version and SystemC's, and exit")
      ("list-params", "list vp-qemu's parameters (the drives, their links, the accelerator, the seed) and exit")
      ("preset", po::value(&opt.preset), "a built-in preset (see vp-server --list-presets)")
      ("config", po::value(&opt.config_file), "a configuration in a YAML file")
      ("set", po::value(&sets), "override one parameter: --set key=value (repeatable)")
      ("seed", po::value<std::string>(), "seed of the run (sim.seed)")
      ("kernel", po::value(&qo.kernel), "guest kernel (bzImage; without one the firmware boots from what it finds)")
      ("initrd", po::value(&qo.initrd), "guest initramfs")
      ("append", po::value(&qo.append)->default_value(qo.append), "guest kernel command line")
      ("memory", po::value(&qo.memory)->default_value(qo.memory), "guest RAM (QEMU -m)")
      ("smp", po::value(&qo.smp)->default_value(qo.smp), "guest CPUs")
      ("kvm", po::bool_switch(&qo.kvm), "use KVM instead of TCG")
      ("irq-route", po::value(&irq_route)->default_value(irq_route),
       "how device interrupts reach the guest: ivshmem (an ivshmem-doorbell device and the guest's forwarder "
       "module; works under TCG), intx (INTx through QEMU's irqfd pair, needs KVM; sets ssd.pci.msi and "
       "ssd.pci.msix to false unless given, so the stock driver uses the pin), auto (intx with --kvm, ivshmem otherwise)")
      ("qemu", po::value(&qo.binary)->default_value(qo.binary), "QEMU binary")
      ("qemu-arg", po::value(&qo.extra), "one more QEMU argument (repeatable)")
      ("pacing", po::value(&pacing)->default_value(pacing),
       "fast: simulate as fast as possible; paced: hold simulated time to the wall clock times --pace-scale")
      ("pace-scale", po::value(&scale)->default_value(scale), "wall seconds per simulated second when paced")
      ("spin-us", po::value(&spin_us)->default_value(spin_us),
       "when idle, poll QEMU's socket this long before sleeping (shorter register round trips; 0: never spin)")
      ("out", po::value(&opt.out_dir), "write config.yaml and summary.json (PCIe, FTL, flash, every counter) here")
      ("overwrite", "let --out replace an earlier run's outputs")
      ("requests", po::value(&trace), "write every I/O command as the device saw it to this CSV file "
                                      "(sqid, cid, opcode, slba, nlb, attr, status, fetch and completion time)");
  po::variables_map vm;
  try {
    po::parsed_options parsed = po::command_line_parser(argc, argv).options(desc).run();
    // Boost keeps words outside any option and store() drops them: a bare job file would be ignored.
    for (const auto& o : parsed.options)
      if (o.position_key >= 0 && !o.original_tokens.empty()) {
        fmt::print(stderr, "vp-qemu: unexpected argument '{}' (every argument belongs to an option; see --help)\n", o.original_tokens.front());
        return 2;
      }
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "vp-qemu: {}\n{}", e.what(), (std::ostringstream() << desc).str());
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << version_text("vp-qemu");
    return 0;
  }
  if (vm.count("list-params")) {
    std::cout << platform_params(Platform::Qemu).list();
    return 0;
  }
  if (pacing != "fast" && pacing != "paced") {
    fmt::print(stderr, "vp-qemu: --pacing {}: expected fast or paced\n", vp::quoted(pacing));
    return 2;
  }
  if (irq_route != "auto" && irq_route != "ivshmem" && irq_route != "intx") {
    fmt::print(stderr, "vp-qemu: --irq-route {}: expected auto, ivshmem or intx\n", vp::quoted(irq_route));
    return 2;
  }
  // QEMU sends its irqfd pair with or without KVM, and the ivshmem device
  // must be on its command line from the start, so auto decides by --kvm.
  if (irq_route == "auto") irq_route = qo.kvm ? "intx" : "ivshmem";
  if (!(scale > 0)) {
    fmt::print(stderr, "vp-qemu: --pace-scale {}: must be above 0\n", scale);
    return 2;
  }
  opt.platform = Platform::Qemu;
  if (!add_sets(sets, opt, "vp-qemu")) return 2;
  if (vm.count("seed")) opt.seed = vm["seed"].as<std::string>();
  Config cfg(platform_params(Platform::Qemu));
  try {
    cfg = build_config(opt);
    for (const std::string& w : QemuTop::configure_interrupt_route(cfg, irq_route == "intx"))
      fmt::print(stderr, "vp-qemu: warning: {}\n", w);
    if (cfg.get_switch("accel.enabled") && irq_route == "intx")
      throw ConfigError(fmt::format("accel.enabled = on ({}) with --irq-route intx: the accelerator interrupts by "
                                    "MSI-X, which only the ivshmem route delivers",
                                    cfg.origin("accel.enabled")));
    cfg.validate();
    OutputFolder out;  // held (locked) while QEMU runs
    if (!opt.out_dir.empty()) out = OutputFolder::claim(opt.out_dir, vm.count("overwrite") != 0);
    return serve_guest(cfg, qo, GuestRun{irq_route, pacing == "paced", scale, trace, spin_us, opt.out_dir});
  } catch (const ConfigError& e) {
    fmt::print(stderr, "vp-qemu: configuration error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "vp-qemu: error: {}\n", e.what());
    return 1;
  }
}

int main(int argc, char** argv) { return vp::platform::systemc_main(argc, argv); }
