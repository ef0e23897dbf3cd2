// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The run's workload: fio jobs (from the preset or --job files), expanded by
// numjobs (and an online job's workers), placed on cores (cpus_allowed, else
// the least loaded) and run in groups separated by stonewall. It tells cores
// when a group starts and the platform when everything is done.
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/Services.hpp"
#include "vp/host/FioJob.hpp"
#include "vp/host/FioJobRunner.hpp"
#include "vp/host/HostMemoryAllocator.hpp"
#include "vp/host/VerifyTracker.hpp"

namespace vp::host {

class HostBlockDriver;

class Workload {
 public:
  static void declare_params(ParamRegistry& reg);
  // Checks jobs against the configuration (block size vs LBA size,
  // region vs capacity, cpus vs cores); throws ConfigError naming the job.
  // Returns notes for the user (what fio would warn about).
  static std::vector<std::string> check(const std::vector<FioJob>& jobs, const Config& cfg, uint64_t capacity_bytes);
  static std::vector<FioJob> jobs_from(const Config& cfg);

  // `memory`: where the jobs' I/O buffers come from.
  Workload(Services& svc, unsigned cores, HostMemoryAllocator& memory);

  const std::vector<FioJobRunner*>& runners_on(unsigned core) const { return per_core_[core]; }
  // Starts the first group (called once the driver is ready).
  void begin(HostBlockDriver& drv);
  // A core reports a completion; may start the next group or end the run.
  void job_progress(HostBlockDriver& drv);
  const sc_core::sc_event& group_started() const { return group_ev_; }
  bool finished() const { return finished_; }
  // Some job does buffered I/O (direct=0): the page cache is needed.
  bool buffered() const;
  const std::vector<std::unique_ptr<FioJobRunner>>& runners() const { return runners_; }
  const VerifyTracker* verify() const { return verify_.get(); }
  VerifyTracker* verify() { return verify_.get(); }

 private:
  void start_group(size_t g, HostBlockDriver& drv);
  std::vector<std::vector<FioJobRunner*>> groups_;
  std::vector<std::unique_ptr<FioJobRunner>> runners_;
  std::vector<std::vector<FioJobRunner*>> per_core_;
  HostMemoryAllocator& memory_;
  std::unique_ptr<VerifyTracker> verify_;
  size_t group_ = 0;
  bool finished_ = false;
  sc_core::sc_event group_ev_;
};

}  // namespace vp::host
