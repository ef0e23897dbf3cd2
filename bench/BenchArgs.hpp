// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Command line of the benchmarks: `--set key=value` overrides (appended to
// `sets`) and positional words, returned in order.
#include <string>
#include <utility>
#include <vector>

namespace vp::bench {

inline std::vector<std::string> parse_args(int argc, char** argv,
                                           std::vector<std::pair<std::string, std::string>>& sets) {
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) {
      std::string kv = argv[++i];
      auto eq = kv.find('=');
      sets.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
    } else {
      words.push_back(a);
    }
  }
  return words;
}

}  // namespace vp::bench
