// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// fio's per-job logs (write_lat_log, write_bw_log, write_iops_log) in fio's
// format ("Log File Formats" in fio's HOWTO): one line per I/O, or with
// log_avg_msec per window and direction, "time (ms), value, direction,
// block size[, offset], priority[, issue time]", with log_window_value=both
// a second value. Times are ms of simulated time since the job's results
// start; latencies ns, bandwidth KiB/s, IOPS. Files are named as fio's:
// PREFIX_lat.N.log, _clat, _slat, _bw, _iops (N: the job's number among
// all jobs from 1, left out with per_job_logs=0), in the run folder, each
// written whole or not at all (AtomicFile).
#include <string>

namespace vp::host {

class Workload;

class FioLogWriter {
 public:
  // Every log the jobs of `wl` asked for, into the run folder `dir`.
  static void write(const std::string& dir, const Workload& wl);
};

}  // namespace vp::host
