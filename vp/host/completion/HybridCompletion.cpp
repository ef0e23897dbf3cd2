// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/completion/HybridCompletion.hpp"

#include <cmath>

#include "vp/host/sched/HostThread.hpp"

namespace vp::host {

void HybridCompletion::declare_params(const ParamScope& r) {
  r.real("core.hybrid_sleep_fraction", 0.5,
         "hybrid polling: share of the mean completion time of the core's earlier polled I/Os slept before "
         "polling (Linux sleeps half the mean)")
      .range(0, 1);
}

HybridCompletion::HybridCompletion(const ScopedConfig& host)
    : fraction_(host.get_real("core.hybrid_sleep_fraction")) {}

Tick HybridCompletion::nap(HostThread& t) {
  if (t.slept || n_ == 0) return 0;
  t.slept = true;  // once per wait: polling sees the rest
  return static_cast<Tick>(std::llround(fraction_ * double(sum_) / double(n_)));
}

}  // namespace vp::host
