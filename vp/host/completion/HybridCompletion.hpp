// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// hybrid: every I/O is polled, but a thread about to spin first sleeps
// core.hybrid_sleep_fraction of the mean issue-to-reap time of the core's
// earlier polled I/Os (Linux's blk_mq_poll_hybrid_sleep sleeps half the
// mean), once per wait; it pays a context switch when the timer wakes it.
#include "vp/core/ParamScope.hpp"
#include "vp/host/completion/CompletionMode.hpp"

namespace vp::host {

class HybridCompletion : public CompletionMode {
 public:
  static void declare_params(const ParamScope& host);
  explicit HybridCompletion(const ScopedConfig& host);
  bool polled(const FioJobRunner&, const IoRequest&) const override { return true; }
  Tick nap(HostThread& t) override;
  void reaped_polled(Tick took) override {
    sum_ += took;
    ++n_;
  }

 private:
  double fraction_;
  Tick sum_ = 0;  // issue to reaped, of this core's polled I/Os
  uint64_t n_ = 0;
};

}  // namespace vp::host
