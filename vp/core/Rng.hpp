// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Deterministic random numbers: the same seed gives the same stream on every
// machine (std distributions are implementation-defined, so bounding is done
// here with Lemire's multiply-shift).
#include <cstdint>
#include <random>

namespace vp {

class Rng {
 public:
  explicit Rng(uint64_t seed = 1) : gen_(seed) {}
  uint64_t next() { return gen_(); }
  uint64_t below(uint64_t n) {  // uniform in [0, n)
    return static_cast<uint64_t>((static_cast<unsigned __int128>(gen_()) * n) >> 64);
  }
  double unit() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }  // [0, 1)
  // Independent stream for a sub-component, derived from a base seed and an id.
  static uint64_t derive(uint64_t seed, uint64_t id) {
    uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (id + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::mt19937_64 gen_;
};

// A random permutation of [0, n) computed on demand, with no table: a
// four-round Feistel network over the smallest even power of two covering n,
// walking the cycle past values >= n. Same seed, same permutation.
class RandomPermutation {
 public:
  RandomPermutation(uint64_t n, uint64_t seed) : n_(n) {
    while ((uint64_t(1) << (2 * half_)) < n) ++half_;
    for (int i = 0; i < 4; ++i) keys_[i] = Rng::derive(seed, static_cast<uint64_t>(i));
  }
  uint64_t operator()(uint64_t i) const {  // i in [0, n)
    uint64_t x = i;
    do x = round_trip(x);
    while (x >= n_);
    return x;
  }
  uint64_t size() const { return n_; }
  uint64_t inverse(uint64_t x) const {  // the i with (*this)(i) == x
    uint64_t i = x;
    do i = round_back(i);
    while (i >= n_);
    return i;
  }

 private:
  uint64_t round_back(uint64_t y) const {
    uint64_t mask = (uint64_t(1) << half_) - 1, l = y >> half_, r = y & mask;
    for (int k = 3; k >= 0; --k) {  // undo (l, r) -> (r, l ^ f(r))
      uint64_t pl = r ^ (Rng::derive(keys_[k], l) & mask);
      r = l;
      l = pl;
    }
    return (l << half_) | r;
  }
  uint64_t round_trip(uint64_t x) const {
    uint64_t mask = (uint64_t(1) << half_) - 1, l = x >> half_, r = x & mask;
    for (uint64_t k : keys_) {
      uint64_t f = Rng::derive(k, r) & mask;
      uint64_t nl = r;
      r = l ^ f;
      l = nl;
    }
    return (l << half_) | r;
  }
  uint64_t n_;
  unsigned half_ = 0;
  uint64_t keys_[4];
};

}  // namespace vp
