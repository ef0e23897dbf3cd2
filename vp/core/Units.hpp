// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Quantities with units, as written in presets and on the command line.
// Internally time is an integer count of picoseconds (SystemC's default
// resolution), sizes are bytes, frequencies Hz, transfer rates transfers/s.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace vp {

using Tick = uint64_t;  // picoseconds
constexpr Tick PS = 1, NS = 1000, US = 1000 * NS, MS = 1000 * US, SEC = 1000 * MS;

// std::llround(x) for 0 <= x < 2^53, inline (libm's is a call of some 40
// instructions, and wire and CPU times are rounded several times per I/O):
// x minus its integer part is exact, so the half is decided as llround does.
inline Tick round_ps(double x) {
  const auto i = static_cast<int64_t>(x);
  return static_cast<Tick>(i) + (x - static_cast<double>(i) >= 0.5);
}

enum class Unit { None, Time, Size, Freq, Rate, Bandwidth };

struct UnitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Each parser accepts a number followed by an optional unit suffix; a bare
// number means the base unit (ps, B, Hz, T/s, B/s) only where noted.
Tick parse_time(const std::string& s);          // 3us, 100ns, 1.5ms, 2s, 10ps
uint64_t parse_size(const std::string& s);      // 4KiB, 1.5GiB, 512B, 512 (KB/MB/GB are decimal)
double parse_freq(const std::string& s);        // 800MHz, 2GHz, 1e9Hz
double parse_rate(const std::string& s);        // 8GT/s, 800MT/s
double parse_bandwidth(const std::string& s);   // 800MB/s, 3.2GB/s, 1GiB/s
double parse_number(const std::string& s);      // plain number, no suffix

// Canonical spellings used when writing the effective configuration back.
std::string format_time(Tick t);
std::string format_size(uint64_t b);
std::string format_freq(double hz);
std::string format_rate(double ts);
std::string format_bandwidth(double bps);

const char* unit_name(Unit u);     // "time", "size", ...
const char* unit_examples(Unit u); // "3us, 100ns, 1ms"

}  // namespace vp
