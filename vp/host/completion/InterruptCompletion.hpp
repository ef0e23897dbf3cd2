// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// interrupt: every thread sleeps until the MSI-X interrupt, except a job
// with hipri=1 whose device has poll queues (host.nvme.poll_queues), which
// polls as Linux's RWF_HIPRI does.
#include "vp/host/block/BlockDevices.hpp"
#include "vp/host/completion/CompletionMode.hpp"
#include "vp/host/workload/FioJobRunner.hpp"

namespace vp::host {

class InterruptCompletion : public CompletionMode {
 public:
  explicit InterruptCompletion(const BlockDevices& devs) : devs_(devs) {}
  bool polled(const FioJobRunner& j, const IoRequest& r) const override {
    return j.spec().hipri && devs_.first_of(r.dev).driver->has_poll_queues();
  }

 private:
  const BlockDevices& devs_;
};

}  // namespace vp::host
