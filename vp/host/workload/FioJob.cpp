// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/FioJob.hpp"

#include "vp/core/CpuList.hpp"
#include "vp/core/InputFile.hpp"
#include "vp/core/Quote.hpp"
#include "vp/host/workload/AppProfile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

namespace vp::host {

std::optional<uint64_t> fio_number(const std::string& s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

uint64_t fio_size_factor(const std::string& u) {
  if (u.empty() || u == "b") return 1;
  size_t p = std::string("kmgt").find(u[0]);
  if (p == std::string::npos || !(u.size() == 1 || u.substr(1) == "b" || u.substr(1) == "ib")) return 0;
  return uint64_t(1) << (10 * (p + 1));  // fio's default kb_base=1024: 4k == 4kb == 4KiB
}

namespace {

constexpr uint64_t kPsPerUs = 1000000, kPsPerS = 1000000000000;
constexpr uint64_t kPhaseCycleMax = 1000 * 86400 * kPsPerS;
constexpr unsigned kMaxCpu = 1023;  // fio's CPU mask size; also bounds list expansion

const std::pair<const char*, RwMode> kRwNames[] = {
    {"read", RwMode::Read},       {"write", RwMode::Write}, {"randread", RwMode::RandRead},
    {"randwrite", RwMode::RandWrite}, {"randrw", RwMode::RandRW}, {"rw", RwMode::SeqRW},
    {"readwrite", RwMode::SeqRW}};

// Ordered largest first so to_fio picks the coarsest exact unit. "ps" is a VP
// extension that only to_fio needs, for times not set by parsing.
const std::pair<const char*, uint64_t> kTimeUnits[] = {
    {"d", 86400 * kPsPerS}, {"h", 3600 * kPsPerS}, {"m", 60 * kPsPerS}, {"s", kPsPerS},
    {"ms", 1000000000},     {"us", kPsPerUs},      {"ns", 1000},        {"ps", 1}};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<uint64_t> to_u64(const std::string& s) { return fio_number(s); }

// One option occurrence: everything an error message must name.
struct Opt {
  const std::string& origin;
  size_t line;
  std::string key;
  std::optional<std::string> val;  // nullopt for a bare `key`

  // "jobs.fio:12", or the origin alone for an option not read from a file (line 0).
  std::string where() const { return line ? fmt::format("{}:{}", origin, line) : origin; }
  [[noreturn]] void fail(const std::string& why) const {
    throw FioError(
        fmt::format("{}: option {}: value {} {}", where(), vp::quoted(key), vp::quoted(val.value_or("")), why));
  }
  const std::string& value() const {
    if (!val) throw FioError(fmt::format("{}: option {} needs a value", where(), vp::quoted(key)));
    return *val;
  }
  uint64_t ranged(uint64_t lo, uint64_t hi) const {
    auto v = to_u64(value());
    if (!v) fail("is not a whole number");
    if (*v < lo || *v > hi) fail(fmt::format("out of range ({}..{})", lo, hi));
    return *v;
  }
  bool flag() const {
    if (!val || *val == "1") return true;
    if (*val == "0") return false;
    fail("is not a flag (bare, 0 or 1)");
  }
  // Digits followed by a unit suffix; `mult` returns the unit's factor or 0.
  template <class F>
  uint64_t with_unit(F mult, const char* allowed) const {
    const std::string& s = value();
    size_t n = s.find_first_not_of("0123456789");
    auto num = to_u64(s.substr(0, n));
    if (!num) fail(fmt::format("is not a number with an optional unit ({})", allowed));
    uint64_t m = mult(n == std::string::npos ? std::string() : lower(trim(s.substr(n))));
    if (!m) fail(fmt::format("has an unknown unit (allowed: {})", allowed));
    if (*num > UINT64_MAX / m) fail("is too large");
    return *num * m;
  }
  uint64_t bytes() const {
    return with_unit(fio_size_factor, "none, k/KiB/kb, m/MiB, g/GiB, t/TiB");
  }
  uint64_t time(uint64_t default_unit_ps) const {
    return with_unit(
        [&](const std::string& u) -> uint64_t {
          if (u.empty()) return default_unit_ps;
          for (const auto& [name, ps] : kTimeUnits)
            if (u == name) return ps;
          return 0;
        },
        "ns, us, ms, s, m, h, d");
  }
  // "N%" => percent in [lo, hi]; otherwise nullopt (caller parses bytes).
  std::optional<double> percent(double lo, double hi) const {
    const std::string& s = value();
    if (s.empty() || s.back() != '%') return std::nullopt;
    std::string num = trim(s.substr(0, s.size() - 1));
    char* end = nullptr;
    double p = std::strtod(num.c_str(), &end);
    if (num.empty() || !std::isdigit(static_cast<unsigned char>(num[0])) || *end) fail("is not a valid percentage");
    if (!(p >= lo && p <= hi)) fail(fmt::format("out of range ({}%..{}%)", lo, hi));
    return p;
  }
  // "DURATION:INTENSITY,..." (durations as fio times, default unit s) or "none".
  std::vector<FioJob::Phase> phases() const {
    std::vector<FioJob::Phase> out;
    if (value() == "none") return out;
    uint64_t cycle = 0;
    std::string rest = value();
    while (true) {
      size_t comma = rest.find(','), colon = rest.find(':');
      std::string item = trim(rest.substr(0, comma));
      if (colon >= comma || colon == std::string::npos)
        fail(fmt::format("has {} without a ':' (phases are DURATION:INTENSITY, comma-separated, or none)", vp::quoted(item)));
      colon = item.find(':');
      if (item.substr(0, colon).find('.') != std::string::npos)
        fail(fmt::format("has duration {}: durations are whole numbers with a unit (2800ms, not 2.8s)",
                         vp::quoted(trim(item.substr(0, colon)))));
      uint64_t d = Opt{origin, line, key, trim(item.substr(0, colon))}.time(kPsPerS);
      if (!d) fail(fmt::format("has a phase of zero duration in {}", vp::quoted(item)));
      std::string num = trim(item.substr(colon + 1));
      char* end = nullptr;
      double x = std::strtod(num.c_str(), &end);
      if (num.empty() || !std::isdigit(static_cast<unsigned char>(num[0])) || *end || !(x > 0 && x <= 1000))
        fail(fmt::format("has intensity {} in {}: it must be a number above 0 and at most 1000", vp::quoted(num),
                         vp::quoted(item)));
      if (out.size() == 64) fail("has more than 64 phases");
      if (d > kPhaseCycleMax - cycle) fail("has phases longer than 1000 days in all");
      cycle += d;
      out.push_back({d, x});
      if (comma == std::string::npos) break;
      rest = rest.substr(comma + 1);
    }
    return out;
  }
  std::vector<unsigned> cpu_list() const {
    auto cpus = parse_cpu_list(value(), kMaxCpu);
    if (!cpus) fail(fmt::format("is not a CPU list like 0,2,5-7 (CPUs 0..{}, ranges ascending)", kMaxCpu));
    return *cpus;
  }
};

void apply(FioJob& j, const Opt& o) {
  const std::string& k = o.key;
  j.where[k] = {o.where(), o.val.value_or("")};
  if (k == "rw" || k == "readwrite") {
    for (const auto& [name, mode] : kRwNames)
      if (o.value() == name) return void(j.rw = mode);
    o.fail("is not one of read, write, randread, randwrite, randrw, rw, readwrite");
  } else if (k == "rwmixread") {
    j.rwmixread = static_cast<unsigned>(o.ranged(0, 100));
  } else if (k == "rwmixwrite") {
    j.rwmixread = 100 - static_cast<unsigned>(o.ranged(0, 100));
  } else if (k == "bs" || k == "blocksize") {
    uint64_t v = o.bytes();
    if (v == 0 || v % 512) o.fail("must be a positive multiple of 512 bytes");
    j.bs = v;
  } else if (k == "iodepth") {
    j.iodepth = static_cast<unsigned>(o.ranged(1, 65536));
  } else if (k == "workload_attr") {
    j.workload_attr = static_cast<unsigned>(o.ranged(0, 255));
  } else if (k == "prioclass") {
    j.prioclass = static_cast<unsigned>(o.ranged(0, 3));
  } else if (k == "prio") {
    j.prio = static_cast<unsigned>(o.ranged(0, 7));
  } else if (k == "iodepth_batch_submit" || k == "iodepth_batch") {
    j.iodepth_batch_submit = std::max(1u, static_cast<unsigned>(o.ranged(0, 65536)));  // fio: 0 means 1
  } else if (k == "size") {
    // Setting one form resets the other so equal jobs compare equal.
    if (auto p = o.percent(0, 100)) {
      if (*p == 0) o.fail("must be positive (bytes, or a percentage above 0% up to 100%)");
      j.size = 0, j.size_percent = *p;
    } else {
      uint64_t v = o.bytes();
      if (v == 0) o.fail("must be positive (bytes, or a percentage above 0% up to 100%)");
      j.size = v, j.size_percent = 100.0;
    }
  } else if (k == "offset") {
    if (auto p = o.percent(0, 100)) {
      j.offset = 0, j.offset_percent = *p;
    } else {
      j.offset = o.bytes(), j.offset_percent = 0.0;
    }
  } else if (k == "offset_increment") {
    if (auto p = o.percent(0, 100)) {
      j.offset_increment = 0, j.offset_increment_percent = *p;
    } else {
      j.offset_increment = o.bytes(), j.offset_increment_percent = 0.0;
    }
  } else if (k == "number_ios") {
    j.number_ios = o.ranged(0, UINT64_MAX);
  } else if (k == "runtime") {
    j.runtime_ps = o.time(kPsPerS);
  } else if (k == "time_based") {
    j.time_based = o.flag();
  } else if (k == "numjobs") {
    j.numjobs = static_cast<unsigned>(o.ranged(1, UINT32_MAX));
  } else if (k == "cpus_allowed") {
    j.cpus_allowed = o.cpu_list();
  } else if (k == "cpus_allowed_policy") {
    if (o.value() != "shared" && o.value() != "split") o.fail("must be shared or split");
    j.cpus_split = o.value() == "split";
  } else if (k == "thinktime") {
    j.thinktime_ps = o.time(kPsPerUs);  // fio: plain thinktime is microseconds
  } else if (k == "thinktime_spin") {
    j.thinktime_spin_ps = o.time(kPsPerUs);
  } else if (k == "thinktime_insts") {
    j.thinktime_insts = o.ranged(0, UINT64_MAX);
  } else if (k == "percentage_random") {
    j.percentage_random = static_cast<unsigned>(o.ranged(0, 100));
  } else if (k == "random_distribution") {
    try {
      j.random_distribution = RandomDistribution::parse(o.value());
    } catch (const std::invalid_argument& e) {
      o.fail(e.what());
    }
  } else if (k == "app") {
    const AppProfile* a = AppProfile::find(o.value());
    if (!a) o.fail(fmt::format("is not an application of FlashShare Table 3 ({})", AppProfile::names()));
    // Options after app= (or in the job after a [global] app=) override these.
    j.app = a->name;
    j.rw = RwMode::RandRW;
    j.rwmixread = a->rwmixread();
    j.bs = a->bs();
    j.percentage_random = a->percentage_random();
    j.thinktime_insts = a->insts_per_io();
    j.phases = Opt{o.origin, o.line, "phases", std::string(a->phases)}.phases();
  } else if (k == "phases") {
    j.phases = o.phases();
  } else if (k == "rate_iops") {
    j.rate_iops = o.ranged(0, UINT64_MAX);
  } else if (k == "randseed") {
    j.randseed = o.ranged(0, UINT64_MAX);
  } else if (k == "hipri") {
    j.hipri = o.flag();
  } else if (k == "direct") {
    j.direct = o.ranged(0, 1) != 0;
  } else if (k == "fsync") {
    j.fsync = static_cast<unsigned>(o.ranged(0, UINT32_MAX));
  } else if (k == "ioengine") {
    static const char* const kEngines[] = {"libaio", "io_uring", "sync", "psync", "pvsync", "pvsync2"};
    for (const char* e : kEngines)
      if (o.value() == e) return void(j.ioengine = e);
    o.fail("is not an engine the model has: libaio, io_uring (asynchronous), sync, psync, pvsync, pvsync2 "
           "(synchronous)");
  } else if (k == "name") {
    if (o.value().empty()) o.fail("must not be empty");
    j.name = o.value();
  } else if (k == "verify") {
    const std::string& v = o.value();
    if (v == "0" || v == "none") j.verify = false;
    else if (v == "1" || v == "meta") j.verify = true;
    else o.fail("is not one of 0, none, 1, meta");
  } else if (k == "stonewall" || k == "wait_for_previous") {
    j.stonewall = o.flag();
  } else if (k == "startdelay") {
    j.startdelay_ps = o.time(kPsPerS);
  } else if (k == "filename") {
    j.filename = o.value();
  } else if (k == "read_iolog") {
    if (o.value().empty()) o.fail("must name a trace file");
    j.read_iolog = o.value();
  } else if (k == "replay_no_stall") {
    j.replay_no_stall = o.flag();
  } else if (k == "replay_time_scale") {
    j.replay_time_scale = static_cast<unsigned>(o.ranged(1, 1000000));
  } else if (k == "replay_format") {
    for (TraceFormat f : {TraceFormat::Auto, TraceFormat::Msr, TraceFormat::Blkparse, TraceFormat::Iolog})
      if (o.value() == trace_format_name(f)) return void(j.replay_format = f);
    o.fail("is not one of auto, msr, blkparse, iolog");
  } else if (k == "replay_fit") {
    for (ReplayFit f : {ReplayFit::None, ReplayFit::Scale, ReplayFit::Wrap})
      if (o.value() == replay_fit_name(f)) return void(j.replay_fit = f);
    o.fail("is not one of none, scale, wrap");
  } else if (k == "online") {
    j.online = o.flag();
  } else if (k == "request_rate") {
    j.request_rate = o.ranged(1, 1000000000);
  } else if (k == "rate_process") {
    if (o.value() == "linear") j.rate_poisson = false;
    else if (o.value() == "poisson") j.rate_poisson = true;
    else o.fail("is not one of linear, poisson");
  } else if (k == "ios_per_request") {
    j.ios_per_request = static_cast<unsigned>(o.ranged(1, 65536));
  } else if (k == "request_insts") {
    j.request_insts = o.ranged(0, UINT64_MAX);
  } else if (k == "net_delay") {
    j.net_delay_ps = o.time(kPsPerUs);  // like thinktime: plain numbers are microseconds
  } else if (k == "requests") {
    j.requests = o.ranged(0, UINT64_MAX);
  } else if (k == "workers") {
    j.workers = static_cast<unsigned>(o.ranged(1, 4096));
  } else if (k == "description") {
    o.value();  // accepted, not modelled
  } else if (k == "group_reporting") {
    o.flag();  // accepted, the VP always reports per job
  } else {
    throw FioError(fmt::format("{}: unknown option {}", o.where(), vp::quoted(k)));
  }
}

// fio only has whole-line comments, but a trailing " ; note" is a common
// habit; a ';'/'#' counts only after whitespace so values like paths survive.
std::string strip_comment(const std::string& line) {
  for (size_t i = 0; i < line.size(); ++i)
    if ((line[i] == ';' || line[i] == '#') && (i == 0 || std::isspace(static_cast<unsigned char>(line[i - 1]))))
      return line.substr(0, i);
  return line;
}

std::string fmt_time(uint64_t ps) {
  if (ps == 0) return "0";
  for (const auto& [name, unit] : kTimeUnits)
    if (ps % unit == 0) return fmt::format("{}{}", ps / unit, name);
  return {};  // unreachable: "ps" divides everything
}

std::string fmt_cpus(const std::vector<unsigned>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t e = i;
    while (e + 1 < cpus.size() && cpus[e + 1] == cpus[e] + 1) ++e;
    out += fmt::format("{}{}", out.empty() ? "" : ",", cpus[i]);
    if (e > i) out += fmt::format("-{}", cpus[e]);
    i = e + 1;
  }
  return out;
}

}  // namespace

bool FioJob::is_random() const { return rw == RwMode::RandRead || rw == RwMode::RandWrite || rw == RwMode::RandRW; }

bool FioJob::has_reads() const {
  bool mixed = rw == RwMode::RandRW || rw == RwMode::SeqRW;
  return rw == RwMode::Read || rw == RwMode::RandRead || (mixed && rwmixread > 0);
}

bool FioJob::has_writes() const {
  bool mixed = rw == RwMode::RandRW || rw == RwMode::SeqRW;
  return rw == RwMode::Write || rw == RwMode::RandWrite || (mixed && rwmixread < 100);
}

uint64_t FioJob::insts_between_ios(uint64_t since_start_ps) const {
  if (phases.empty()) return thinktime_insts;
  uint64_t cycle = 0;
  for (const Phase& p : phases) cycle += p.duration_ps;
  uint64_t t = since_start_ps % cycle;
  for (const Phase& p : phases) {
    if (t < p.duration_ps) return static_cast<uint64_t>(std::llround(double(thinktime_insts) / p.intensity));
    t -= p.duration_ps;
  }
  return thinktime_insts;  // unreachable: t < cycle
}

std::string FioJob::phases_text() const {
  if (phases.empty()) return "none";
  std::string s;
  for (const Phase& p : phases) s += fmt::format("{}{}:{}", s.empty() ? "" : ",", fmt_time(p.duration_ps), p.intensity);
  return s;
}

std::string FioJob::rw_name() const {
  for (const auto& [n, mode] : kRwNames)
    if (mode == rw) return n;
  return "read";
}

uint64_t FioJob::start_offset(uint64_t capacity) const {
  auto bytes = [capacity](uint64_t b, double pct) { return b ? b : static_cast<uint64_t>(double(capacity) * pct / 100.0); };
  return bytes(offset, offset_percent) + clone * bytes(offset_increment, offset_increment_percent);
}

std::string FioJob::to_fio() const {
  // Every value is written, so a [global] placed before the section cannot
  // change the job; only empty strings/lists (which fio cannot spell) are left out.
  std::string o = fmt::format("[{}]\n", name);
  if (!app.empty()) o += fmt::format("app={}\n", app);  // first: the values below override what it fills in
  o += fmt::format("rw={}\nrwmixread={}\nbs={}\niodepth={}\n", rw_name(), rwmixread, bs, iodepth);
  o += size ? fmt::format("size={}\n", size) : fmt::format("size={}%\n", size_percent);
  o += offset || offset_percent == 0 ? fmt::format("offset={}\n", offset) : fmt::format("offset={}%\n", offset_percent);
  o += offset_increment || offset_increment_percent == 0
           ? fmt::format("offset_increment={}\n", offset_increment)
           : fmt::format("offset_increment={}%\n", offset_increment_percent);
  o += fmt::format("number_ios={}\nruntime={}\ntime_based={}\nnumjobs={}\n", number_ios, fmt_time(runtime_ps),
                   int(time_based), numjobs);
  if (!cpus_allowed.empty()) o += fmt::format("cpus_allowed={}\n", fmt_cpus(cpus_allowed));
  if (cpus_split) o += "cpus_allowed_policy=split\n";
  o += fmt::format("thinktime={}\nrate_iops={}\nrandseed={}\ndirect={}\nioengine={}\nverify={}\n", fmt_time(thinktime_ps),
                   rate_iops, randseed, int(direct), ioengine, verify ? "meta" : "0");
  o += fmt::format("stonewall={}\nstartdelay={}\n", int(stonewall), fmt_time(startdelay_ps));
  if (!filename.empty()) o += fmt::format("filename={}\n", filename);
  if (!read_iolog.empty()) o += fmt::format("read_iolog={}\n", read_iolog);
  o += fmt::format("replay_no_stall={}\nreplay_time_scale={}\nreplay_format={}\nreplay_fit={}\n", int(replay_no_stall),
                   replay_time_scale, trace_format_name(replay_format), replay_fit_name(replay_fit));
  o += fmt::format("iodepth_batch_submit={}\nworkload_attr={}\nhipri={}\n", iodepth_batch_submit, workload_attr,
                   int(hipri));
  o += fmt::format("thinktime_spin={}\nthinktime_insts={}\nphases={}\npercentage_random={}\n",
                   fmt_time(thinktime_spin_ps), thinktime_insts, phases_text(), percentage_random);
  o += fmt::format("random_distribution={}\n", random_distribution.text());
  o += fmt::format("fsync={}\nprioclass={}\nprio={}\n", fsync, prioclass, prio);
  o += fmt::format("online={}\nrequest_rate={}\nrate_process={}\nios_per_request={}\nnet_delay={}\nrequests={}\n",
                   int(online), request_rate, rate_poisson ? "poisson" : "linear", ios_per_request,
                   fmt_time(net_delay_ps), requests);
  if (request_insts) o += fmt::format("request_insts={}\n", *request_insts);
  if (workers) o += fmt::format("workers={}\n", workers);
  return o;
}

bool FioJob::operator==(const FioJob& o) const {
  auto tie = [](const FioJob& j) {
    return std::tie(j.name, j.rw, j.rwmixread, j.bs, j.iodepth, j.size, j.size_percent, j.offset, j.offset_percent,
                    j.offset_increment, j.offset_increment_percent,
                    j.number_ios, j.runtime_ps, j.time_based, j.numjobs, j.cpus_allowed, j.cpus_split, j.thinktime_ps, j.rate_iops,
                    j.randseed, j.direct, j.ioengine, j.verify, j.stonewall, j.startdelay_ps, j.filename, j.read_iolog,
                    j.replay_no_stall, j.replay_time_scale, j.replay_format, j.replay_fit, j.iodepth_batch_submit,
                    j.workload_attr, j.thinktime_spin_ps, j.thinktime_insts, j.phases, j.percentage_random,
                    j.random_distribution, j.app, j.fsync, j.hipri, j.online, j.request_rate, j.rate_poisson,
                    j.ios_per_request, j.request_insts, j.net_delay_ps, j.requests, j.workers, j.prioclass, j.prio);
  };
  return tie(*this) == tie(o);
}

std::string FioJob::at(const std::string& option) const {
  auto it = where.find(option);
  if (it == where.end()) return fmt::format("{}: job {}: option '{}' (default)", origin, vp::quoted(name), option);
  // A bare flag (`hipri`) has no value to show.
  const std::string& v = it->second.value;
  return fmt::format("{}: job {}: option '{}'{}", it->second.at, vp::quoted(name), option,
                     v.empty() ? "" : " = " + vp::quoted(v));
}

std::vector<FioJob> parse_fio(const std::string& text, const std::string& origin) {
  std::vector<FioJob> jobs;
  FioJob global;  // template for the jobs that follow; later [global]s keep adding to it
  enum { None, Global, Job } section = None;
  std::istringstream in(text);
  std::string raw;
  for (size_t line = 1; std::getline(in, raw); ++line) {
    // Names and values end up in summary.json: they must be text.
    if (size_t bad = invalid_utf8(raw); bad != std::string::npos)
      throw FioError(fmt::format("{}:{}: not valid UTF-8 (byte {:#04x} at column {}): {}", origin, line,
                                 static_cast<unsigned char>(raw[bad]), bad + 1, vp::quoted(raw)));
    std::string s = trim(strip_comment(raw));
    if (s.empty()) continue;
    if (s[0] == '[') {
      if (s.back() != ']') throw FioError(fmt::format("{}:{}: malformed section header {}", origin, line, vp::quoted(s)));
      std::string name = trim(s.substr(1, s.size() - 2));
      if (name.empty()) throw FioError(fmt::format("{}:{}: empty section name '[]'", origin, line));
      if (name == "global") {
        section = Global;
      } else {
        jobs.push_back(global);
        jobs.back().name = name;
        jobs.back().origin = fmt::format("{}:{}", origin, line);
        section = Job;
      }
      continue;
    }
    size_t eq = s.find('=');
    Opt o{origin, line, trim(s.substr(0, eq)), std::nullopt};
    if (eq != std::string::npos) o.val = trim(s.substr(eq + 1));
    if (o.key.empty()) throw FioError(fmt::format("{}:{}: missing option name in {}", origin, line, vp::quoted(s)));
    if (section == None)
      throw FioError(fmt::format("{}:{}: option {} appears before any [section] header", origin, line,
                                 vp::quoted(o.key)));
    apply(section == Global ? global : jobs.back(), o);
  }
  return jobs;
}

void set_option(FioJob& j, const std::string& key, const std::string& value, const std::string& origin) {
  apply(j, Opt{origin, 0, key, value});
}

std::vector<FioJob> parse_fio_file(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path, "fio job file");
  } catch (const InputError& e) {
    throw FioError(e.what());
  }
  return parse_fio(text, printable(path));
}

}  // namespace vp::host
