// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The FTL's logical-to-physical table, one 32-bit physical page number per
// logical page, held in chunks that exist only once touched (and hold only
// the entries set until they are many). An untouched
// chunk follows a rule: either unmapped, or the layout a sequential
// preconditioning pass left (so a full multi-terabyte drive costs no table
// memory until it is written). `dram_bytes()` is what a firmware's flat
// table would occupy, `host_bytes()` what the simulator holds.
#include <cstdint>
#include <algorithm>
#include <memory>
#include <vector>

#include "vp/core/LazyTable.hpp"

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
  static constexpr uint32_t kChunk = 256;  // entries per chunk
  // A touched chunk first holds only the entries set, over the rule, as
  // sorted (offset, ppn) pairs: random writes on a large drive set one or
  // two entries per chunk, and a whole chunk each would cost 512 times
  // their size. Past this many pairs it holds every entry.
  static constexpr uint32_t kSparseMax = 32;

  explicit MappingTable(uint64_t lpns) : lpns_(lpns), chunks_((lpns + kChunk - 1) / kChunk) {}

  // Entries of untouched chunks follow `rule` (which says kUnmapped where no
  // page was laid out); the rule must outlive the table's use of it.
  void set_rule(const MapRule* rule) { rule_ = rule; }
  const MapRule* rule() const { return rule_; }
  void clear() {
    chunks_.clear();
    bytes_ = 0;
    rule_ = nullptr;
  }
  uint64_t size() const { return lpns_; }
  ~MappingTable() = default;
  MappingTable(const MappingTable&) = delete;
  MappingTable& operator=(const MappingTable&) = delete;

  // Starts loading the slot that get(lpn) reads first (no simulated effect).
  void prefetch(uint64_t lpn) const {
    chunks_.prefetch((lpn < lpns_ ? lpn : 0) / kChunk);  // no branch: GCC would drop the prefetch
  }
  uint32_t get(uint64_t lpn) const {
    const uint32_t* c = chunks_[lpn / kChunk].get();
    const auto off = static_cast<uint32_t>(lpn % kChunk);
    if (c) {
      if (c[0] == kDense) return c[kHeader + off];
      const uint32_t* e = find(c, off);
      if (e != end(c) && e[0] == off) return e[1];
    }
    return rule_ ? rule_->at(lpn) : kUnmapped;
  }
  void set(uint64_t lpn, uint32_t ppn) {
    auto& c = chunks_.at(lpn / kChunk);
    const auto off = static_cast<uint32_t>(lpn % kChunk);
    if (c && c[0] == kDense) {
      c[kHeader + off] = ppn;
      return;
    }
    uint32_t* e = c ? find(c.get(), off) : nullptr;
    if (c && e != end(c.get()) && e[0] == off) {
      e[1] = ppn;
      return;
    }
    const uint32_t n = c ? c[0] : 0, cap = c ? c[1] : 0;
    if (n == kSparseMax) {
      densify(lpn / kChunk);
      c[kHeader + off] = ppn;
      return;
    }
    if (n == cap) {  // grow: 2, 4, 8, ... pairs (a write of two or more pages sets neighbours in one chunk)
      const uint32_t ncap = cap ? 2 * cap : 2;
      std::unique_ptr<uint32_t[]> g(new uint32_t[kHeader + 2 * ncap]);
      g[0] = n;
      g[1] = ncap;
      const size_t at = c ? size_t(e - c.get()) : kHeader;
      if (c) {
        std::copy(c.get() + kHeader, c.get() + at, g.get() + kHeader);
        std::copy(c.get() + at, end(c.get()), g.get() + at + 2);
      }
      bytes_ += 4 * (2 * uint64_t(ncap) - 2 * uint64_t(cap)) + (c ? 0 : 4 * kHeader);
      c = std::move(g);
      e = c.get() + at;
    } else {
      std::copy_backward(e, end(c.get()), end(c.get()) + 2);
    }
    e[0] = off;
    e[1] = ppn;
    ++c[0];
  }
  // Whether the chunk holding `lpn` was ever set (false: it still follows the rule).
  bool touched(uint64_t lpn) const { return chunks_[lpn / kChunk] != nullptr; }
  // Chunk i as held (its entries set over the rule, sparse or dense; empty:
  // untouched), and put back: a checkpoint copies what the chunk holds, not
  // 256 entries each computed by the rule.
  std::vector<uint32_t> chunk_words(uint64_t i) const {
    const uint32_t* c = chunks_[i].get();
    if (!c) return {};
    return std::vector<uint32_t>(c, c[0] == kDense ? c + kHeader + kChunk : end(c));
  }
  void restore_chunk(uint64_t i, const std::vector<uint32_t>& words) {
    auto& c = chunks_.at(i);
    if (c) bytes_ -= 4 * (c[0] == kDense ? uint64_t(kHeader + kChunk) : kHeader + 2 * uint64_t(c[1]));
    c.reset();
    if (words.empty()) return;
    const bool dense = words[0] == kDense;
    const uint64_t n = dense ? kHeader + kChunk : kHeader + 2 * uint64_t(words[0]);
    c.reset(new uint32_t[n]);
    std::copy(words.begin(), words.begin() + n, c.get());
    if (!dense) c[1] = words[0];  // capacity: just the pairs
    bytes_ += 4 * n;
  }
  // The words of a chunk holding these n entries (n <= kChunk), each set.
  static std::vector<uint32_t> dense_words(const uint32_t* entries, uint64_t n) {
    std::vector<uint32_t> w(kHeader + kChunk, kUnmapped);
    w[0] = kDense;
    w[1] = 0;
    std::copy(entries, entries + n, w.begin() + kHeader);
    return w;
  }
  // Calls f(lpn, ppn) for the entries set (not the rule's), chunk by chunk.
  template <class F>
  void for_each_set(F&& f) const {
    const uint64_t n = (lpns_ + kChunk - 1) / kChunk;
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t* c = chunks_[i].get();
      if (!c) continue;
      const uint64_t base = i * kChunk;
      if (c[0] == kDense) {
        for (uint64_t k = 0; k < std::min<uint64_t>(kChunk, lpns_ - base); ++k) f(base + k, c[kHeader + k]);
      } else {
        for (const uint32_t* e = c + kHeader; e != end(c); e += 2) f(base + e[0], e[1]);
      }
    }
  }
  uint64_t dram_bytes() const { return lpns_ * sizeof(uint32_t); }
  uint64_t host_bytes() const { return bytes_ + chunks_.host_bytes(); }

 private:
  // A chunk's words: [0] its pair count or kDense, [1] its pair capacity,
  // then the pairs (offset, ppn) sorted by offset, or all kChunk entries.
  static constexpr uint32_t kHeader = 2, kDense = 0xFFFFFFFFu;
  static const uint32_t* end(const uint32_t* c) { return c + kHeader + 2 * c[0]; }
  static uint32_t* end(uint32_t* c) { return c + kHeader + 2 * c[0]; }
  // The first pair whose offset is not below `off`.
  static uint32_t* find(uint32_t* c, uint32_t off) {
    uint32_t* e = c + kHeader;
    while (e != end(c) && e[0] < off) e += 2;
    return e;
  }
  static const uint32_t* find(const uint32_t* c, uint32_t off) { return find(const_cast<uint32_t*>(c), off); }
  void densify(uint64_t i) {
    auto& c = chunks_.at(i);
    std::unique_ptr<uint32_t[]> d(new uint32_t[kHeader + kChunk]);
    d[0] = kDense;
    d[1] = 0;
    uint64_t base = i * kChunk;
    uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(kChunk, lpns_ - base));
    if (rule_)
      rule_->fill(base, n, d.get() + kHeader);
    else
      std::fill(d.get() + kHeader, d.get() + kHeader + n, kUnmapped);
    for (const uint32_t* e = c.get() + kHeader; e != end(c.get()); e += 2) d[kHeader + e[0]] = e[1];
    bytes_ += 4 * uint64_t(kHeader + kChunk) - 4 * (kHeader + 2 * uint64_t(c[1]));
    c = std::move(d);
  }

  uint64_t lpns_;
  // The chunks' pointers, themselves made 512 at a time as chunks are set.
  LazyTable<std::unique_ptr<uint32_t[]>, 9> chunks_;
  uint64_t bytes_ = 0;  // held by the chunks
  const MapRule* rule_ = nullptr;
};

}  // namespace vp::ssd
