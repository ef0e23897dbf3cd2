// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Helpers shared by the tests: a run of the server platform in this process
// (one per test case: SystemC elaborates once per process), the rows of the
// CSV files it writes, and a run of the vp-server binary.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <unistd.h>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <systemc>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "vp/platform/ServerRun.hpp"
#include "platforms/server/ServerTop.hpp"
#include "vp/flash/FlashArray.hpp"
#include "vp/host/HostProfile.hpp"

namespace vp::test {

using Sets = std::vector<std::pair<std::string, std::string>>;

// `a` followed by `b` (later settings win).
inline Sets with(Sets a, const Sets& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Round host CPU costs for hand arithmetic: submit 1 us, ISR 2 us, reaping
// 0.5 us per completion, context switch 3 us.
inline const Sets kRoundHostCosts = {{"host.core.submit_cost", "1us"},
                                     {"host.core.isr_cost", "2us"},
                                     {"host.core.complete_cost", "500ns"},
                                     {"host.core.ctx_switch_cost", "3us"}};

inline platform::RunOptions options(const std::string& preset, const Sets& sets, const std::string& fio = "") {
  platform::RunOptions o;
  o.preset = preset;
  o.sets = sets;
  if (!fio.empty()) o.sets.emplace_back("workload.fio", fio);
  return o;
}

// A validated configuration for a model built without the platform: a
// preset (or none), then `base`, then `sets`, the cell preset applied.
inline Config model_config(const std::string& preset, const Sets& base, const Sets& sets) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  Config cfg(platform::server_params());
  if (!preset.empty()) platform::load_preset(cfg, preset);
  for (const auto& [k, v] : base) cfg.set(k, v, "test");
  for (const auto& [k, v] : sets) cfg.set(k, v, "test");
  flash::FlashArray::apply_cell(cfg);
  host::HostProfile::apply(cfg);
  cfg.validate();
  return cfg;
}

// A summary's parts (schema_version 2): drive k's entry and the host's
// sections. at(), not [], so a test that reads a part the run has not got
// fails rather than reading null.
inline const nlohmann::json& drive(const nlohmann::json& s, size_t k = 0) { return s.at("drives").at(k); }
inline const nlohmann::json& host(const nlohmann::json& s) { return s.at("host"); }

// Throws rather than REQUIREs on an aborted run so that helpers outside a
// test case can use it too; Catch reports the exception as a failure.
inline nlohmann::json run_options(const platform::RunOptions& o) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  Config cfg = platform::build_config(o);
  auto r = platform::run_platform(cfg, o);
  if (!r.aborted.empty()) throw std::runtime_error("run aborted: " + r.aborted);
  return r.summary;
}

inline nlohmann::json run(const std::string& preset, const Sets& sets, const std::string& fio) {
  return run_options(options(preset, sets, fio));
}

// The same on the drive platform (vp-drive: no host above the NVMe queues).
inline nlohmann::json run_drive(const std::string& preset, const Sets& sets, const std::string& fio) {
  auto o = options(preset, sets, fio);
  o.platform = platform::Platform::Drive;
  return run_options(o);
}

// A run that also writes dir/requests.csv: one row per I/O with its stage
// end times (read it with csv_rows).
inline nlohmann::json run_traced(const std::string& dir, const std::string& preset, const Sets& sets,
                                 const std::string& fio) {
  auto o = options(preset, sets, fio);
  o.out_dir = dir;
  o.requests = true;
  return run_options(o);
}

// One data line of a CSV file: column name -> text (empty for an empty field).
using CsvRow = std::map<std::string, std::string>;

// Splits on every comma, so a trailing empty field is kept (getline would drop it).
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f;
  size_t from = 0;
  for (size_t comma; (comma = line.find(',', from)) != std::string::npos; from = comma + 1)
    f.push_back(line.substr(from, comma - from));
  f.push_back(line.substr(from));
  return f;
}

