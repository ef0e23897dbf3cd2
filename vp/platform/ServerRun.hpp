// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Running the server platform: building the configuration from a preset, a
// YAML file, --set overrides, fio job files and a seed; elaborating and
// simulating; writing config.yaml, summary.json, requests.csv and the
// waveform. Shared by vp-server, the tests and the benchmark.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "vp/core/Config.hpp"
#include "vp/core/Param.hpp"
#include "vp/core/StatRegistry.hpp"
#include "vp/host/workload/FioJob.hpp"

namespace vp::platform {

// Which platform runs: vp-server's (the modeled host over the drive) or
// vp-drive's (the drive driven from its NVMe queues alone).
enum class Platform { Server, Drive, Qemu };

struct RunOptions {
  Platform platform = Platform::Server;
  std::string preset;  // empty: the default preset unless a config file is given
  std::string config_file;
  std::vector<std::pair<std::string, std::string>> sets;
  std::vector<std::string> job_files;
  std::string seed;  // empty: sim.seed from the configuration
  std::string out_dir;  // empty: write nothing
  bool vcd = false, requests = false;
  bool cache = false;  // cache_epochs.csv: the adaptive cache's epochs
  bool perfetto = false;  // timeline.json: tracks, counters and each I/O's stages (Trace Event Format)
  bool progress = false, print_summary = false;
};

// The parameters of the platform with one drive, ssd (--list-params), and
// with the drives `drives` (platform.drives).
const ParamRegistry& server_params();
const ParamRegistry& server_params(const std::vector<std::string>& drives);
// vp-drive's and vp-qemu's: only the parts each has (DriveTop::declare_params;
// the run's seed, the drives and the accelerator).
const ParamRegistry& drive_params();
const ParamRegistry& qemu_params(const std::vector<std::string>& drives);
const ParamRegistry& platform_params(Platform p);
std::vector<std::string> preset_names();
std::string preset_text(const std::string& name);  // throws ConfigError for an unknown name
// One fio option of one job (key workload.<job>.<option>, <job> * for every
// job) from --set or a preset, `origin` naming where, for its errors.
struct JobSet {
  std::string key, value, origin;
};
// The first line of the preset's leading comment ("" if none).
std::string preset_description(const std::string& name);
// Loads a preset, or a YAML file, into `cfg`. Either may name a preset it
// starts from with a top-level `base: NAME` (itself free to have a base):
// the base's values are set first, then the layer's own, each keeping its
// file and line as origin. Keys workload.<job>.<option> are not parameters
// but options of the workload's jobs: they are returned, in order, for
// set_job_options (a layer that sets workload.fio drops its bases' ones).
std::vector<JobSet> load_preset(Config& cfg, const std::string& name);
std::vector<JobSet> load_config_file(Config& cfg, const std::string& path);
constexpr const char* kDefaultPreset = "zssd";

// Adds `--set key=value` arguments to `opt`; false (after a message naming
// `program` and the argument) when one is not key=value.
bool add_sets(const std::vector<std::string>& sets, RunOptions& opt, const char* program);

// Loads, overrides and validates; throws ConfigError naming the problem.
// `--set workload.<job>.<option>=<value>` sets one fio option of the job
// named <job> (* for every job), as one more line at the end of its section.
Config build_config(const RunOptions& opt);
// Applies such sets (key workload.<job>.<option>) to `jobs`.
void set_job_options(std::vector<host::FioJob>& jobs, const std::vector<JobSet>& sets);

// The statistics the platform registers for `cfg`, elaborated and not run
// (--list-stats).
std::unique_ptr<StatRegistry> platform_stats(const Config& cfg, Platform platform = Platform::Server);

struct RunResult {
  nlohmann::ordered_json summary;  // keys in the order written (Summary.hpp)
  std::string aborted;  // why the run stopped early, if it did
  int signal = 0;       // the signal (SIGINT, SIGTERM) that stopped it, if one did
};
RunResult run_platform(const Config& cfg, const RunOptions& opt);  // on opt.platform

// `dir`/config.yaml (the effective configuration) and `dir`/summary.json,
// each written in full or not at all (AtomicFile); throws OutputError.
void write_run_files(const std::string& dir, const Config& cfg, const nlohmann::ordered_json& summary);

// A binary's main(): silences SystemC's banner (printed while the kernel
// starts, before sc_main runs) and hands over to sc_main.
int systemc_main(int argc, char** argv);

}  // namespace vp::platform
