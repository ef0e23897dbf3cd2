// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/sched/WakePlacement.hpp"

#include <algorithm>

namespace vp::host {

WakePlacement::WakePlacement(unsigned cores, unsigned llc_cores)
    : cores_(cores), llc_(llc_cores == 0 || llc_cores > cores ? cores : llc_cores) {}

unsigned WakePlacement::place(unsigned prev, unsigned waker, const std::vector<CoreLoad>& c,
                              const std::vector<unsigned>& allowed) const {
  auto ok = [&](unsigned k) {
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), k) != allowed.end();
  };
  unsigned target = prev;
  // wake_affine: an empty waker always qualifies; otherwise its load with the
  // thread must not exceed the previous core's by the MC domain's margin
  // (imbalance_pct 117: half of it, 108.5%).
  if (waker != prev && ok(waker)) {
    unsigned here = c[waker].runnable, there = c[prev].runnable;
    if (here == 0 || 200 * (here + 1) <= 217 * there) target = waker;
  }
  if (c[target].idle) return target;
  if (prev != target && share_cache(prev, target) && c[prev].idle && ok(prev)) return prev;
  unsigned first = target / llc_ * llc_, n = std::min(llc_, cores_ - first);
  for (unsigned i = 1; i < n; ++i) {
    unsigned k = first + (target - first + i) % n;
    if (c[k].idle && ok(k)) return k;
  }
  return target;
}

}  // namespace vp::host
