// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How the host reaps a driver's completions (host.nvme.completion,
// FlashShare OSDI'18 sec. 3.4 and 5.3), as a core sees it: which I/Os a
// thread polls for instead of sleeping on an interrupt, how long hybrid
// polling sleeps first, what dedcore's hand-over between the polling core
// and the others costs. One object per core, of the mode's class, chosen
// once at elaboration (make); the core's loop (HostCore) does the spinning,
// the reaping and dedcore's polling core.
#include <memory>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Units.hpp"
#include "vp/host/driver/NvmeDriver.hpp"

namespace vp::host {

class AcceleratorDriver;
class BlockDevices;
class FioJobRunner;
struct HostThread;
struct IoRequest;

class CompletionMode {
 public:
  // The modes' keys, in the host's scope: core.hybrid_sleep_fraction,
  // core.dedcore_* and core.poll_core.
  static void declare_params(const ParamScope& host);
  static std::unique_ptr<CompletionMode> make(NvmeDriver::Completion mode, const ScopedConfig& host,
                                              const BlockDevices& devs);
  virtual ~CompletionMode() = default;

  // Whether the thread that issues `r` (of job `j`) polls for its completion.
  virtual bool polled(const FioJobRunner& j, const IoRequest& r) const = 0;
  // The accelerator's driver, once the platform has one (xler).
  virtual void set_accelerator(const AcceleratorDriver*) {}
  // Hybrid: how long `t`, about to spin, sleeps first (0: it spins now).
  virtual Tick nap(HostThread&) { return 0; }
  // A polled I/O was reaped `took` after it was issued.
  virtual void reaped_polled(Tick /*took*/) {}
  // Dedcore: the cache lines' move to a general core per completion, and a
  // queue's spin lock changing hands (per submission, per completion).
  virtual Tick lines_per_completion() const { return 0; }
  virtual Tick lock_handoff() const { return 0; }
};

}  // namespace vp::host
