#pragma once
// Helpers shared by the tests: a run of the server platform in this process
// (one per test case: SystemC elaborates once per process), and a run of the
// vp-server binary.
#include <cstdlib>
#include <unistd.h>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "platforms/server/ServerRun.hpp"
#include "vp/flash/FlashArray.hpp"

namespace vp::test {

using Sets = std::vector<std::pair<std::string, std::string>>;

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
  if (!preset.empty()) cfg.load_yaml_text(platform::preset_text(preset), "preset " + preset);
  for (const auto& [k, v] : base) cfg.set(k, v, "test");
  for (const auto& [k, v] : sets) cfg.set(k, v, "test");
  flash::FlashArray::apply_cell(cfg);
  cfg.validate();
  return cfg;
}

inline nlohmann::json run(const std::string& preset, const Sets& sets, const std::string& fio) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  auto o = options(preset, sets, fio);
  Config cfg = platform::build_config(o);
  auto r = platform::run_server(cfg, o);
  if (!r.aborted.empty()) throw std::runtime_error("run aborted: " + r.aborted);
  return r.summary;
}

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

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A scratch folder unique to the calling test.
inline std::string scratch(const std::string& name) {
  std::string d = fmt::format("/tmp/flashvp-test-{}-{}", name, getpid());
  std::system(("rm -rf " + d + " && mkdir -p " + d).c_str());
  return d;
}

}  // namespace vp::test
