// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Workload jobs written in fio's job-file syntax (the subset the host model
// implements). Parsing only: numjobs expansion, device-relative sizes and
// checks against the platform are the caller's business.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vp/host/workload/BlockTrace.hpp"
#include "vp/host/workload/RandomDistribution.hpp"

namespace vp::host {

// fio's trim modes issue discards (BLKDISCARD, an NVMe Dataset Management
// deallocate); trimwrite trims a block, then writes it.
enum class RwMode { Read, Write, RandRead, RandWrite, RandRW, SeqRW, Trim, RandTrim, TrimWrite, RandTrimWrite };

struct FioJob {
  std::string name;
  // Where the job and each option set for it were read ("jobs.fio:12") and
  // the option's text, so checks made after parsing name file and line;
  // options left at their defaults have no entry. Not part of ==.
  struct Where {
    std::string at, value;
  };
  std::string origin;
  std::map<std::string, Where> where;
  // "jobs.fio:12: job 'j': option 'bs' = '3k'" (or the job's own line for a default).
  std::string at(const std::string& option) const;
  RwMode rw = RwMode::Read;
  unsigned rwmixread = 50;  // percent reads for RandRW / SeqRW
  // Block size: bs alone, or a size from bs up to bs_max (bsrange, bs=a-b),
  // or one of bssplit's sizes by its share of the I/Os. bs is the smallest,
  // the unit offsets are chosen in.
  uint64_t bs = 4096;
  uint64_t bs_max = 0;  // 0: bs alone
  struct BsShare {
    uint64_t bytes;
    unsigned percent;
    bool operator==(const BsShare& o) const { return bytes == o.bytes && percent == o.percent; }
  };
  std::vector<BsShare> bssplit;  // shares add up to 100
  bool fixed_bs() const { return bssplit.empty() && (!bs_max || bs_max == bs); }
  uint64_t max_bs() const;
  // rw=<mode>:N: a sequential job skips N bytes after each I/O; a random one
  // issues N I/Os per random offset, the others following on from it
  // (rw_sequencer=sequential) or at the same offset (identical).
  int64_t rw_skip = 0;  // negative: backwards (fio wraps to the region's end)
  unsigned rw_per_offset = 1;
  bool rw_identical = false;
  unsigned iodepth = 1;
  unsigned iodepth_batch_submit = 1;  // I/Os submitted per io_submit call (0: iodepth)
  // I/Os per submission as fio takes it: 0 is iodepth, and never above it.
  unsigned submit_batch() const {
    return std::max(1u, std::min(depth(), iodepth_batch_submit ? iodepth_batch_submit : depth()));
  }
  unsigned workload_attr = 0;  // FlashVP: the job's FlashShare workload attribute (as chworkload_attr sets it)
  // fio's I/O priority (ioprio_set): class 0 none, 1 realtime, 2 best effort,
  // 3 idle, and the level within it (0 highest).
  unsigned prioclass = 0, prio = 4;
  // The attribute the job's I/Os carry: workload_attr if set, else a
  // realtime I/O priority class marks them latency-critical (1).
  unsigned attribute() const { return workload_attr ? workload_attr : prioclass == 1 ? 1u : 0u; }
  uint64_t size = 0;
  double size_percent = 100.0;  // size==0 => use size_percent of the device
  uint64_t offset = 0;
  double offset_percent = 0.0;  // offset==0 && offset_percent>0 => percent
  // fio's offset_increment: clone k of numjobs starts k increments further.
  uint64_t offset_increment = 0;
  double offset_increment_percent = 0.0;  // as offset_percent
  unsigned clone = 0;                     // which clone this is (set by Workload, not an option)
  // The byte offset where this clone's region starts on a device of `capacity` bytes.
  uint64_t start_offset(uint64_t capacity) const;
  uint64_t number_ios = 0;      // 0 = unlimited
  uint64_t runtime_ps = 0;      // 0 = none
  // fio's ramp_time: the job runs this long before its results start
  // (I/Os that complete before are not counted; runtime follows it).
  uint64_t ramp_ps = 0;
  uint64_t io_size = 0;  // bytes to transfer per loop (0: the region's size)
  // fio's blockalign/ba: random offsets are multiples of this (0: bs).
  uint64_t blockalign = 0;
  unsigned loops = 1;    // times the job goes over io_size (or its region)
  bool fill_device = false;  // the region runs from offset to the device's end
  bool time_based = false;
  unsigned numjobs = 1;
  std::vector<unsigned> cpus_allowed;  // sorted, unique; empty = any
  bool cpus_split = false;             // cpus_allowed_policy=split: clone k gets the k-th CPU of the set alone
  uint64_t thinktime_ps = 0;
  // fio: of each thinktime, burn this much CPU on the job's core first, then
  // sleep the rest (ignored without thinktime, as fio does).
  uint64_t thinktime_spin_ps = 0;
  // VP extension: compute of this many instructions after each I/O, spun on
  // the core at host.core.clock x host.core.ipc (set by app=).
  uint64_t thinktime_insts = 0;
  // VP extension `phases=` (FlashShare OSDI'18 Fig 19's bursts): over time
  // from the job's start, a repeating list of phases, each with an I/O
  // intensity that divides thinktime_insts (2 = twice the I/Os per
  // instruction). Empty: steady.
  struct Phase {
    uint64_t duration_ps;
    double intensity;
    bool operator==(const Phase& o) const { return duration_ps == o.duration_ps && intensity == o.intensity; }
  };
  std::vector<Phase> phases;
  // The compute after an I/O issued `since_start` after the job started.
  uint64_t insts_between_ios(uint64_t since_start_ps) const;
  std::string phases_text() const;  // as phases= spells it; "none" when steady
  unsigned percentage_random = 100;  // fio: random share of a random job's offsets; the rest continue sequentially
  // fio: where a random job's random offsets fall (uniform by default; zipf,
  // pareto, normal, zoned, zoned_abs).
  RandomDistribution random_distribution;
  std::string app;  // FlashShare Table 3 application this job was filled from (app=), empty if none
  uint64_t rate_iops = 0;  // 0 = unthrottled
  // fio's rate (bytes/s) and the floors rate_min / rate_iops_min, per
  // direction (read, write): 0 = none. A job below a floor over its run
  // ends with an error, as fio's does.
  uint64_t rate_bps[2] = {0, 0};
  uint64_t rate_min_bps[2] = {0, 0};
  uint64_t rate_iops_min[2] = {0, 0};
  bool rated() const { return rate_iops || rate_bps[0] || rate_bps[1]; }
  uint64_t randseed = 0;   // 0 = derive from the run seed
  // fio's default, direct=0: buffered, through the host page cache; true:
  // O_DIRECT, straight to blk-mq.
  bool direct = false;
  // Reads or writes through the page cache: a trim is a BLKDISCARD ioctl,
  // which fio sends whatever direct says.
  bool buffered_io() const { return !direct && (has_reads() || has_writes()); }
  // For a message refusing buffered I/O: when the job left direct at fio's
  // default (it sets neither direct nor buffered), what to add to run it
  // direct, as "; ..." to append; else empty.
  std::string direct_hint() const;
  unsigned fsync = 0;  // fsync after every this many writes (0: never)
  unsigned fdatasync = 0;  // the same on a block device (fio keeps both counts)
  bool end_fsync = false;  // fsync once the job's I/Os are done (end_fsync, fsync_on_close)
  bool sync = false;       // sync=1: O_SYNC writes (direct: FUA; buffered: each write synced)
  // Writes between two fsyncs: the smaller of fsync and fdatasync that is set (0: none).
  unsigned sync_every() const;
  // fio's iodepth_low: once the job has iodepth in flight it refills only
  // when as few as this are left (0: iodepth, i.e. at once).
  unsigned iodepth_low = 0;
  // iodepth_batch_complete_min: completions the job waits for before it
  // reaps (and refills); 0 or 1: each one.
  unsigned iodepth_batch_complete_min = 1;
  unsigned iodepth_batch_complete_max = 0;  // accepted: the model reaps all that are there
  uint64_t offset_align = 0;  // the region's start is rounded up to this (0: bs)
  unsigned thinktime_blocks = 1;  // thinktime after every this many I/Os
  // Reporting: the percentiles listed (fio's percentile_list, in percent;
  // empty: FlashVP's set), new_group, exitall (the first job to end stops all).
  std::vector<double> percentile_list;
  // fio's logs (write_lat_log, write_bw_log, write_iops_log): the file name
  // prefix, a path relative to the run folder (empty: the job's name); unset:
  // no such log. log_avg_msec: 0 logs every I/O, else averages over windows
  // of that many ms; log_window_value: 0 avg, 1 max, 2 both.
  std::optional<std::string> lat_log, bw_log, iops_log;
  unsigned log_avg_msec = 0, log_window = 0;
  bool log_offset = false, log_prio = false, log_issue_time = false, per_job_logs = true;
  // fio's bwavgtime / iopsavgtime (ms): the bandwidth and IOPS sampling
  // intervals of fio.json; unset: 500, or log_avg_msec with that log.
  std::optional<unsigned> bwavgtime, iopsavgtime;
  bool new_group = false;
  bool exitall = false;
  // libaio / io_uring: asynchronous, up to iodepth in flight; sync, psync,
  // pvsync, pvsync2: one I/O at a time, the thread blocked in the syscall
  // (fio runs them at depth 1 whatever iodepth says).
  std::string ioengine = "libaio";
  bool sync_engine() const { return ioengine != "libaio" && ioengine != "io_uring"; }
  unsigned depth() const { return sync_engine() ? 1 : iodepth; }  // I/Os in flight at most
  bool verify = false;  // host checks read data against what it wrote
  bool hipri = false;   // fio's hipri (io_uring/pvsync2): polled completions where the driver has poll queues
  bool stonewall = false;
  uint64_t startdelay_ps = 0;
  std::string filename;
  // Block-trace replay: the trace gives each I/O's direction, offset and
  // size (rw and bs are then unused); offset/size still give the region.
  std::string read_iolog;       // empty = no replay
  bool replay_no_stall = false;  // as fast as iodepth allows instead of at trace times
  unsigned replay_time_scale = 100;  // percent speed: trace times x 100 / this
  TraceFormat replay_format = TraceFormat::Auto;
  ReplayFit replay_fit = ReplayFit::None;
  // Online server (VP extension, FlashShare OSDI'18 sec. 5.1): a client sends
  // requests at request_rate (rate_process as fio's); the job is the worker
  // that serves each with its compute, then ios_per_request I/Os.
  bool online = false;
  uint64_t request_rate = 400;  // requests/s
  bool rate_poisson = false;    // rate_process=poisson (else linear)
  unsigned ios_per_request = 1;
  std::optional<uint64_t> request_insts;  // unset: thinktime_insts x ios_per_request
  uint64_t net_delay_ps = 0;    // one way, client <-> server
  uint64_t requests = 0;        // requests to send (0: until runtime)
  // Worker threads of the server, sharing its one client and request queue
  // (0: not given, which is one).
  unsigned workers = 0;
  unsigned worker_count() const { return workers ? workers : 1; }

