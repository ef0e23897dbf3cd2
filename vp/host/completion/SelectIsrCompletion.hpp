// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// select_isr (FlashShare sec. 3.4): an I/O tagged latency-critical (a
// workload attribute) is polled; the rest complete by interrupt.
#include "vp/host/block/IoRequest.hpp"
#include "vp/host/completion/CompletionMode.hpp"

namespace vp::host {

class SelectIsrCompletion : public CompletionMode {
 public:
  bool polled(const FioJobRunner&, const IoRequest& r) const override { return r.attr != 0; }
};

}  // namespace vp::host
