// SPDX-License-Identifier: BSD-3-Clause
// Every job file of fio's own examples/ folder (tests/data/fio-examples,
// GPL-2.0 as fio, see README there), run by vp-server as a user would with
// --job: each runs, or stops before the run with an error that names the
// file's option and why. EXPECTED.tsv pins which, so a change in what
// FlashVP models shows up here.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "tests/TestSupport.hpp"

using namespace vp::test;

TEST_CASE("fio's example job files run, or stop before the run naming the option and why", "[platform][fio]") {
  const std::string data = std::string(VP_SOURCE_DIR) + "/tests/data/fio-examples";
  // name -> "run", the option the refusal must name, or env:VAR.
  std::map<std::string, std::string> expected;
  {
    std::ifstream f(data + "/EXPECTED.tsv");
    std::string line;
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      auto tab = line.find('\t');
      expected[line.substr(0, tab)] = line.substr(tab + 1);
    }
  }
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(data))
    if (e.path().extension() == ".fio") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 100);
  const std::string dir = scratch("fio-examples");
  std::vector<Shell> out(files.size());
  // 200 us of simulated time is enough to show a job runs; examples ask for minutes.
  parallel_for(files.size(), [&](uint64_t i) {
    out[i] = shell(fmt::format("{} --job {}/{} --set sim.max_time=200us --out {}/{}", VP_SERVER_BIN,
                               data, files[i], dir, i));
  });
  unsigned ran = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    INFO(files[i] << ":\n" << out[i].out);
    REQUIRE(expected.count(files[i]));
    const std::string& want = expected[files[i]];
    if (want == "run") {  // to its end, or stopped by sim.max_time (exit 3) with its summary
      CHECK((out[i].status == 0 ||
             (out[i].status == 3 && out[i].out.find("sim.max_time = 200us reached") != std::string::npos)));
      CHECK(std::filesystem::exists(fmt::format("{}/{}/summary.json", dir, i)));
      ++ran;
      continue;
    }
    if (want.rfind("env:", 0) == 0) {  // ${VAR} in the file, unset here
      CHECK(out[i].status == 2);
      CHECK_THAT(out[i].out, Catch::Contains("environment variable '" + want.substr(4) + "' is not set"));
      continue;
    }
    // A configuration error (exit 2) naming the example's file, a line, the option, and a reason after it.
    CHECK(out[i].status == 2);
    std::regex named(files[i] + ":[0-9]+: (job '[^']*': )?option '" + want + "'.*: .{12,}");
    CHECK(std::regex_search(out[i].out, named));
  }
  CHECK(ran >= 4);
}
