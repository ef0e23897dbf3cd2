// SPDX-License-Identifier: BSD-3-Clause
// Configuration fuzzing that reaches the simulation: values drawn inside
// each parameter's stated range (as --list-params --json gives it) for a
// few parameters at a time, run on the quick preset for up to 20 ms of
// simulated time. Every run must end on its own in one of the documented
// ways: done (0), refused before simulating with a message naming one of
// the keys it was given (2), or stopped early with its summary (3); never a
// crash, a signal or a hang. A failure prints the command line.
//
// FLASHVP_FUZZ_RUNS sets the number of runs (default 120), FLASHVP_FUZZ_SEED
// the seed (default 44).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {

const std::string kBin = VP_SERVER_BIN;


// A value inside what `allowed` states, or "" for a parameter not drawn
// (free text: file names, job text).
std::string draw(const nlohmann::json& p, std::mt19937_64& rng) {
  const std::string allowed = p["allowed"], type = p["type"];
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  // Magnitudes spread over many decades, biased to the edges of the range.
  auto spread = [&](double lo, double hi) {
    double r = uni(0, 1);
    if (r < 0.15) return lo;
    if (r < 0.25) return hi;
    double a = std::max(lo, 1.0), b = std::max(hi, a);
    return std::floor(std::exp(uni(std::log(a), std::log(b))));
  };
  std::smatch m;
  if (type == "bool") return uni(0, 1) < 0.5 ? "true" : "false";
  if (type == "enum" && std::regex_search(allowed, m, std::regex("^one of (.*)$"))) {
    std::vector<std::string> v;
    std::istringstream in(m[1].str());
    for (std::string w; in >> w;) v.push_back(w);
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  }
  if (type == "int") {
    double lo = 0, hi = 1 << 20;
    if (std::regex_search(allowed, m, std::regex(R"(in \[(-?\d+), (-?\d+)\])")))
      lo = std::stod(m[1]), hi = std::stod(m[2]);
    else if (std::regex_search(allowed, m, std::regex(R"(>= (-?\d+))")))
      lo = std::stod(m[1]), hi = std::max(lo, 1e6);
    return fmt::format("{:.0f}", spread(lo, hi));
  }
  if (type == "real" && std::regex_search(allowed, m, std::regex(R"(in \[([-0-9.e]+), ([-0-9.e]+)\])")))
    return fmt::format("{:.6g}", uni(std::stod(m[1]), std::stod(m[2])));
  // Units: the range's ends are not parsed; out-of-range draws must be
  // refused cleanly, which is part of what this checks.
  if (type == "time") return fmt::format("{:.0f}ns", spread(0, 1e9));   // up to 1 s
  if (type == "size") return fmt::format("{:.0f}B", spread(0, 1e10));   // up to 10 GB
  if (type == "frequency") return fmt::format("{:.0f}Hz", spread(1, 1e10));
  if (type == "transfer rate") return fmt::format("{:.0f}MT/s", spread(1, 1e5));
  return "";
}

struct Run {
  std::string cmd, out;
  std::vector<std::string> keys;
  int status = 0;
};

}  // namespace

TEST_CASE("in-range configuration values either run to an end or are refused naming their key: never a crash or a "
          "hang", "[platform][cli][config][fuzz]") {
  const uint64_t runs = env_or("FLASHVP_FUZZ_RUNS", 120), seed = env_or("FLASHVP_FUZZ_SEED", 44);
  Shell list = shell(kBin + " --list-params --json 2>/dev/null");
  REQUIRE(list.status == 0);
  auto params = nlohmann::json::parse(list.out);
  // What the run itself is about, not the model: left as the preset has them.
  const std::set<std::string> skip{"sim.seed", "sim.max_time", "sim.watchdog", "ssd.image", "workload.fio"};
  std::vector<nlohmann::json> drawable;
  for (const auto& p : params)
    if (!skip.count(p["key"]) && p["type"] != "string") drawable.push_back(p);
  REQUIRE(drawable.size() > 150);
  const std::string dir = scratch("fuzz");
  std::vector<Run> results(runs);
  for (uint64_t i = 0; i < runs; ++i) {
    std::mt19937_64 rng(seed * 1000003 + i);
    Run& r = results[i];
    r.cmd = fmt::format("timeout -s KILL 300 {} --preset quick --set sim.max_time=20ms --seed {}", kBin, i + 1);
    const int n = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int k = 0; k < n; ++k) {
      const auto& p = drawable[std::uniform_int_distribution<size_t>(0, drawable.size() - 1)(rng)];
      std::string v = draw(p, rng);
      if (v.empty()) continue;
      r.keys.push_back(p["key"]);
      r.cmd += fmt::format(" --set {}={}", p["key"].get<std::string>(), v);
    }
  }
  parallel_for(runs, [&](uint64_t i) {
    Run& r = results[i];
    Shell sh = shell(r.cmd + fmt::format(" --out {}/run-{}", dir, i));
    r.status = sh.status;
    r.out = sh.out;
    std::filesystem::remove_all(fmt::format("{}/run-{}", dir, i));
  });
  uint64_t ran = 0, refused = 0, stopped = 0, bad = 0;
  for (const Run& r : results) {
    bool named = false;
    for (const auto& k : r.keys) named = named || r.out.find(k) != std::string::npos;
    const bool ok = r.status == 0 || r.status == 3 || (r.status == 2 && named);
    ran += r.status == 0;
    refused += r.status == 2;
    stopped += r.status == 3;
    if (!ok) {
      ++bad;
      UNSCOPED_INFO(fmt::format("exit {}{}: {}\n{}", r.status, r.status == 137 || r.status == -1 ? " (killed after 300 s, or a crash)" : "",
                                r.cmd, r.out.substr(r.out.size() > 1500 ? r.out.size() - 1500 : 0)));
    }
  }
  INFO(fmt::format("{} runs: {} ran, {} refused naming a key, {} stopped early", runs, ran, refused, stopped));
  CHECK(bad == 0);
  // The draws reach the simulation, not only the parser.
  if (runs >= 120) CHECK(ran >= runs / 4);
}
