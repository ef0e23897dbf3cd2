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
//
// The entries live in one reservation of address space for the whole table
// (no memory until a page is touched), so an entry's address is the base
// plus its index: no directory load stands between a lookup and its entry,
// and a prefetch needs none either. A bitmap of the chunks made, a bit a
// chunk, says which entries are real.
#include <sys/mman.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace vp {

template <class T, unsigned Bits>
class LazyTable {
 public:
  static constexpr uint64_t kChunk = uint64_t(1) << Bits;

  explicit LazyTable(uint64_t n) : n_(n), chunks_((n + kChunk - 1) >> Bits), made_bits_((chunks_ + 63) / 64) {
    if (n_ == 0) return;
    void* p = mmap(nullptr, reserved(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw std::runtime_error("LazyTable: cannot reserve " + std::to_string(reserved()) + " bytes of address space");
    madvise(p, reserved(), MADV_NOHUGEPAGE);  // a 2 MiB page per touched record would undo the point
#if defined(__SANITIZE_ADDRESS__)
    // A calendar process's stack unmapped earlier at these addresses leaves
    // its redzones in ASan's shadow; fresh pages are addressable.
    ASAN_UNPOISON_MEMORY_REGION(p, reserved());
#endif
    base_ = static_cast<T*>(p);
  }
  ~LazyTable() { release(); }
  LazyTable(const LazyTable&) = delete;
  LazyTable& operator=(const LazyTable&) = delete;
  LazyTable(LazyTable&& o) noexcept { *this = std::move(o); }
  LazyTable& operator=(LazyTable&& o) noexcept {
    if (this != &o) {
      release();
      n_ = std::exchange(o.n_, 0);
      chunks_ = std::exchange(o.chunks_, 0);
      made_bits_ = std::move(o.made_bits_);
      made_ = std::exchange(o.made_, 0);
      base_ = std::exchange(o.base_, nullptr);
      filler_ = std::move(o.filler_);
    }
    return *this;
  }

  uint64_t size() const { return n_; }
  // Sets entries [first, first + n), T{} before, of each chunk made from now on.
  using Filler = std::function<void(uint64_t first, uint64_t n, T* out)>;
  void set_filler(Filler f) { filler_ = std::move(f); }
  bool has_filler() const { return bool(filler_); }

  const T& operator[](uint64_t i) const {
    if (made(i >> Bits)) return base_[i];
    return filler_ ? make(i >> Bits)[i & (kChunk - 1)] : kBlank;
  }
  T& at(uint64_t i) {
    if (!made(i >> Bits)) make(i >> Bits);
    return base_[i];
  }
  // The entry if its chunk was made, else null (it reads as T{}).
  T* find(uint64_t i) { return made(i >> Bits) ? base_ + i : nullptr; }
  const T* find(uint64_t i) const { return made(i >> Bits) ? base_ + i : nullptr; }
  // Starts loading entry i's line (no other effect). A chunk not made is
  // address space with no page behind it: the prefetch is dropped, and
  // neither faults nor commits memory.
  void prefetch(uint64_t i) const { __builtin_prefetch(base_ + i); }
  // Calls f(first, count, entries) for each run of kChunk entries (the last
  // may be shorter) in order, entries null where the chunk was never made.
  template <class F>
  void for_each_chunk(F&& f) const {
    for (uint64_t k = 0; k < chunks_; ++k) {
      uint64_t first = k << Bits;
      f(first, std::min<uint64_t>(kChunk, n_ - first), made(k) ? static_cast<const T*>(base_ + first) : nullptr);
    }
  }
  template <class F>
  void for_each_chunk(F&& f) {
    for (uint64_t k = 0; k < chunks_; ++k) {
      uint64_t first = k << Bits;
      f(first, std::min<uint64_t>(kChunk, n_ - first), made(k) ? base_ + first : nullptr);
    }
  }
  void clear() {
    destroy_made();
    if (base_) madvise(base_, reserved(), MADV_DONTNEED);  // back to untouched zero pages
    filler_ = nullptr;
  }
  // What the table holds in the simulator: the bitmap and the chunks made.
  uint64_t host_bytes() const { return made_bits_.size() * sizeof(uint64_t) + made_ * kChunk * sizeof(T); }

 private:
  uint64_t reserved() const { return (chunks_ << Bits) * sizeof(T); }
  bool made(uint64_t k) const { return (made_bits_[k >> 6] >> (k & 63)) & 1; }
  // Logically const: a chunk made from the filler holds what it read as.
  T* make(uint64_t k) const {
    T* c = base_ + (k << Bits);
    std::uninitialized_value_construct_n(c, kChunk);
    made_bits_[k >> 6] |= uint64_t(1) << (k & 63);
    ++made_;
    if (filler_) filler_(k << Bits, std::min<uint64_t>(kChunk, n_ - (k << Bits)), c);
    return c;
  }
  void destroy_made() {
    if constexpr (!std::is_trivially_destructible_v<T>)
      for (uint64_t k = 0; k < chunks_; ++k)
        if (made(k)) std::destroy_n(base_ + (k << Bits), kChunk);
    std::fill(made_bits_.begin(), made_bits_.end(), 0);
    made_ = 0;
  }
  void release() {
    if (!base_) return;
    destroy_made();
    munmap(base_, reserved());
    base_ = nullptr;
  }

  static inline const T kBlank{};
  uint64_t n_ = 0, chunks_ = 0;
  mutable std::vector<uint64_t> made_bits_;
  mutable uint64_t made_ = 0;
  T* base_ = nullptr;
  Filler filler_;
};

}  // namespace vp
