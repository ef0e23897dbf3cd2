// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/FioLogWriter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "vp/core/AtomicFile.hpp"
#include "vp/host/workload/Workload.hpp"

namespace vp::host {

namespace {

constexpr Tick kMs = 1000000000;

uint64_t ns(Tick ps) { return (ps + 500) / 1000; }

// One line of a log, as fio's io_sample holds it.
struct Row {
  uint64_t ms, value, value1;
  uint8_t ddir;
  uint64_t bs, offset, issue_ns;
  bool own_prio;  // a line of one I/O shows its priority; a window's shows 0
};

// fio's add_log_sample with log_avg_msec: a direction's window closes at
// the first sample at least `window` ms after the last close, on a line
// at that sample's time holding the window's average (rounded) or
// maximum; at the job's end (`end_ms`) what is left of each direction's
// window makes one more line (finalize_logs), so the last window may be
// short. `rows` are in time order.
std::vector<Row> windowed(const std::vector<Row>& rows, uint64_t window, uint64_t end_ms, unsigned mode) {
  std::vector<Row> out;
  FioJobStats::Moments win[3];
  uint64_t last[3] = {0, 0, 0};
  auto close = [&](int d, uint64_t at) {
    const FioJobStats::Moments& m = win[d];
    uint64_t avg = static_cast<uint64_t>(m.mean + 0.5), max = static_cast<uint64_t>(m.max);
    out.push_back({at, mode == 1 ? max : avg, mode == 2 ? max : 0, uint8_t(d), 0, 0, 0, false});
    win[d] = {};
  };
  for (const Row& r : rows) {
    const int d = r.ddir;
    win[d].add(double(r.value));
    if (r.ms < last[d] || r.ms - last[d] < window) continue;
    close(d, r.ms);
    last[d] = r.ms - r.ms % window;
  }
  for (int d = 0; d < 3; ++d)
    if (win[d].n) close(d, end_ms);
  return out;
}

}  // namespace

void FioLogWriter::write(const std::string& dir, const Workload& wl) {
  // Per file, in job order: with per_job_logs=0 jobs of one prefix share a file.
  std::map<std::string, std::string> files;
  std::vector<std::string> order;
  const auto& runners = wl.runners();
  for (size_t i = 0; i < runners.size(); ++i) {
    const FioJobRunner& r = *runners[i];
    const FioJob& spec = r.spec();
    if (!spec.lat_log && !spec.bw_log && !spec.iops_log) continue;
    const FioJobStats& st = r.fio_stats();
    const Tick epoch = st.epoch(), end = std::max(r.result().ended, epoch);
    const uint64_t end_ms = (end - epoch) / kMs;
    auto ms = [&](Tick t) { return t > epoch ? (t - epoch) / kMs : 0; };
    // fio's priority column: 1 for the realtime class, else 0; log_prio: the
    // ioprio value, class in the top 3 of 16 bits, level below.
    const std::string prio = spec.log_prio
                                 ? fmt::format("0x{:04x}", spec.prioclass ? spec.prioclass << 13 | spec.prio : 0u)
                                 : spec.prioclass == 1 ? "1" : "0";
    const std::string no_prio = spec.log_prio ? "0x0000" : "0";
    auto emit = [&](const std::optional<std::string>& prefix, const char* type, const std::vector<Row>& rows) {
      std::string name = fmt::format("{}_{}{}.log", prefix->empty() ? spec.name : *prefix, type,
                                     spec.per_job_logs ? fmt::format(".{}", i + 1) : "");
      if (!files.count(name)) order.push_back(name);
      std::string& text = files[name];
      for (const Row& x : rows) {
        text += fmt::format("{}, {}", x.ms, x.value);
        if (spec.log_window == 2) text += fmt::format(", {}", x.value1);
        text += fmt::format(", {}, {}", int(x.ddir), x.bs);
        if (spec.log_offset) text += fmt::format(", {}", x.offset);
        text += ", " + (x.own_prio ? prio : no_prio);
        if (spec.log_issue_time) text += fmt::format(", {}", x.issue_ns);
        text += '\n';
      }
    };
    // Latency-type logs: every I/O, or its windows.
    auto per_io = [&](const std::vector<Row>& rows) {
      return spec.log_avg_msec ? windowed(rows, spec.log_avg_msec, end_ms, spec.log_window) : rows;
    };
    const auto& ios = st.ios();
    if (spec.lat_log) {
      std::vector<Row> lat, clat, slat;
      for (const FioJobStats::Io& io : ios) {
        const Tick done = io.issued + io.lat, queued = io.issued + io.slat;
        // fio's issue time: when the submission returned, ns from the epoch.
        const uint64_t issue = queued > epoch ? ns(queued - epoch) : 0;
        lat.push_back({ms(done), ns(io.lat), 0, io.ddir, io.bytes, io.offset, 0, true});
        clat.push_back({ms(done), ns(io.lat - io.slat), 0, io.ddir, io.bytes, io.offset, issue, true});
        // fio logs slat as the I/O is submitted; a synchronous engine's has none.
        if (!st.sync_engine()) slat.push_back({ms(queued), ns(io.slat), 0, io.ddir, io.bytes, io.offset, issue, true});
      }
      std::stable_sort(slat.begin(), slat.end(), [](const Row& a, const Row& b) { return a.ms < b.ms; });
      emit(spec.lat_log, "lat", per_io(lat));
      emit(spec.lat_log, "slat", per_io(slat));
      emit(spec.lat_log, "clat", per_io(clat));
    }
    // Bandwidth and IOPS: every I/O (its size over its clat, or 1), or the
    // job's samples of each interval, which are also fio.json's.
    auto rates = [&](const FioJobStats::Sampler& s, bool bw) {
      std::vector<Row> rows;
      if (!s.interval) {
        for (const FioJobStats::Io& io : ios) {
          const uint64_t clat = ns(io.lat - io.slat);
          rows.push_back({ms(io.issued + io.lat), bw ? (clat ? uint64_t(io.bytes) * 1000000 / clat : 0) : 1, 0,
                          io.ddir, io.bytes, io.offset, 0, true});
        }
      } else {
        for (const FioJobStats::Rate& x : s.rates)
          rows.push_back({x.at_ms, x.value, spec.log_window == 2 ? x.value : 0, x.ddir, 0, 0, 0, false});
      }
      return rows;
    };
    if (spec.bw_log) emit(spec.bw_log, "bw", rates(st.bw(end), true));
    if (spec.iops_log) emit(spec.iops_log, "iops", rates(st.iops(end), false));
  }
  namespace fs = std::filesystem;
  for (const std::string& name : order) {
    fs::path p = fs::path(dir) / name;  // the job parser let no name leave the run folder
    std::error_code ec;
    if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
    if (ec) throw OutputError(fmt::format("cannot write {}: {}", p.string(), ec.message()));
    AtomicFile::write(p.string(), [&](std::ostream& f) { f << files[name]; });
  }
}

}  // namespace vp::host
