// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// fio's random_distribution: where the random offsets of a random job
// (randread, randwrite, randrw) fall in its region. The option as fio spells
// it (RandomDistribution), and the sampler a running job draws block
// indices from (OffsetSampler), with fio's definitions: zipf by Gray et
// al.'s method (fio's lib/zipf.c), pareto as a power of a uniform, normal as
// the mean of 12 uniforms (fio's lib/gauss.c), zoned and zoned_abs as access
// shares of ranges. zipf, pareto and normal pass the value they draw through
// fio's multiplicative hash, so the hot blocks are scattered over the region.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "vp/core/Rng.hpp"

namespace vp::host {

struct RandomDistribution {
  enum class Kind { Random, Zipf, Pareto, Normal, Zoned, ZonedAbs };
  Kind kind = Kind::Random;
  // zipf: theta (> 0, not 1); pareto: h (0 < h < 1); normal: the deviation
  // in percent of the region (0 <= dev < 100). fio's defaults when only the
  // name is given: 1.1, 0.2, 0.
  double value = 0;
  // fio's optional second value (zipf, pareto, normal): where in the region,
  // 0..1, the distribution's base lies; -1 for fio's default (a random
  // rotation for zipf and pareto, the middle for normal).
  double center = -1;
  struct Zone {
    unsigned access = 0;  // percent of the direction's random I/Os
    uint64_t range = 0;   // zoned: percent of the region; zoned_abs: bytes
    bool operator==(const Zone& o) const { return access == o.access && range == o.range; }
  };
  // zoned, zoned_abs: the zones of reads, writes and trims (fio's
  // per-direction sets "R,W,T"; one set applies to all, two give trims the
  // writes'). An empty set leaves that direction uniform, as in fio.
  std::array<std::vector<Zone>, 3> zones;

  // The value of `random_distribution=`; throws std::invalid_argument with
  // the reason, worded to follow "value 'zipf:0' ".
  static RandomDistribution parse(const std::string& text);
  std::string text() const;  // fio's spelling; parse(text()) == *this
  bool is_random() const { return kind == Kind::Random; }
  // zoned_abs: bytes the largest set's zones cover (they must fit in the region).
  uint64_t zoned_abs_bytes() const;
  bool operator==(const RandomDistribution& o) const;
  bool operator!=(const RandomDistribution& o) const { return !(*this == o); }
};

// Draws the block index, in [0, blocks), of each random I/O of a job whose
// region has `blocks` blocks of `bs` bytes. Everything that depends only on
// the region (zipf's normalisation, the zones' block ranges) is worked out
// once here; a draw costs O(1) (zoned: O(1) through a 100-entry table).
// Random numbers come from the job's own generator: zipf and pareto
// without a center take their rotation from `rng` here (one draw), as fio
// draws rand_off when it sets them up; nothing else is drawn here.
class OffsetSampler {
 public:
  // fio's hash (hash.h __hash_u64): multiplication by 2^64 / phi^2.
  static constexpr uint64_t kGoldenRatio64 = 0x61C8864680B583EBull;
  // `scatter` = false leaves out the hash (fio does for its file selection,
  // never for offsets): for tests that look at the distribution's shape.
  OffsetSampler(const RandomDistribution& d, uint64_t blocks, uint64_t bs, Rng& rng, bool scatter = true);
  uint64_t next(Rng& rng, unsigned ddir);  // ddir: fio's direction, 0 read, 1 write, 2 trim
  uint64_t blocks() const { return n_; }
  // Where a drawn value v (zipf/pareto rank, normal position) lands with
  // the hash on: (v x kGoldenRatio64 mod 2^64 + off) mod blocks, as fio's
  // zipf_next, pareto_next and gauss_next place it.
  static uint64_t place(uint64_t v, uint64_t off, uint64_t n) { return ((v * kGoldenRatio64) % n + off % n) % n; }
  // sum_{k=1..n} k^-theta (zipf's normalisation, H(n, theta)): exact sum
  // up to 4096 terms, Euler-Maclaurin beyond, O(1) for any n.
  static double zipf_norm(uint64_t n, double theta);
  double norm() const { return zetan_; }  // this sampler's H(blocks, theta)
  uint64_t offset() const { return off_; }

 private:
  struct ZoneRange {
    uint64_t first, count;
  };
  uint64_t zipf_rank(Rng& rng);
  uint64_t pareto_rank(Rng& rng);
  uint64_t gauss_value(Rng& rng);
  uint64_t land(uint64_t v) const;
  RandomDistribution::Kind kind_;
  uint64_t n_;
  bool scatter_;
  uint64_t off_ = 0;  // fio's rand_off
  // zipf (Gray et al.): H(n, theta), 1 + 2^-theta, 1 / (1 - theta), eta.
  double theta_ = 0, zetan_ = 0, zeta2_ = 0, alpha_ = 0, eta_ = 0;
  double pareto_pow_ = 0;   // log(h) / log(1 - h)
  uint64_t gauss_width_ = 0;  // fio's stddev: ceil(blocks x dev / 100), at most blocks / 2
  // zoned, zoned_abs: per direction (reads, writes, trims), the zone of
  // each access percent 1..100 and the zones' block ranges; no zones: uniform.
  std::array<std::vector<ZoneRange>, 3> zone_;
  std::array<std::array<uint8_t, 100>, 3> zone_of_{};
};

}  // namespace vp::host