// The data lines of a CSV file with a header line, in file order. A missing
// file or a line whose field count differs from the header's throws: a
// test must not pass by reading nothing or the wrong column.
inline std::vector<CsvRow> csv_rows(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  if (!f || !std::getline(f, line)) throw std::runtime_error(path + ": no header line");
  auto head = csv_fields(line);
  std::vector<CsvRow> rows;
  for (size_t n = 2; std::getline(f, line); ++n) {
    auto fields = csv_fields(line);
    if (fields.size() != head.size())
      throw std::runtime_error(fmt::format("{}:{}: {} fields, header has {}", path, n, fields.size(), head.size()));
    CsvRow r;
    for (size_t i = 0; i < head.size(); ++i) r[head[i]] = fields[i];
    rows.push_back(std::move(r));
  }
  return rows;
}

// A column as a number; `at` throws on a column the file does not have.
inline uint64_t u64(const CsvRow& row, const std::string& key) { return std::stoull(row.at(key)); }
inline double f64(const CsvRow& row, const std::string& key) { return std::stod(row.at(key)); }

struct Shell {
  int status;
  std::string out;  // stdout and stderr
};
inline Shell shell(const std::string& cmd) {
  std::string full = cmd + " 2>&1";
  Shell s{0, {}};
  FILE* p = popen(full.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) s.out.append(buf, n);
  int st = pclose(p);
  s.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return s;
}

// A size a test takes from the environment (FLASHVP_CRASH_RUNS, ...), else `fallback`.
inline uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::stoull(v) : fallback;
}

// fn(0) .. fn(n - 1) on as many threads as cores (at least two), for tests
// that run many vp-server processes; fn must not use Catch's assertions.
inline void parallel_for(uint64_t n, const std::function<void(uint64_t)>& fn) {
  std::atomic<uint64_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t)
    pool.emplace_back([&] {
      for (uint64_t i; (i = next++) < n;) fn(i);
    });
  for (auto& t : pool) t.join();
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A scratch folder unique to the calling test, removed when the test
// process exits (kept with FLASHVP_KEEP_SCRATCH=1, to look at a failure).
inline std::string scratch(const std::string& name) {
  static std::vector<std::string> made;
  static const bool cleanup = [] {
    std::atexit([] {
      if (!std::getenv("FLASHVP_KEEP_SCRATCH"))
        for (const auto& d : made) std::filesystem::remove_all(d);
    });
    return true;
  }();
  (void)cleanup;
  std::string d = fmt::format("/tmp/flashvp-test-{}-{}", name, getpid());
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  made.push_back(d);
  return d;
}


// vp-server run in a process of its own, for a test that compares two runs
// (one simulation per process): the job file and outputs in the scratch
// folder `name`; returns summary.json. The run must succeed.
inline nlohmann::json run_server(const std::string& name, const std::string& preset, const Sets& sets,
                                 const std::string& fio) {
  std::string dir = scratch(name);
  std::ofstream(dir + "/job.fio") << fio;
  std::string cmd = std::string(VP_SERVER_BIN) + " --preset " + preset + " --job " + dir + "/job.fio";
  for (const auto& [k, v] : sets) cmd += " --set " + k + "=" + v;
  Shell sh = shell(cmd + " --out " + dir + "/out");
  if (sh.status != 0) throw std::runtime_error("vp-server failed (" + std::to_string(sh.status) + "):\n" + sh.out);
  return nlohmann::json::parse(slurp(dir + "/out/summary.json"));
}

// The quick preset elaborated with no workload; `body` runs in a SystemC
// thread once the host driver has brought the controller up.
inline void with_driver(const Sets& sets, const std::function<void(platform::ServerTop&)>& body) {
  Config cfg = model_config("quick", {{"workload.fio", "[global]\n"}}, sets);
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  Services svc{cfg, stats, waves, tracker, 1};
  platform::ServerTop top("top", svc);
  bool ran = false;
  sc_core::sc_spawn([&] {
    if (!top.driver.ready()) sc_core::wait(top.driver.ready_event().kernel_event());
    body(top);
    ran = true;
    sc_core::sc_stop();
  });
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
  if (!ran) throw std::runtime_error("the driver did not come up within 1 s");
}

}  // namespace vp::test
