// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A table of n entries held in chunks of 2^Bits entries, each made the first
// time one of its entries is written: memory follows what a run touches, not
// the table's size (a terabyte drive's per-block records, of which a short
// run writes a few thousand). An entry of a chunk not yet made reads as T{},
// or, given a filler, as the filler sets it when the chunk is made: a rule
// the untouched entries follow (a preconditioned drive's layout). Reading
// an entry makes its chunk only when a filler is set; at() always does.
// for_each_chunk shows the chunks not made as null, made or not.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace vp {

template <class T, unsigned Bits>
class LazyTable {
 public:
  static constexpr uint64_t kChunk = uint64_t(1) << Bits;

  explicit LazyTable(uint64_t n) : n_(n), dir_((n + kChunk - 1) >> Bits) {}
  LazyTable(const LazyTable&) = delete;
  LazyTable& operator=(const LazyTable&) = delete;
  LazyTable(LazyTable&&) = default;
  LazyTable& operator=(LazyTable&&) = default;

  uint64_t size() const { return n_; }
  // Sets entries [first, first + n), T{} before, of each chunk made from now on.
  using Filler = std::function<void(uint64_t first, uint64_t n, T* out)>;
  void set_filler(Filler f) { filler_ = std::move(f); }
  bool has_filler() const { return bool(filler_); }

  const T& operator[](uint64_t i) const {
    const T* c = dir_[i >> Bits].get();
    if (c) return c[i & (kChunk - 1)];
    return filler_ ? make(i >> Bits)[i & (kChunk - 1)] : kBlank;
  }
  T& at(uint64_t i) {
    T* c = dir_[i >> Bits].get();
    return (c ? c : make(i >> Bits))[i & (kChunk - 1)];
  }
  // The entry if its chunk was made, else null (it reads as T{}).
  T* find(uint64_t i) {
    T* c = dir_[i >> Bits].get();
    return c ? c + (i & (kChunk - 1)) : nullptr;
  }
  const T* find(uint64_t i) const {
    const T* c = dir_[i >> Bits].get();
    return c ? c + (i & (kChunk - 1)) : nullptr;
  }
  // Starts loading entry i's line when its chunk exists (no other effect).
  // Unconditional: GCC drops a prefetch under a branch, and prefetching near
  // address 0 (no chunk) cannot fault.
  void prefetch(uint64_t i) const { __builtin_prefetch(dir_[i >> Bits].get() + (i & (kChunk - 1))); }
  // Calls f(first, count, entries) for each run of kChunk entries (the last
  // may be shorter) in order, entries null where the chunk was never made.
  template <class F>
  void for_each_chunk(F&& f) const {
    for (uint64_t k = 0; k < dir_.size(); ++k) {
      uint64_t first = k << Bits;
      f(first, std::min<uint64_t>(kChunk, n_ - first), static_cast<const T*>(dir_[k].get()));
    }
  }
  template <class F>
  void for_each_chunk(F&& f) {
    for (uint64_t k = 0; k < dir_.size(); ++k) {
      uint64_t first = k << Bits;
      f(first, std::min<uint64_t>(kChunk, n_ - first), dir_[k].get());
    }
  }
  void clear() {
    for (auto& c : dir_) c.reset();
    made_ = 0;
    filler_ = nullptr;
  }
  // What the table holds in the simulator: the directory and the chunks made.
  uint64_t host_bytes() const { return dir_.size() * sizeof(dir_[0]) + made_ * kChunk * sizeof(T); }

 private:
  // Logically const: a chunk made from the filler holds what it read as.
  T* make(uint64_t k) const {
    T* c = new T[kChunk]();
    dir_[k].reset(c);
    ++made_;
    if (filler_) filler_(k << Bits, std::min<uint64_t>(kChunk, n_ - (k << Bits)), c);
    return c;
  }

  static inline const T kBlank{};
  uint64_t n_;
  mutable std::vector<std::unique_ptr<T[]>> dir_;
  mutable uint64_t made_ = 0;
  Filler filler_;
};

}  // namespace vp
