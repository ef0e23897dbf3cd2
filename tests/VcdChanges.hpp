// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A VCD file's value changes of one signal, for tests that read a waveform.
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vp::test {

// (time in ns, value) of every change of `name` (its value's bits for a
// vector) in `vcd`, converted from the file's $timescale; a change off a
// whole ns throws, so a test never compares a rounded time.
inline std::vector<std::pair<uint64_t, std::string>> vcd_changes_ns(const std::string& vcd, const std::string& name) {
  std::istringstream in(vcd);
  std::string line, id;
  std::vector<std::pair<uint64_t, std::string>> out;
  uint64_t t = 0, ps_per_unit = 0;
  bool in_timescale = false;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string a, b, c, d, e;
    w >> a;
    if (a == "$timescale") {
      in_timescale = true;
    } else if (in_timescale) {
      if (a == "1") w >> b;  // "1 ps"
      ps_per_unit = b == "ps" ? 1 : b == "ns" ? 1000 : b == "us" ? 1000000 : 0;
      if (!ps_per_unit) throw std::runtime_error("VCD timescale '" + line + "' not read");
      in_timescale = false;
    } else if (a == "$var") {
      w >> b >> c >> d >> e;
      if (e == name) id = d;
    } else if (!a.empty() && a[0] == '#') {
      t = std::stoull(a.substr(1)) * ps_per_unit;
      if (t % 1000) throw std::runtime_error("VCD time " + a + " is not a whole ns");
    } else if (!id.empty() && a.size() > 1 && (a[0] == '0' || a[0] == '1') && a.substr(1) == id) {
      out.emplace_back(t / 1000, a.substr(0, 1));
    } else if (!id.empty() && a.size() > 1 && a[0] == 'b') {
      w >> b;
      if (b == id) out.emplace_back(t / 1000, a.substr(1));
    }
  }
  return out;
}

}  // namespace vp::test
