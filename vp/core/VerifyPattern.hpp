// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The data FlashVP's verifying writers write (fio's verify=1), as fio's own
// verify blocks: each 512-byte unit opens with a header naming it -- a magic
// word, the write's version and the unit's number (LBA x units per LBA +
// unit) -- and the rest is a stream drawn from the two. A store that meets
// such a unit can keep its 16-byte name and make the unit again on a read
// (FlashDataStore does), so a verified run's memory follows the pages it
// wrote, not their bytes.
#include <cstdint>
#include <cstring>

namespace vp::verify_pattern {

constexpr uint32_t kUnit = 512;
constexpr uint32_t kMagic = 0x31465646;  // "FVF1"

inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Word i (from 2: the header is words 0 and 1) of unit `unit`, version `version`.
inline uint64_t word(uint64_t unit, uint32_t version, uint32_t i) {
  return mix(mix(unit * 0x9e3779b97f4a7c15ULL + version) + i);
}

// One unit of `unit`, `version` (above 0) at `p` (kUnit bytes).
inline void fill(uint8_t* p, uint64_t unit, uint32_t version) {
  const uint64_t head = uint64_t(version) << 32 | kMagic;
  std::memcpy(p, &head, 8);
  std::memcpy(p + 8, &unit, 8);
  for (uint32_t i = 2; i < kUnit / 8; ++i) {
    const uint64_t w = word(unit, version, i);
    std::memcpy(p + 8 * i, &w, 8);
  }
}

// Whether the kUnit bytes at `p` are exactly such a unit; if so its name.
inline bool recognise(const uint8_t* p, uint64_t& unit, uint32_t& version) {
  uint64_t head;
  std::memcpy(&head, p, 8);
  if (uint32_t(head) != kMagic || (head >> 32) == 0) return false;
  version = uint32_t(head >> 32);
  std::memcpy(&unit, p + 8, 8);
  for (uint32_t i = 2; i < kUnit / 8; ++i) {
    uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    if (w != word(unit, version, i)) return false;
  }
  return true;
}

}  // namespace vp::verify_pattern
