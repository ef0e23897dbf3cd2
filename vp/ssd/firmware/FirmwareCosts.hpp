// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What firmware work costs on the embedded cores: cycles per task
// (ssd.fw.cost.*), the clock, the pipeline (in-order, or out-of-order with a
// speed-up), and memory contention: a task on a structure shared by k cores
// costs (1 + contention x (k - 1)) times its cycles. Switch is not a task of
// a request but what a core pays to change threads (EmbeddedCore).
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Units.hpp"

namespace vp::ssd {

enum FwTask : unsigned {
  Fetch, FetchBatch, Parse, Lock, LockLevel, CacheLookup, Cache, Trans, Compose, Complete, CqFlush, Gc, Journal,
  Message, Switch, kFwTasks
};

class FirmwareCosts {
 public:
  // In the firmware's scope (ssd.fw): clock, core_type, ooo_speedup, contention, cost.*.
  static void declare_params(const ParamScope& fw);
  explicit FirmwareCosts(const ScopedConfig& fw);

  uint64_t cycles_of(FwTask k) const { return cycles_[k]; }
  // Core time of a piece of work: tasks and how many of each.
  Tick time(std::initializer_list<std::pair<FwTask, uint64_t>> work) const;
  Tick time(FwTask k, uint64_t n = 1) const { return time({{k, n}}); }
  // Cycles of a request's planned work (placement weighs threads by it).
  double planned(std::initializer_list<std::pair<FwTask, double>> work) const;
  // Task `k` works on a structure `cores` cores touch.
  void shared(FwTask k, size_t cores) { mult_[k] = 1.0 + contention_ * double(cores - 1); }

 private:
  uint64_t cycles_[kFwTasks];
  double mult_[kFwTasks];
  double ps_per_cycle_, contention_;
};

}  // namespace vp::ssd