  bool is_random() const;
  // Mixed modes count only if their rwmixread lets that direction through.
  bool has_reads() const;
  bool has_writes() const;
  bool has_trims() const;
  bool trim_write() const { return rw == RwMode::TrimWrite || rw == RwMode::RandTrimWrite; }
  std::string rw_name() const;  // back to fio spelling
  std::string rw_rw_text() const;  // rw= as written, with its :N
  std::string to_fio() const;   // one [name] section that parses back to an equal job
  // The options given that the model accepts as they cannot change a result
  // (name and value as written), for the run's notes.
  std::vector<std::pair<std::string, std::string>> accepted;
  bool operator==(const FioJob& o) const;
  bool operator!=(const FioJob& o) const { return !(*this == o); }
};

struct FioError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `origin` is used in error messages ("jobs.fio:12: unknown option 'foo'").
// A whole number as a job file writes it (digits only), and the factor of
// a size unit in lower case ("", b, k, kb, kib, m, ...: fio's kb_base=1024;
// 0 for an unknown unit).
std::optional<uint64_t> fio_number(const std::string& s);
uint64_t fio_size_factor(const std::string& unit);

std::vector<FioJob> parse_fio(const std::string& text, const std::string& origin);
std::vector<FioJob> parse_fio_file(const std::string& path);  // error if unreadable, names the path
// The options of a job file's [global] sections as written (name, value; a
// bare flag's value is empty), in order, a repeated option at its first
// place with its last value: fio.json's "global options".
std::vector<std::pair<std::string, std::string>> fio_global_options(const std::string& text);
// One more option line for a parsed job (`--set workload.<job>.<option>=<value>`),
// as if it ended the job's section; errors name `origin`.
void set_option(FioJob& j, const std::string& key, const std::string& value, const std::string& origin);

}  // namespace vp::host
