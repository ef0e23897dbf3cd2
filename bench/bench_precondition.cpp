// SPDX-License-Identifier: BSD-3-Clause
// Preconditioning benchmark: a 512 GiB TLC drive (FastDrain Table 1's
// organisation: 16 channels x 4 packages x 2 dies x 2 planes, 8 KiB pages)
// filled to 90% without simulating time. Prints the wall time, the FTL's
// and the flash store's memory, the process's peak memory, and the time of
// a power-loss recovery without checkpoints right after. `aged`: a
// random fill aged twice over to GC steady state (ssd.precondition.age=2)
// by the default age model (auto: sampled here); add --set
// ssd.precondition.age_model=replay for the write-by-write ageing.
// Usage: vp-bench-precondition [sequential|random|aged] [--set key=value]...
#include <chrono>
#include <fmt/format.h>
#include <string>
#include <sys/resource.h>
#include <systemc>

#include "bench/BenchArgs.hpp"
#include "vp/platform/ServerRun.hpp"
#include "vp/flash/FlashArray.hpp"
#include "vp/ssd/ftl/PageMappingFtl.hpp"

using namespace vp;
using namespace vp::platform;

int sc_main(int argc, char** argv) {
  RunOptions opt;
  opt.preset = "quick";
  std::string pattern = "sequential";
  // 256 planes x 683 blocks x 384 pages x 8 KiB = 512.25 GiB raw.
  opt.sets = {{"ssd.flash.cell", "tlc-fastdrain"},        {"ssd.flash.channels", "16"},
              {"ssd.flash.packages_per_channel", "4"},    {"ssd.flash.dies_per_package", "2"},
              {"ssd.flash.planes_per_die", "2"},          {"ssd.flash.page_size", "8KiB"},
              {"ssd.flash.block_size", "3MiB"},           {"ssd.flash.blocks_per_plane", "683"},
              {"ssd.ftl.overprovision", "0.07"},          {"ssd.precondition.fill", "0.9"},
              {"ssd.nvme.lba_size", "8KiB"},              {"workload.fio", "[r]\ndirect=1\nrw=randread\nbs=8k\nnumber_ios=1\n"}};
  const char* usage = "usage: vp-bench-precondition [sequential|random|aged] [--set key=value]...\n";
  auto words = bench::parse_args(argc, argv, opt.sets, usage);
  if (words.size() > 1) {
    fmt::print(stderr, "vp-bench-precondition: one pattern expected, got {} words\n{}", words.size(), usage);
    return 2;
  }
  if (!words.empty()) pattern = words[0];  // checked with the configuration (ssd.precondition.pattern)
  if (pattern == "aged") {  // before the command line's sets, which may override these
    opt.sets.insert(opt.sets.begin(), {"ssd.precondition.age", "2"});
    opt.sets.emplace_back("ssd.precondition.pattern", "random");
  } else {
    opt.sets.emplace_back("ssd.precondition.pattern", pattern);
  }
  try {
    Config cfg = build_config(opt);
    StatRegistry stats;
    Waves waves;
    RequestTracker tracker;
    Services svc{cfg, stats, waves, tracker, 1};
    flash::FlashArray flash("flash", svc);
    ssd::PageMappingFtl ftl("ftl", svc, flash.geometry());
    ftl.flash.bind(flash.target);
    auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // preconditioning runs at the end of elaboration
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    auto s = ftl.summary();
    double gib = double(flash.geometry().raw_bytes()) / double(1ull << 30);
    fmt::print("bench precondition {}: {:.2f} GiB raw, {:.2f} GiB logical, fill {}\n", pattern, gib,
               double(ftl.logical_pages()) * ftl.page_size() / double(1ull << 30), cfg.get_real("ssd.precondition.fill"));
    const auto& pre = s["precondition"];
    fmt::print("  wall time: {:.2f} s ({} page writes, {} GC moves {})\n", wall, pre["writes"].get<uint64_t>(),
               pre["gc_pages_moved"].get<uint64_t>(),
               pre.contains("sampled_planes")
                   ? fmt::format("modelled on {} sampled planes", pre["sampled_planes"].get<uint64_t>())
                   : std::string("run functionally"));
    if (pre.contains("age_model")) fmt::print("  aged by the {} model\n", pre["age_model"].get<std::string>());
    fmt::print("  FTL memory {:.1f} MiB, flash store {:.1f} MiB, peak process memory {:.1f} MiB\n",
               double(ftl.host_bytes()) / 1048576.0, double(flash.stored_bytes()) / 1048576.0,
               double(ru.ru_maxrss) / 1024.0);
    // A power cut right away: recovery without a checkpoint reads the blocks
    // still as laid out by the layout's rule, not page by page.
    ftl.power_loss();
    t0 = std::chrono::steady_clock::now();
    ftl.recover();
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    getrusage(RUSAGE_SELF, &ru);
    fmt::print("  power-loss recovery without checkpoints: {:.2f} s, {} blocks read page by page, peak process "
               "memory {:.1f} MiB\n",
               wall, ftl.recovery_scanned_blocks(), double(ru.ru_maxrss) / 1024.0);
  } catch (const ConfigError& e) {
    fmt::print(stderr, "configuration error: {}\n", e.what());
    return 2;
  }
  return 0;
}

int main(int argc, char** argv) { return vp::platform::systemc_main(argc, argv); }
