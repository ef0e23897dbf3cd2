// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// poll: every thread spins on its core's polled CQ for each of its I/Os.
#include "vp/host/completion/CompletionMode.hpp"

namespace vp::host {

class PollCompletion : public CompletionMode {
 public:
  bool polled(const FioJobRunner&, const IoRequest&) const override { return true; }
};

}  // namespace vp::host
