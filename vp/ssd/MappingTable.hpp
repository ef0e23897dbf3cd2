// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The FTL's logical-to-physical table, one 32-bit physical page number per
// logical page, held in chunks that exist only once touched. An untouched
// chunk follows a rule: either unmapped, or the layout a sequential
// preconditioning pass left (so a full multi-terabyte drive costs no table
// memory until it is written). `dram_bytes()` is what a firmware's flat
// table would occupy, `host_bytes()` what the simulator holds.
#include <cstdint>
#include <algorithm>
#include <memory>
#include <vector>

namespace vp::ssd {

// What untouched entries of the table hold: a layout computed, not stored.
struct MapRule {
  virtual uint32_t at(uint64_t lpn) const = 0;
  virtual void fill(uint64_t first, uint32_t n, uint32_t* out) const {
    for (uint32_t k = 0; k < n; ++k) out[k] = at(first + k);
  }
  virtual ~MapRule() = default;
};

class MappingTable {
 public:
  static constexpr uint32_t kUnmapped = 0xFFFFFFFFu;
  static constexpr uint32_t kChunk = 256;  // entries per chunk: small, as random writes touch one each

  explicit MappingTable(uint64_t lpns) : lpns_(lpns), chunks_((lpns + kChunk - 1) / kChunk) {}

  // Entries of untouched chunks follow `rule` (which says kUnmapped where no
  // page was laid out); the rule must outlive the table's use of it.
  void set_rule(const MapRule* rule) { rule_ = rule; }
  void clear() {
    for (auto& c : chunks_) c.reset();
    materialised_ = 0;
    rule_ = nullptr;
  }
  uint64_t size() const { return lpns_; }
  ~MappingTable() = default;
  MappingTable(const MappingTable&) = delete;
  MappingTable& operator=(const MappingTable&) = delete;

  uint32_t get(uint64_t lpn) const {
    const auto& c = chunks_[lpn / kChunk];
    if (c) return c[lpn % kChunk];
    return rule_ ? rule_->at(lpn) : kUnmapped;
  }
  void set(uint64_t lpn, uint32_t ppn) { chunk(lpn / kChunk)[lpn % kChunk] = ppn; }
  // Whether the chunk holding `lpn` was ever set (false: it still follows the rule).
  bool touched(uint64_t lpn) const { return chunks_[lpn / kChunk] != nullptr; }
  uint64_t dram_bytes() const { return lpns_ * sizeof(uint32_t); }
  uint64_t host_bytes() const { return materialised_ * kChunk * sizeof(uint32_t); }

 private:
  uint32_t* chunk(uint64_t i) {
    auto& c = chunks_[i];
    if (!c) {
      c.reset(new uint32_t[kChunk]);
      uint64_t base = i * kChunk;
      uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(kChunk, lpns_ - base));
      if (rule_)
        rule_->fill(base, n, c.get());
      else
        std::fill(c.get(), c.get() + n, kUnmapped);
      ++materialised_;
    }
    return c.get();
  }

  uint64_t lpns_;
  std::vector<std::unique_ptr<uint32_t[]>> chunks_;
  uint64_t materialised_ = 0;
  const MapRule* rule_ = nullptr;
};

}  // namespace vp::ssd
