// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Command line of the benchmarks: `--set key=value` overrides (appended to
// `sets`), the flags named in `allowed` (set in `flags`) and positional
// words, returned in order. `--help` prints `usage`
// and exits 0; an unknown option or a `--set` without key=value is refused
// with exit 2, naming it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace vp::bench {

inline std::vector<std::string> parse_args(int argc, char** argv,
                                           std::vector<std::pair<std::string, std::string>>& sets,
                                           const char* usage, const std::vector<std::string>& allowed = {},
                                           std::vector<std::string>* flags = nullptr) {
  std::vector<std::string> words;
  auto refuse = [&](const std::string& why) {
    std::string prog = argv[0];
    prog = prog.substr(prog.rfind('/') + 1);
    std::fprintf(stderr, "%s: %s\n%s", prog.c_str(), why.c_str(), usage);
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (a == "--set") {
      if (i + 1 >= argc) refuse("--set needs key=value");
      std::string kv = argv[++i];
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) refuse("--set needs key=value, not '" + kv + "'");
      sets.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else if (flags && std::find(allowed.begin(), allowed.end(), a) != allowed.end()) {
      flags->push_back(a);
    } else if (a.size() > 1 && a[0] == '-') {
      refuse("unknown option '" + a + "'");
    } else {
      words.push_back(a);
    }
  }
  return words;
}

}  // namespace vp::bench
