// SPDX-License-Identifier: BSD-3-Clause
// Simulation-speed benchmark: 4 KiB random reads at queue depth 32 on one
// core of the default platform, one million I/Os unless told otherwise.
// Prints simulated I/Os per wall-clock second, kernel events per I/O and
// peak memory. Usage: vp-bench [IOS] [--drive] [--set key=value]...
// (`--set workload.bench.rw=randwrite` benchmarks random writes; --drive
// runs the drive platform, vp-drive, with the job on queue pair 0.)
#include <charconv>
#include <cstdlib>
#include <fmt/format.h>
#include <string>
#include <systemc>
#include <sys/resource.h>

#include "bench/BenchArgs.hpp"
#include "vp/platform/ServerRun.hpp"

using namespace vp;
using namespace vp::platform;

int sc_main(int argc, char** argv) {
  uint64_t ios = 1000000;
  RunOptions opt;
  const char* usage = "usage: vp-bench [IOS] [--drive] [--set key=value]...\n"
                      "  IOS: 4 KiB random reads to simulate (default 1000000)\n"
                      "  --drive: the drive platform (vp-drive: no host above the NVMe queues)\n"
                      "  --set workload.bench.rw=randwrite: random writes instead\n";
  std::vector<std::string> flags;
  auto words = bench::parse_args(argc, argv, opt.sets, usage, {"--drive"}, &flags);
  if (!flags.empty()) opt.platform = Platform::Drive;
  if (words.size() > 1) {
    fmt::print(stderr, "vp-bench: one I/O count expected, got {} words\n{}", words.size(), usage);
    return 2;
  }
  if (!words.empty()) {
    const std::string& w = words[0];
    auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), ios);
    if (ec != std::errc() || end != w.data() + w.size() || ios == 0) {
      fmt::print(stderr, "vp-bench: IOS must be a whole number of I/Os above 0, not '{}'\n{}", w, usage);
      return 2;
    }
  }
  opt.sets.emplace_back("workload.fio", fmt::format("[bench]\ndirect=1\nrw=randread\nbs=4k\niodepth=32\nnumber_ios={}\n"
                                                    "cpus_allowed=0\n", ios));
  try {
    Config cfg = build_config(opt);
    RunResult r = run_platform(cfg, opt);
    const auto& s = r.summary;
    double wall = s["wall_time_s"].get<double>();
    uint64_t done = s["total_ios"].get<uint64_t>();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fmt::print("bench {} {} 4KiB QD32: {} I/Os, {:.3f} s simulated, {:.2f} s wall\n",
               s["platform"].get<std::string>(), s["jobs"][0]["rw"].get<std::string>(), done, s["sim_time_s"].get<double>(), wall);
    fmt::print("  simulated I/Os per wall second: {:.0f}\n", double(done) / wall);
    fmt::print("  kernel events per I/O: {:.2f}\n", s["kernel_events_per_io"].get<double>());
    fmt::print("  simulated IOPS: {:.0f}\n", s["jobs"][0]["iops"].get<double>());
    fmt::print("  peak memory: {:.1f} MiB\n", double(ru.ru_maxrss) / 1024.0);
    if (!r.aborted.empty()) {
      fmt::print(stderr, "run stopped early: {}\n", r.aborted);
      return 3;
    }
  } catch (const ConfigError& e) {
    fmt::print(stderr, "configuration error: {}\n", e.what());
    return 2;
  }
  return 0;
}

int main(int argc, char** argv) { return vp::platform::systemc_main(argc, argv); }
