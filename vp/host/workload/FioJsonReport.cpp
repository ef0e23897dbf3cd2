// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/FioJsonReport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>

#include "vp/core/AtomicFile.hpp"
#include "vp/core/BuildInfo.hpp"
#include "vp/host/workload/Workload.hpp"

namespace vp::host {

namespace {

using ojson = nlohmann::ordered_json;
constexpr Tick kMs = 1000000000, kS = 1000000000000;

uint64_t ns(double ps) { return static_cast<uint64_t>(std::llround(ps / 1000.0)); }

// fio's default percentile_list.
const std::vector<double> kFioPercentiles = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

// fio's add_ddir_lat_json over every sample (ps), in ns: min, max, mean,
// sample stddev, N, and the percentiles exact (nearest rank) rather than
// from fio's histogram bins, keyed as fio keys them ("99.000000").
ojson lat_json(const Distribution& d, const std::vector<double>& pcts) {
  ojson o;
  const size_t n = d.count();
  double mean = d.mean(), s = 0;
  for (uint64_t v : d.samples()) s += (double(v) - mean) * (double(v) - mean);
  o["min"] = n ? ns(double(d.min())) : 0;
  o["max"] = n ? ns(double(d.max())) : 0;
  o["mean"] = mean / 1000.0;
  o["stddev"] = n > 1 ? std::sqrt(s / double(n - 1)) / 1000.0 : 0.0;
  o["N"] = n;
  if (n) {
    ojson p = ojson::object();
    for (double q : pcts) p[fmt::format("{:.6f}", q)] = ns(double(d.percentile(q / 100.0)));
    o["percentile"] = p;
  }
  return o;
}

// slat: min, max, mean and stddev only (fio's slat_percentiles is off by default).
ojson moments_json(const FioJobStats::Moments& m) {
  ojson o;
  o["min"] = m.n ? ns(m.min) : 0;
  o["max"] = m.n ? ns(m.max) : 0;
  o["mean"] = m.mean / 1000.0;
  o["stddev"] = m.stddev() / 1000.0;
  o["N"] = m.n;
  return o;
}

// One direction's figures, as add_ddir_status_json lays them out.
struct Dir {
  uint64_t bytes = 0, ios = 0;
  Tick dur = 0;  // the job's run, epoch to its last completion
  const Distribution *clat = nullptr, *lat = nullptr;
  FioJobStats::Moments slat, bw, iops;
  uint64_t agg = 0;  // the group's aggregate bandwidth, B/s (fio's rs->agg)
};

ojson dir_json(const Dir& d, const std::vector<double>& pcts) {
  static const Distribution none;
  ojson o;
  // fio's runtime counts, in whole ms rounded up, only for a direction that
  // moved bytes; bw and iops here divide by the exact simulated time (a
  // short simulated run would be far off over whole ms).
  const bool moved = d.bytes && d.dur;
  const uint64_t bw_bytes = moved ? static_cast<uint64_t>((unsigned __int128)d.bytes * kS / d.dur) : 0;
  o["io_bytes"] = d.bytes;
  o["io_kbytes"] = d.bytes >> 10;
  o["bw_bytes"] = bw_bytes;
  o["bw"] = bw_bytes / 1024;
  o["iops"] = moved ? double(d.ios) * 1e12 / double(d.dur) : 0.0;
  o["runtime"] = moved ? (d.dur + kMs - 1) / kMs : 0;
  o["total_ios"] = d.ios;
  o["short_ios"] = 0;
  o["drop_ios"] = 0;
  o["slat_ns"] = moments_json(d.slat);
  o["clat_ns"] = lat_json(d.clat ? *d.clat : none, pcts);
  o["lat_ns"] = lat_json(d.lat ? *d.lat : none, pcts);
  const bool bw = d.bw.n > 0;
  double agg = 0.0;  // fio's convert_agg_kbytes_percent, on the mean cut to a whole number
  if (bw) agg = d.agg > 1024 ? std::min(100.0, double(int64_t(d.bw.mean)) * 100.0 / (double(d.agg) / 1024.0)) : 100.0;
  o["bw_min"] = bw ? uint64_t(d.bw.min) : 0;
  o["bw_max"] = bw ? uint64_t(d.bw.max) : 0;
  o["bw_agg"] = agg;
  o["bw_mean"] = bw ? d.bw.mean : 0.0;
  o["bw_dev"] = bw ? d.bw.stddev() : 0.0;
  o["bw_samples"] = d.bw.n;
  const bool io = d.iops.n > 0;
  o["iops_min"] = io ? uint64_t(d.iops.min) : 0;
  o["iops_max"] = io ? uint64_t(d.iops.max) : 0;
  o["iops_mean"] = io ? d.iops.mean : 0.0;
  o["iops_stddev"] = io ? d.iops.stddev() : 0.0;
  o["iops_samples"] = d.iops.n;
  return o;
}

// fio's stat_calc_dist: percentages of `total`, a non-empty bucket at least 0.1.
ojson dist_json(const std::array<uint64_t, 7>& map, const std::array<const char*, 7>& keys) {
  uint64_t total = 0;
  for (uint64_t v : map) total += v;
  ojson o;
  for (size_t i = 0; i < 7; ++i) {
    double p = total ? double(map[i]) * 100.0 / double(total) : 0.0;
    o[keys[i]] = p < 0.1 && map[i] ? 0.1 : p;
  }
  return o;
}

// fio's io_u_mark_latency buckets of clat: ns, us, ms, as percentages of
// every I/O (fio's stat_calc_lat: a non-empty bucket at least 0.01).
void latency_buckets(ojson& job, const Distribution* clat[3]) {
  static const uint64_t kLim[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
  std::array<uint64_t, 10> n{}, u{};
  std::array<uint64_t, 12> m{};
  uint64_t total = 0;
  auto bucket = [](uint64_t v, size_t limits) {
    size_t i = 0;
    while (i < limits && v >= kLim[i]) ++i;
    return i;
  };
  for (int d = 0; d < 3; ++d)
    for (uint64_t ps : clat[d]->samples()) {
      ++total;
      uint64_t v = ns(double(ps));
      if (v < 1000)
        ++n[bucket(v, 10)];
      else if (v < 1000000)
        ++u[bucket(v / 1000, 10)];
      else
        ++m[bucket(v / 1000000, 11)];
    }
  auto pct = [&](uint64_t c) {
    double p = total ? double(c) * 100.0 / double(total) : 0.0;
    return p < 0.01 && c ? 0.01 : p;
  };
  static const char* const kKeys[] = {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"};
  ojson jn, ju, jm;
  for (size_t i = 0; i < 10; ++i) jn[kKeys[i]] = pct(n[i]);
  for (size_t i = 0; i < 10; ++i) ju[kKeys[i]] = pct(u[i]);
  for (size_t i = 0; i < 12; ++i) jm[kKeys[i]] = pct(m[i]);
  job["latency_ns"] = jn;
  job["latency_us"] = ju;
  job["latency_ms"] = jm;
}

// "file:12" -> 12; 0 without a line (an option given by --set).
size_t line_of(const std::string& at) {
  size_t c = at.rfind(':');
  if (c == std::string::npos || c + 1 == at.size()) return 0;
  size_t n = 0;
  for (size_t i = c + 1; i < at.size(); ++i) {
    if (at[i] < '0' || at[i] > '9') return 0;
    n = n * 10 + size_t(at[i] - '0');
  }
  return n;
}

// The options the job's own section sets, as written (fio's "job options":
// a [global]'s are in "global options"). A job kept with every option
// written out (config.yaml's form of a --job file's jobs) would list them
// all, so those at FlashVP's default are left out.
ojson job_options(const FioJob& j, const std::vector<std::pair<std::string, std::string>>& globals) {
  static const std::map<std::string, std::string> defaults = [] {
    std::map<std::string, std::string> m;
    std::istringstream in(FioJob{}.to_fio());
    for (std::string l; std::getline(in, l);)
      if (size_t eq = l.find('='); eq != std::string::npos) m[l.substr(0, eq)] = l.substr(eq + 1);
    return m;
  }();
  const size_t header = line_of(j.origin);
  ojson o = ojson::object();
  for (const auto& [k, w] : j.where) {
    const size_t line = line_of(w.at);
    if (line && line < header) continue;  // from a [global] before the job's section
    if (auto d = defaults.find(k); d != defaults.end() && d->second == w.value) continue;
    o[k] = w.value;
  }
  for (const auto& [k, v] : j.accepted)
    if (std::find(globals.begin(), globals.end(), std::pair{k, v}) == globals.end()) o[k] = v;
  return o;
}

}  // namespace

FioJsonReport::FioJsonReport(const Workload& wl, const std::string& job_file, Tick run_end) {
  const auto globals = fio_global_options(job_file);
  const auto& runners = wl.runners();
  // fio's group aggregate per direction: the group's bytes over its longest runtime (whole ms).
  std::map<unsigned, std::array<uint64_t, 3>> bytes, longest;
  for (const auto& r : runners) {
    const JobResult& res = r->result();
    const Tick dur = res.ended > res.started ? res.ended - res.started : 0;
    for (unsigned d = 0; d < 3; ++d) {
      uint64_t b = res.bytes(d);
      bytes[r->group_id][d] += b;
      if (b) longest[r->group_id][d] = std::max<uint64_t>(longest[r->group_id][d], (dur + kMs - 1) / kMs);
    }
  }
  root_["fio version"] = fmt::format("flashvp-{}", build_revision());
  // fio's wall-clock stamps would make two runs of one configuration differ:
  // FlashVP's runs start at the epoch (simulated time 0).
  root_["timestamp"] = 0;
  root_["timestamp_ms"] = 0;
  root_["time"] = "Thu Jan  1 00:00:00 1970";
  ojson g = ojson::object();
  for (const auto& [k, v] : globals) g[k] = v;
  root_["global options"] = g;
  ojson jobs = ojson::array();
  for (const auto& r : runners) {
    const FioJob& spec = r->spec();
    const JobResult& res = r->result();
    const FioJobStats& st = r->fio_stats();
    const std::vector<double>& pcts = spec.percentile_list.empty() ? kFioPercentiles : spec.percentile_list;
    const Tick dur = res.ended > res.started ? res.ended - res.started : 0;
    const FioJobStats::Sampler bw = st.bw(res.ended), iops = st.iops(res.ended);
    ojson j;
    j["jobname"] = spec.name;
    j["groupid"] = r->group_id;
    j["job_start"] = (res.started - std::min(res.started, Tick(spec.ramp_ps))) / kMs;  // ms of simulated time
    j["error"] = res.errors ? 5 : 0;  // EIO, as fio's td->error after a failed I/O
    j["eta"] = 0;
    j["elapsed"] = (run_end + kS - 1) / kS;
    j["job options"] = job_options(spec, globals);
    for (unsigned d = 0; d < 3; ++d) {
      Dir x;
      x.bytes = res.bytes(d);
      x.ios = res.ios(d);
      x.dur = dur;
      x.clat = &st.clat(d);
      x.lat = &res.lat(d);
      x.slat = st.slat(d);
      x.bw = bw.stat[d];
      x.iops = iops.stat[d];
      const auto& run = longest[r->group_id];
      x.agg = run[d] ? bytes[r->group_id][d] * 1000 / run[d] : 0;
      static const char* const kDir[] = {"read", "write", "trim"};
      j[kDir[d]] = dir_json(x, pcts);
    }
    ojson sync;
    sync["total_ios"] = res.fsyncs;
    sync["lat_ns"] = lat_json(st.sync_lat(), pcts);
    j["sync"] = sync;
    j["job_runtime"] = dur / kMs;
    // No per-job CPU account (host.cpu is per core), context switch or fault count.
    j["usr_cpu"] = 0.0;
    j["sys_cpu"] = 0.0;
    j["ctx"] = 0;
    j["majf"] = 0;
    j["minf"] = 0;
    j["iodepth_level"] = dist_json(st.depth_map(), {"1", "2", "4", "8", "16", "32", ">=64"});
    j["iodepth_submit"] = dist_json(st.submit_map(), {"0", "4", "8", "16", "32", "64", ">=64"});
    j["iodepth_complete"] = dist_json(st.complete_map(), {"0", "4", "8", "16", "32", "64", ">=64"});
    const Distribution* clat[3] = {&st.clat(0), &st.clat(1), &st.clat(2)};
    latency_buckets(j, clat);
    // fio without latency_target: the job's depth, no target, the whole window.
    j["latency_depth"] = spec.depth();
    j["latency_target"] = 0;
    j["latency_target_ns"] = 0;
    j["latency_percentile"] = 100.0;
    j["latency_window"] = 0;
    j["latency_window_us"] = 0;
    if (auto d = spec.where.find("description"); d != spec.where.end() && !d->second.value.empty())
      j["desc"] = d->second.value;
    jobs.push_back(std::move(j));
  }
  root_["jobs"] = std::move(jobs);
  // fio's disk_util reads the host kernel's counters of the disks it used;
  // the simulated drives' figures are in summary.json's drives.
  root_["disk_util"] = ojson::array();
}

void FioJsonReport::write(const std::string& path) const {
  AtomicFile::write(path, [&](std::ostream& f) {
    f << root_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  });
}

}  // namespace vp::host
