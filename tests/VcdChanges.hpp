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

// The signals' names in `vcd`, as registered: the dotted path of $scope
// blocks below the top one (SystemC's) and the $var's own name
// ("ssd.nvme.sq1.occupancy"), with each one's identifier code.
inline std::vector<std::pair<std::string, std::string>> vcd_signals(const std::string& vcd) {
  std::istringstream in(vcd);
  std::string line;
  std::vector<std::string> scopes;
  std::vector<std::pair<std::string, std::string>> out;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string a, b, c, d, e;
    w >> a;
    if (a == "$scope") {
      w >> b >> c;
      scopes.push_back(c);
    } else if (a == "$upscope" && !scopes.empty()) {
      scopes.pop_back();
    } else if (a == "$var") {
      w >> b >> c >> d >> e;
      std::string path;
      for (size_t i = 1; i < scopes.size(); ++i) path += scopes[i] + ".";
      out.emplace_back(path + e, d);
    } else if (a == "$enddefinitions") {
      break;
    }
  }
  return out;
}

// (time in ps, value) of every change of `name` (its value's bits for a
// vector; the name as vcd_signals gives it) in `vcd`, converted from the
// file's $timescale.
inline std::vector<std::pair<uint64_t, std::string>> vcd_changes_ps(const std::string& vcd, const std::string& name) {
  std::istringstream in(vcd);
  std::string line, id;
  for (const auto& [n, code] : vcd_signals(vcd))
    if (n == name) id = code;
  std::vector<std::pair<uint64_t, std::string>> out;
  uint64_t t = 0, ps_per_unit = 0;
  bool in_timescale = false;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string a, b;
    w >> a;
    if (a == "$timescale") {
      in_timescale = true;
    } else if (in_timescale) {
      if (a == "1") w >> b;  // "1 ps"
      ps_per_unit = b == "ps" ? 1 : b == "ns" ? 1000 : b == "us" ? 1000000 : 0;
      if (!ps_per_unit) throw std::runtime_error("VCD timescale '" + line + "' not read");
      in_timescale = false;
    } else if (!a.empty() && a[0] == '#') {
      t = std::stoull(a.substr(1)) * ps_per_unit;
    } else if (!id.empty() && a.size() > 1 && (a[0] == '0' || a[0] == '1') && a.substr(1) == id) {
      out.emplace_back(t, a.substr(0, 1));
    } else if (!id.empty() && a.size() > 1 && a[0] == 'b') {
      w >> b;
      if (b == id) out.emplace_back(t, a.substr(1));
    }
  }
  return out;
}

// The same in ns; a change off a whole ns throws, so a test never compares
// a rounded time.
inline std::vector<std::pair<uint64_t, std::string>> vcd_changes_ns(const std::string& vcd, const std::string& name) {
  auto out = vcd_changes_ps(vcd, name);
  for (auto& [t, v] : out) {
    if (t % 1000) throw std::runtime_error("VCD time " + std::to_string(t) + " ps is not a whole ns");
    t /= 1000;
  }
  return out;
}

}  // namespace vp::test
