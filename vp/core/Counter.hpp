// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A statistic that counts (events, bytes, picoseconds): bumped on the hot path
// through a reference the component keeps.
#include <cstdint>
#include <string>

namespace vp {

struct Counter {
  uint64_t value = 0;
  std::string unit, desc;
  Counter& operator+=(uint64_t v) { value += v; return *this; }
  Counter& operator++() { ++value; return *this; }
};

}  // namespace vp
