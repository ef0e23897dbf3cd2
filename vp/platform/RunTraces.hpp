// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A run's traces (requests.csv, waves.vcd, timeline.json), which grow with simulated time,
// watched while it runs: a write that failed (a full disk, a file-size
// limit), or the disk holding --out falling below the room the summary
// needs, stops the run with an error naming the trace. The partial traces
// are then removed rather than published, which also gives the summary
// back the space they took.
#include <chrono>
#include <memory>
#include <string>

#include "vp/core/RequestLog.hpp"
#include "vp/core/Waves.hpp"

namespace vp::platform {

class RunTraces {
 public:
  RunTraces(std::string out_dir, Waves& waves) : out_dir_(std::move(out_dir)), waves_(waves) {}
  std::unique_ptr<RequestLog> requests;  // null: not traced
  Waves& waves() { return waves_; }
  // "" while the traces are healthy, else why the run must stop.
  std::string check();
  bool failed() const { return failed_; }

 private:
  std::string out_dir_;
  Waves& waves_;
  bool failed_ = false;
  std::chrono::steady_clock::time_point next_disk_check_{};
};

}  // namespace vp::platform
