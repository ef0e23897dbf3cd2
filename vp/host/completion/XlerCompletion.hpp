// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// xler (FlashShare sec. 5): an I/O the accelerator takes completes as the
// accelerator's driver does (its register polled, or its interrupt); one it
// leaves is handled as select_isr handles it.
#include "vp/host/block/IoRequest.hpp"
#include "vp/host/completion/CompletionMode.hpp"
#include "vp/host/driver/AcceleratorDriver.hpp"

namespace vp::host {

class XlerCompletion : public CompletionMode {
 public:
  bool polled(const FioJobRunner&, const IoRequest& r) const override {
    return r.offloaded ? accel_->polled() : r.attr != 0;
  }
  void set_accelerator(const AcceleratorDriver* a) override { accel_ = a; }

 private:
  const AcceleratorDriver* accel_ = nullptr;
};

}  // namespace vp::host
