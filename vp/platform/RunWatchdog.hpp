// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A run that stops making simulated progress (a callback loop at one
// instant, a model waiting on itself) would otherwise hang its sweep. A
// thread watches the simulation loop: when a chunk of simulated time has
// not ended within `bound` of wall time, it interrupts the run
// (sim_interrupt), which the calendar honours at its next callback, so the
// run ends with its summary, saying where it was stuck. Should the model
// not come back to the calendar at all within a second bound, the thread
// removes the run's temporaries and ends the process with exit code 3.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "vp/core/Units.hpp"

namespace vp::platform {

class RunWatchdog {
 public:
  // `bound_s` 0: no watchdog. `out_dir`: where the run's *.tmp-PID files are.
  RunWatchdog(double bound_s, std::string out_dir);
  ~RunWatchdog();
  RunWatchdog(const RunWatchdog&) = delete;
  RunWatchdog& operator=(const RunWatchdog&) = delete;

  // Around each chunk of simulated time.
  void chunk_started() { started_.fetch_add(1, std::memory_order_relaxed); }
  void chunk_ended() { ended_.fetch_add(1, std::memory_order_relaxed); }
  bool fired() const { return fired_.load(std::memory_order_relaxed); }
  double bound_s() const { return bound_s_; }

 private:
  void watch();
  double bound_s_;
  std::string out_dir_;
  std::atomic<uint64_t> started_{0}, ended_{0};
  std::atomic<bool> fired_{false};
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace vp::platform
