// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A statistic that keeps every sample (latencies, response times) so its
// percentiles are exact: nearest rank, no interpolation, as fio's and the
// papers' p95/p99 are read. Samples are whole numbers in `unit`.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace vp {

class Distribution {
 public:
  std::string unit, desc;

  void add(uint64_t v) { samples_.push_back(v); sorted_ = false; }
  size_t count() const { return samples_.size(); }
  bool empty() const { return samples_.empty(); }
  const std::vector<uint64_t>& samples() const { return samples_; }
  // The ceil(p x n)-th smallest sample (p in (0, 1]); 0 when empty.
  uint64_t percentile(double p) const;
  uint64_t min() const { return empty() ? 0 : sorted().front(); }
  uint64_t max() const { return empty() ? 0 : sorted().back(); }
  double mean() const;
  // count, mean, p50, p90, p95, p99, p999, max, min, each divided by
  // `scale` (1e6 turns ps into us); only the count when empty.
  nlohmann::json summary(double scale = 1.0) const;
  // The nearest-rank rule on an ascending vector, shared with callers that
  // keep their own samples.
  static uint64_t nearest_rank(const std::vector<uint64_t>& sorted, double p);

 private:
  const std::vector<uint64_t>& sorted() const;
  mutable std::vector<uint64_t> samples_;
  mutable bool sorted_ = true;
};

}  // namespace vp
