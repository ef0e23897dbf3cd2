// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What fio's report (fio.json) and logs need of one job beyond summary.json's
// figures, kept as the job's I/Os are issued and complete: completion and
// submission latency (fio's clat and slat; lat is the job's own per-I/O
// latency), the bandwidth and IOPS samples fio's helper thread takes every
// bwavgtime / iopsavgtime (here over simulated time, worked out from the
// completion times as they arrive, with no event of their own), the depth
// and batch histograms, the fsyncs' latency, and for the logs every I/O.
//
// Times count from the epoch, where the job's results start (after
// ramp_time), as fio's do. Nothing here feeds back into the simulation.
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "vp/core/Distribution.hpp"
#include "vp/core/Units.hpp"

namespace vp::host {

struct FioJob;

class FioJobStats {
 public:
  // fio's io_stat: running min, max, mean and squared deviations (Welford);
  // stddev as fio's calc_lat gives it (sample, n - 1).
  struct Moments {
    uint64_t n = 0;
    double min = 0, max = 0, mean = 0, s = 0;
    void add(double v);
    double stddev() const { return n > 1 ? std::sqrt(s / double(n - 1)) : 0.0; }
  };
  // One I/O, for the logs (kept only when the job writes a latency log, or
  // a bandwidth or IOPS log of every I/O).
  struct Io {
    Tick issued, slat, lat;  // slat: 0 for a synchronous engine (fio records none)
    uint64_t offset;         // bytes on its device
    uint32_t bytes;
    uint8_t ddir;  // fio's direction: 0 read, 1 write, 2 trim
  };
  // A bandwidth (KiB/s) or IOPS sample of one interval, as fio's
  // __add_samples takes it: at (ms from the epoch) its end.
  struct Rate {
    uint64_t at_ms, value;
    uint8_t ddir;
  };
  // fio's bandwidth or IOPS sampling over simulated time: every `interval`
  // from the epoch, the bytes (or I/Os) each direction completed in it; an
  // interval without any is no sample. interval 0: one sample per I/O
  // (fio's per-I/O log mode).
  struct Sampler {
    Tick interval = 0, epoch = 0;
    bool kib = false;        // bandwidth (KiB/s) rather than IOPS
    bool keep = false;       // the rates are also kept for a log
    uint64_t closed = 0;     // intervals ended
    uint64_t open[3] = {0, 0, 0};
    Moments stat[3];
    std::vector<Rate> rates;
    void advance(Tick now);  // ends the intervals that ended by `now`
    void add(unsigned ddir, uint64_t amount) { open[ddir] += amount; }
    // With the partial interval that ends at `end` sampled when fio would
    // (no more than its slack of 1 ms short of a whole interval).
    Sampler ended(Tick end) const;
  };

  // At the job's start: what it logs, its engine, and its epoch.
  void start(const FioJob& spec, Tick epoch);
  Tick epoch() const { return epoch_; }
  // An I/O issued (counted from the epoch on) with `inflight` then in flight.
  void issued(Tick now, unsigned inflight);
  // A counted I/O completed `lat` after its issue, `host_submit` of it
  // spent getting to blk-mq (fio's slat for an asynchronous engine).
  void completed(Tick now, unsigned ddir, uint32_t bytes, uint64_t offset, Tick lat, Tick host_submit);
  void sync_started(Tick now) { sync_from_ = now; }
  void synced(Tick now) { sync_lat_.add(now - sync_from_); }

  const Distribution& clat(unsigned ddir) const { return clat_[ddir]; }
  const Moments& slat(unsigned ddir) const { return slat_[ddir]; }
  const Distribution& sync_lat() const { return sync_lat_; }
  // fio's seven buckets: I/Os by depth at issue, and submissions and
  // reaps by how many I/Os each took (those of one simulated instant are one).
  std::array<uint64_t, 7> depth_map() const { return depth_; }
  std::array<uint64_t, 7> submit_map() const;
  std::array<uint64_t, 7> complete_map() const;
  // The bandwidth and IOPS samples up to the job's `end`.
  Sampler bw(Tick end) const { return bw_.ended(end); }
  Sampler iops(Tick end) const { return iops_.ended(end); }
  const std::vector<Io>& ios() const { return ios_; }
  bool sync_engine() const { return sync_engine_; }

 private:
  struct Batches {  // I/Os of one instant
    Tick at = 0;
    uint64_t n = 0;
    std::array<uint64_t, 7> map{};
    void add(Tick now);
    std::array<uint64_t, 7> with_open() const;
  };
  Tick epoch_ = 0, sync_from_ = 0;
  bool sync_engine_ = false, keep_ios_ = false;
  Distribution clat_[3], sync_lat_;
  Moments slat_[3];
  std::array<uint64_t, 7> depth_{};
  Batches submits_, reaps_;
  Sampler bw_, iops_;
  std::vector<Io> ios_;
};

}  // namespace vp::host
