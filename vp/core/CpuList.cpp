// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/CpuList.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <sstream>

namespace vp {

namespace {
std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::optional<uint64_t> number(const std::string& s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}
}  // namespace

std::optional<std::vector<unsigned>> parse_cpu_list(const std::string& text, unsigned max_cpu) {
  std::vector<unsigned> out;
  std::string t = trim(text);
  if (t.empty() || t.back() == ',') return std::nullopt;
  std::stringstream ss(t);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    size_t dash = item.find('-');
    auto a = number(trim(item.substr(0, dash)));
    auto b = dash == std::string::npos ? a : number(trim(item.substr(dash + 1)));
    if (!a || !b || *a > *b || *b > max_cpu) return std::nullopt;
    for (uint64_t c = *a; c <= *b; ++c) out.push_back(static_cast<unsigned>(c));
  }
  if (out.empty()) return std::nullopt;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace vp
