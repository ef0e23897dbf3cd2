// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/Distribution.hpp"

#include <cmath>
#include <utility>

namespace vp {

uint64_t Distribution::nearest_rank(const std::vector<uint64_t>& v, double p) {
  size_t rank = static_cast<size_t>(std::ceil(p * double(v.size())));
  return v[std::min(v.size(), std::max<size_t>(rank, 1)) - 1];
}

const std::vector<uint64_t>& Distribution::sorted() const {
  if (!sorted_) {
    std::sort(samples_.begin(), samples_.end());
    sorted_ = true;
  }
  return samples_;
}

uint64_t Distribution::percentile(double p) const { return empty() ? 0 : nearest_rank(sorted(), p); }

double Distribution::mean() const {
  if (empty()) return 0.0;
  long double sum = 0;  // long double: a million picosecond latencies overflow no mantissa
  for (uint64_t v : samples_) sum += v;
  return double(sum / samples_.size());
}

nlohmann::json Distribution::summary(double scale) const {
  nlohmann::json j;
  j["count"] = count();
  if (empty()) return j;
  const auto& v = sorted();
  j["mean"] = mean() / scale;
  for (auto [key, p] : {std::pair{"p50", 0.50}, {"p90", 0.90}, {"p95", 0.95}, {"p99", 0.99}, {"p999", 0.999}})
    j[key] = double(nearest_rank(v, p)) / scale;
  j["max"] = double(v.back()) / scale;
  j["min"] = double(v.front()) / scale;
  return j;
}

}  // namespace vp
