// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/OnlineClient.hpp"

#include <algorithm>
#include <cmath>

namespace vp::host {

OnlineClient::OnlineClient(uint64_t rate_per_s, bool poisson, Tick net_delay, uint64_t seed)
    : rate_(rate_per_s), poisson_(poisson), net_(net_delay), rng_(seed) {}

void OnlineClient::start(Tick t0) {
  t0_ = t0;
  started_ = true;
  sends_.clear();
  taken_ = 0;
  generate();  // next_send() always has the next request
}

void OnlineClient::generate() {
  const uint64_t k = sends_.size();
  if (!poisson_) {
    // From t0 each time, so 1/rate's rounding does not drift.
    sends_.push_back(t0_ + static_cast<Tick>((unsigned __int128)k * 1000000000000ULL / rate_));
    return;
  }
  // Inverse transform of an exponential gap; 1 - u is in (0, 1], so the log is finite.
  double gap = -std::log(1.0 - rng_.unit()) * 1e12 / double(rate_);
  sends_.push_back((k ? sends_.back() : t0_) + static_cast<Tick>(std::llround(gap)));
}

uint64_t OnlineClient::take() {
  generate();
  return taken_++;
}

// With several workers responses can leave out of request order.
void OnlineClient::respond(uint64_t k, Tick taken, Tick io, unsigned worker, Tick server_end) {
  resp_.push_back({k, sends_[k], server_end + net_, taken, io, worker, net_});
}

}  // namespace vp::host
