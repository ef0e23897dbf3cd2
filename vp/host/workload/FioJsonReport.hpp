// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// fio.json: the run's jobs in fio's --output-format=json layout (fio's
// stat.c, show_thread_status_json and add_ddir_status_json), so scripts
// written for fio read FlashVP's results. One entry per job (numjobs
// clones and an online server's workers each their own, in summary.json's
// order), its read, write, trim and sync sections with fio's keys:
// lat_ns is FlashVP's per-I/O latency (the job's issue to its seeing the
// completion), slat_ns the host_submit stage of it and clat_ns the rest;
// bandwidth and IOPS samples over simulated time. What the model has no
// figure for (CPU use, faults, disk_util) is 0 or empty; docs/outputs.md
// says which. Nothing in it depends on the wall clock: the same
// configuration and seed give the same file.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "vp/core/Units.hpp"

namespace vp::host {

class Workload;

class FioJsonReport {
 public:
  // `job_file`: the fio job file the run read (workload.fio), for its
  // [global] options; `run_end`: the simulated time the run ended.
  FioJsonReport(const Workload& wl, const std::string& job_file, Tick run_end);
  const nlohmann::ordered_json& json() const { return root_; }
  // Written whole or not at all (AtomicFile).
  void write(const std::string& path) const;

 private:
  nlohmann::ordered_json root_;
};

}  // namespace vp::host
