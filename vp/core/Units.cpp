// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/Units.hpp"
#include "vp/core/UnitSuffixes.hpp"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <utility>
#include <vector>

#include "vp/core/Quote.hpp"

namespace vp {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Splits "1.5GiB" into 1.5 and "GiB"; throws if there is no leading number.
std::pair<double, std::string> split(const std::string& in, Unit u) {
  std::string s = trim(in);
  const char* begin = s.c_str();
  char* end = nullptr;
  double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v))
    throw UnitError(fmt::format("{} is not a {} (expected e.g. {})", quoted(in), unit_name(u), unit_examples(u)));
  if (v < 0) throw UnitError(fmt::format("{} is negative", quoted(in)));
  return {v, trim(std::string(end))};
}

double scaled(const std::string& in, Unit u, const std::vector<UnitSuffix>& table, bool bare_ok) {
  auto [v, suf] = split(in, u);
  if (suf.empty()) {
    if (bare_ok || v == 0) return v;  // zero is zero in every unit: "0" switches a period off as "0ns" does
    throw UnitError(fmt::format("{} has no unit (expected a {} such as {})", quoted(in), unit_name(u), unit_examples(u)));
  }
  for (const auto& e : table)
    if (suf == e.text) return v * e.scale;
  throw UnitError(fmt::format("{}: unknown {} unit {} (expected e.g. {})", quoted(in), unit_name(u), quoted(suf), unit_examples(u)));
}

std::string trim_number(double v) {
  std::string s = fmt::format("{:.6f}", v);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string pick(double v, const std::vector<UnitSuffix>& table) {
  // Largest unit that gives an exact-looking value.
  for (const auto& e : table)
    if (v >= e.scale && std::fabs(v / e.scale - std::round(v / e.scale * 1e6) / 1e6) < 1e-9)
      return trim_number(v / e.scale) + e.text;
  return trim_number(v / table.back().scale) + table.back().text;
}

}  // namespace

const char* unit_name(Unit u) {
  switch (u) {
    case Unit::Time: return "time";
    case Unit::Size: return "size";
    case Unit::Freq: return "frequency";
    case Unit::Rate: return "transfer rate";
    case Unit::Bandwidth: return "bandwidth";
    default: return "number";
  }
}

const char* unit_examples(Unit u) {
  switch (u) {
    case Unit::Time: return "3us, 100ns, 1ms";
    case Unit::Size: return "4KiB, 2KiB, 1.5GiB";
    case Unit::Freq: return "800MHz, 2GHz";
    case Unit::Rate: return "8GT/s, 800MT/s";
    case Unit::Bandwidth: return "800MB/s, 4GB/s";
    default: return "42";
  }
}

const std::vector<UnitSuffix>& unit_suffixes(Unit u) {
  static const std::vector<UnitSuffix> none, time = {{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}},
      size = {{"B", 1},   {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
              {"KB", 1e3}, {"MB", 1e6},     {"GB", 1e9},        {"TB", 1e12}},
      freq = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}}, rate = {{"T/s", 1}, {"MT/s", 1e6}, {"GT/s", 1e9}},
      bandwidth = {{"B/s", 1},  {"KB/s", 1e3},      {"MB/s", 1e6},         {"GB/s", 1e9},
                   {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}};
  switch (u) {
    case Unit::Time: return time;
    case Unit::Size: return size;
    case Unit::Freq: return freq;
    case Unit::Rate: return rate;
    case Unit::Bandwidth: return bandwidth;
    default: return none;
  }
}

Tick parse_time(const std::string& s) {
  double ps = scaled(s, Unit::Time, unit_suffixes(Unit::Time), false);
  if (ps > 1.8e19) throw UnitError(fmt::format("{} is too long a time", quoted(s)));
  return static_cast<Tick>(std::llround(ps));
}

uint64_t parse_size(const std::string& s) {
  double b = scaled(s, Unit::Size, unit_suffixes(Unit::Size), true);
  if (b != std::floor(b)) throw UnitError(fmt::format("{} is not a whole number of bytes", quoted(s)));
  return static_cast<uint64_t>(b);
}

double parse_freq(const std::string& s) {
  return scaled(s, Unit::Freq, unit_suffixes(Unit::Freq), false);
}

double parse_rate(const std::string& s) {
  return scaled(s, Unit::Rate, unit_suffixes(Unit::Rate), false);
}

double parse_bandwidth(const std::string& s) {
  return scaled(s, Unit::Bandwidth, unit_suffixes(Unit::Bandwidth), false);
}

double parse_number(const std::string& s) {
  auto [v, suf] = split(s, Unit::None);
  if (!suf.empty()) throw UnitError(fmt::format("{} is not a plain number", quoted(s)));
  return v;
}

std::string format_time(Tick t) {
  static const std::vector<UnitSuffix> t_ = {{"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}, {"ps", 1}};
  return t == 0 ? "0ns" : pick(static_cast<double>(t), t_);
}
std::string format_size(uint64_t b) {
  static const std::vector<UnitSuffix> t = {{"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0},
                                        {"KiB", 1024.0}, {"B", 1}};
  return b == 0 ? "0B" : pick(static_cast<double>(b), t);
}
std::string format_freq(double hz) {
  static const std::vector<UnitSuffix> t = {{"GHz", 1e9}, {"MHz", 1e6}, {"kHz", 1e3}, {"Hz", 1}};
  return hz == 0 ? "0Hz" : pick(hz, t);
}
std::string format_rate(double r) {
  static const std::vector<UnitSuffix> t = {{"GT/s", 1e9}, {"MT/s", 1e6}, {"T/s", 1}};
  return r == 0 ? "0T/s" : pick(r, t);
}
std::string format_bandwidth(double b) {
  static const std::vector<UnitSuffix> t = {{"GB/s", 1e9}, {"MB/s", 1e6}, {"KB/s", 1e3}, {"B/s", 1}};
  return b == 0 ? "0B/s" : pick(b, t);
}

}  // namespace vp
