// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/FioJobStats.hpp"

#include <algorithm>

#include "vp/host/workload/FioJob.hpp"

namespace vp::host {

namespace {

constexpr Tick kMs = 1000000000;  // ps

// fio's __io_u_mark_map: I/Os per submission or reap, 0, 1-4, 5-8, ... >64.
size_t batch_bucket(uint64_t n) {
  if (n == 0) return 0;
  if (n <= 4) return 1;
  if (n <= 8) return 2;
  if (n <= 16) return 3;
  if (n <= 32) return 4;
  return n <= 64 ? 5 : 6;
}

// fio's io_u_mark_depth: the depth once the I/O is in, 1, 2-3, 4-7, ... >=64.
size_t depth_bucket(unsigned d) {
  size_t i = 0;
  for (unsigned lim = 2; i < 6 && d >= lim; lim <<= 1) ++i;
  return i;
}

uint64_t ns(Tick ps) { return (ps + 500) / 1000; }

}  // namespace

void FioJobStats::Moments::add(double v) {
  if (n == 0 || v < min) min = v;
  if (n == 0 || v > max) max = v;
  double d = v - mean;
  mean += d / double(n + 1);
  s += d * (v - mean);
  ++n;
}

void FioJobStats::Sampler::advance(Tick now) {
  if (!interval || now < epoch) return;
  uint64_t k = (now - epoch) / interval;
  if (k <= closed) return;
  // The open interval ends; those after it up to `now` saw nothing (no sample).
  const uint64_t ms = interval / kMs;
  for (int d = 0; d < 3; ++d) {
    if (!open[d]) continue;
    uint64_t rate = kib ? open[d] * 1000 / ms / 1024 : open[d] * 1000 / ms;  // fio's integer arithmetic
    stat[d].add(double(rate));
    if (keep) rates.push_back({(closed + 1) * ms, rate, uint8_t(d)});
    open[d] = 0;
  }
  closed = k;
}

FioJobStats::Sampler FioJobStats::Sampler::ended(Tick end) const {
  Sampler s = *this;
  if (!interval || end <= epoch) return s;
  s.advance(end);
  // fio samples an interval once it is no more than LOG_MSEC_SLACK (1 ms)
  // short of whole; the job's last, partial one too if it is that long.
  const Tick spent = end - (epoch + s.closed * interval);
  if (!spent || (spent < interval && interval - spent > kMs)) return s;
  for (int d = 0; d < 3; ++d) {
    if (!s.open[d]) continue;
    auto rate = static_cast<uint64_t>((unsigned __int128)s.open[d] * 1000000000000ull / spent / (kib ? 1024 : 1));
    s.stat[d].add(double(rate));
    if (s.keep) s.rates.push_back({(end - epoch) / kMs, rate, uint8_t(d)});
    s.open[d] = 0;
  }
  return s;
}

void FioJobStats::Batches::add(Tick now) {
  if (n && now == at) {
    ++n;
    return;
  }
  if (n) ++map[batch_bucket(n)];
  at = now;
  n = 1;
}

std::array<uint64_t, 7> FioJobStats::Batches::with_open() const {
  std::array<uint64_t, 7> m = map;
  if (n) ++m[batch_bucket(n)];
  return m;
}

std::array<uint64_t, 7> FioJobStats::submit_map() const { return submits_.with_open(); }
std::array<uint64_t, 7> FioJobStats::complete_map() const { return reaps_.with_open(); }

void FioJobStats::start(const FioJob& spec, Tick epoch) {
  epoch_ = epoch;
  sync_engine_ = spec.sync_engine();
  // fio: a bandwidth or IOPS log of every I/O (log_avg_msec=0) also makes
  // the job's samples per I/O; a windowed one samples every log_avg_msec
  // unless bwavgtime / iopsavgtime say otherwise.
  auto setup = [&](Sampler& s, bool log, const std::optional<unsigned>& avgtime, bool kib) {
    const bool per_io = log && !spec.log_avg_msec;
    s.interval = per_io ? 0 : Tick(avgtime ? *avgtime : log ? spec.log_avg_msec : 500) * kMs;
    s.epoch = epoch;
    s.kib = kib;
    s.keep = log && !per_io;
    return per_io;
  };
  const bool bw_per_io = setup(bw_, bool(spec.bw_log), spec.bwavgtime, true);
  const bool iops_per_io = setup(iops_, bool(spec.iops_log), spec.iopsavgtime, false);
  keep_ios_ = spec.lat_log || bw_per_io || iops_per_io;
}

void FioJobStats::issued(Tick now, unsigned inflight) {
  if (now < epoch_) return;  // fio's statistics start after ramp_time
  ++depth_[depth_bucket(inflight)];
  submits_.add(now);
}

void FioJobStats::completed(Tick now, unsigned ddir, uint32_t bytes, uint64_t offset, Tick lat, Tick host_submit) {
  // fio's clat runs from the submission's return (a synchronous engine's
  // from the call: no slat, clat is the whole latency).
  const Tick slat = sync_engine_ ? 0 : std::min(host_submit, lat);
  const Tick clat = lat - slat;
  clat_[ddir].add(clat);
  if (!sync_engine_) slat_[ddir].add(double(slat));
  reaps_.add(now);
  bw_.advance(now);
  iops_.advance(now);
  if (bw_.interval)
    bw_.add(ddir, bytes);
  else  // fio's add_bw_sample: the I/O's size over its clat
    bw_.stat[ddir].add(ns(clat) ? double(uint64_t(bytes) * 1000000 / ns(clat)) : 0.0);
  if (iops_.interval)
    iops_.add(ddir, 1);
  else
    iops_.stat[ddir].add(1);
  if (keep_ios_) ios_.push_back({now - lat, slat, lat, offset, bytes, uint8_t(ddir)});
}

}  // namespace vp::host
