// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// dedcore (FlashShare sec. 5.3's baseline): one core, core.poll_core,
// polls every CQ and runs no jobs; the threads block as with interrupts and
// get their completions from it. Their communication costs what the paper
// names ("CPU cache flushes and spin-lock management"): per completion,
// core.dedcore_lines cache lines moved each way, and a queue's spin lock
// changing hands per submission and per completion.
#include "vp/core/ParamScope.hpp"
#include "vp/host/completion/CompletionMode.hpp"

namespace vp::host {

class DedCoreCompletion : public CompletionMode {
 public:
  static void declare_params(const ParamScope& host);
  // The core that polls (core.poll_core; -1: the last one).
  static unsigned polling_core(const ScopedConfig& host);
  explicit DedCoreCompletion(const ScopedConfig& host);
  bool polled(const FioJobRunner&, const IoRequest&) const override { return false; }
  Tick lines_per_completion() const override { return lines_; }
  Tick lock_handoff() const override { return lock_; }

 private:
  Tick lines_, lock_;
};

}  // namespace vp::host
