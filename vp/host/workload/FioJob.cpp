// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/FioJob.hpp"

#include "vp/core/CpuList.hpp"
#include "vp/core/InputFile.hpp"
#include "vp/core/Quote.hpp"
#include "vp/host/workload/AppProfile.hpp"
#include "vp/host/workload/FioOptions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
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
    {"readwrite", RwMode::SeqRW}, {"trim", RwMode::Trim}, {"randtrim", RwMode::RandTrim},
    {"trimwrite", RwMode::TrimWrite}, {"randtrimwrite", RwMode::RandTrimWrite}};

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
  // fio's per-direction values (READ,WRITE[,TRIM]): one value only.
  void one_for_all(const char* what) const {
    if (value().find(',') != std::string::npos)
      fail(fmt::format("gives per-direction {} (READ,WRITE), which the model does not have: give one value", what));
  }
  // READ,WRITE[,TRIM]: one value sets both; an empty one leaves its direction
  // unset (0). Trims take the write value, as fio's do when no trim value is
  // given; a trim value of its own is refused.
  template <class F>
  void per_direction(uint64_t (&out)[2], F parse) const {
    const std::string& v = value();
    std::vector<std::string> parts;
    for (size_t b = 0;;) {
      size_t c = v.find(',', b);
      parts.push_back(trim(v.substr(b, c == std::string::npos ? std::string::npos : c - b)));
      if (c == std::string::npos) break;
      b = c + 1;
    }
    if (parts.size() > 3) fail("has more than three values (READ,WRITE,TRIM)");
    if (parts.size() == 3 && !parts[2].empty()) fail("sets a trim value: trims here take the write value (give READ,WRITE)");
    auto one = [&](const std::string& t) { return t.empty() ? uint64_t(0) : parse(Opt{origin, line, key, t}); };
    out[0] = one(parts[0]);
    out[1] = parts.size() == 1 ? out[0] : one(parts[1]);
  }
  uint64_t block_size(const std::string& text) const {
    uint64_t v = Opt{origin, line, key, text}.bytes();
    if (v == 0 || v % 512) fail(fmt::format("has block size {}: must be a positive multiple of 512 bytes", vp::quoted(text)));
    return v;
  }
  // fio's bssplit: SIZE/PERCENT:SIZE/PERCENT...; sizes without a percentage
  // share what the others leave, equally.
  std::vector<FioJob::BsShare> bssplit() const {
    std::vector<FioJob::BsShare> out;
    std::vector<size_t> open;
    unsigned given = 0;
    std::string rest = value();
    while (true) {
      size_t c = rest.find(':');
      std::string item = trim(rest.substr(0, c));
      size_t slash = item.find('/');
      uint64_t b = block_size(trim(item.substr(0, slash)));
      if (slash == std::string::npos || trim(item.substr(slash + 1)).empty()) {
        open.push_back(out.size());
        out.push_back({b, 0});
      } else {
        unsigned p = static_cast<unsigned>(Opt{origin, line, key, trim(item.substr(slash + 1))}.ranged(0, 100));
        given += p;
        out.push_back({b, p});
      }
      if (c == std::string::npos) break;
      rest = rest.substr(c + 1);
    }
    if (given > 100) fail(fmt::format("has shares adding up to {}%, more than 100%", given));
    if (open.empty() && given != 100) fail(fmt::format("has shares adding up to {}%, not 100%", given));
    for (size_t i = 0; i < open.size(); ++i)  // fio gives the remainder's odd percent to the first
      out[open[i]].percent = (100 - given) / unsigned(open.size()) + (i < (100 - given) % open.size() ? 1 : 0);
    return out;
  }
  // fio's percentile_list: percentages separated by ':'.
  std::vector<double> percentiles() const {
    std::vector<double> out;
    std::string rest = value();
    while (true) {
      size_t c = rest.find(':');
      std::string num = trim(rest.substr(0, c));
      char* end = nullptr;
      double p = std::strtod(num.c_str(), &end);
      if (num.empty() || *end || !(p > 0 && p <= 100))
        fail(fmt::format("has {}: each percentile is a number above 0 and at most 100", vp::quoted(num)));
      if (out.size() == 64) fail("lists more than 64 percentiles");
      out.push_back(p);
      if (c == std::string::npos) break;
      rest = rest.substr(c + 1);
    }
    return out;
  }
  // fio's cpumask: a number whose set bits are the CPUs.
  std::vector<unsigned> cpu_mask() const {
    const std::string& v = value();
    uint64_t m = 0;
    bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    auto [p, ec] = std::from_chars(v.data() + (hex ? 2 : 0), v.data() + v.size(), m, hex ? 16 : 10);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size() || !m)
      fail("is not a CPU mask (a number above 0 whose set bits are the CPUs: 3, 0xf)");
    std::vector<unsigned> cpus;
    for (unsigned c = 0; c < 64; ++c)
      if (m >> c & 1) cpus.push_back(c);
    return cpus;
  }
  // A log's file name prefix: written inside the run folder, so a path
  // that leaves it (absolute, or through '..') is refused; bare or empty:
  // the job's name, as fio's make_log_name.
  std::string log_prefix() const {
    const std::string v = val.value_or("");
    if (!v.empty() && v[0] == '/')
      fail("is an absolute path: fio's logs are written in the run folder (give a path relative to it)");
    for (size_t b = 0; b <= v.size();) {
      size_t e = v.find('/', b);
      if (e == std::string::npos) e = v.size();
      if (v.compare(b, e - b, "..") == 0)
        fail("leaves the run folder through '..': fio's logs are written in it (give a path relative to it)");
      b = e + 1;
    }
    if (!v.empty() && v.back() == '/') fail("ends in '/': it is a file name prefix, not a folder");
    return v;
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
    // mode[:N]: N is bytes to skip (sequential) or I/Os per offset (random).
    std::string v = o.value(), n;
    if (size_t c = v.find(':'); c != std::string::npos) n = trim(v.substr(c + 1)), v = trim(v.substr(0, c));
    bool found = false;
    for (const auto& [name, mode] : kRwNames)
      if (v == name) j.rw = mode, found = true;
    if (!found)
      o.fail("is not one of read, write, randread, randwrite, randrw, rw, readwrite, trim, randtrim, trimwrite, "
             "randtrimwrite");
    j.rw_skip = 0, j.rw_per_offset = 1;
    if (n.empty()) return;
    Opt num{o.origin, o.line, k, n};
    if (j.is_random()) {
      j.rw_per_offset = static_cast<unsigned>(num.ranged(1, 1u << 30));
    } else {
      bool back = n[0] == '-';
      uint64_t b = Opt{o.origin, o.line, k, back ? n.substr(1) : n}.bytes();
      if (b > (uint64_t(1) << 62)) o.fail("skips too far");
      j.rw_skip = back ? -int64_t(b) : int64_t(b);
    }
  } else if (k == "rw_sequencer") {
    if (o.value() != "sequential" && o.value() != "identical") o.fail("is not one of sequential, identical");
    j.rw_identical = o.value() == "identical";
  } else if (k == "rwmixread") {
    j.rwmixread = static_cast<unsigned>(o.ranged(0, 100));
  } else if (k == "rwmixwrite") {
    j.rwmixread = 100 - static_cast<unsigned>(o.ranged(0, 100));
  } else if (k == "bs" || k == "blocksize" || k == "bsrange" || k == "blocksize_range") {
    o.one_for_all("block sizes");
    const std::string& v = o.value();
    size_t dash = v.find('-');
    bool range = k == "bsrange" || k == "blocksize_range";
    if (range && dash == std::string::npos) o.fail("is not a range MIN-MAX (4k-64k)");
    uint64_t lo = o.block_size(trim(v.substr(0, dash)));
    uint64_t hi = dash == std::string::npos ? lo : o.block_size(trim(v.substr(dash + 1)));
    if (hi < lo) o.fail("is a range whose maximum is below its minimum");
    j.bs = lo, j.bs_max = hi == lo ? 0 : hi;
    j.bssplit.clear();
  } else if (k == "bssplit") {
    o.one_for_all("block size splits");
    j.bssplit = o.bssplit();
    j.bs = j.bssplit.front().bytes;
    for (const auto& b : j.bssplit) j.bs = std::min(j.bs, b.bytes);
    j.bs_max = 0;
  } else if (k == "iodepth") {
    j.iodepth = static_cast<unsigned>(o.ranged(1, 65536));
  } else if (k == "workload_attr") {
    j.workload_attr = static_cast<unsigned>(o.ranged(0, 255));
  } else if (k == "prioclass") {
    j.prioclass = static_cast<unsigned>(o.ranged(0, 3));
  } else if (k == "prio") {
    j.prio = static_cast<unsigned>(o.ranged(0, 7));
  } else if (k == "iodepth_low") {
    j.iodepth_low = static_cast<unsigned>(o.ranged(0, 65536));
  } else if (k == "iodepth_batch_complete_min" || k == "iodepth_batch_complete") {
    j.iodepth_batch_complete_min = std::max(1u, static_cast<unsigned>(o.ranged(0, 65536)));
  } else if (k == "iodepth_batch_complete_max") {
    j.iodepth_batch_complete_max = static_cast<unsigned>(o.ranged(0, 65536));
  } else if (k == "iodepth_batch_submit" || k == "iodepth_batch") {
    j.iodepth_batch_submit = static_cast<unsigned>(o.ranged(0, 65536));  // fio: 0 means iodepth
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
  } else if (k == "offset" || k == "fileoffset") {
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
  } else if (k == "offset_align") {
    j.offset_align = o.bytes();
  } else if (k == "io_size" || k == "io_limit") {
    j.io_size = o.bytes();  // 0: the region's size, as fio
  } else if (k == "blockalign" || k == "ba") {
    o.one_for_all("alignments");
    j.blockalign = o.bytes();
  } else if (k == "loops") {
    j.loops = static_cast<unsigned>(o.ranged(1, UINT32_MAX));
  } else if (k == "fill_device" || k == "fill_fs") {
    j.fill_device = o.flag();
  } else if (k == "ramp_time") {
    j.ramp_ps = o.time(kPsPerS);
  } else if (k == "number_ios") {
    j.number_ios = o.ranged(0, UINT64_MAX);
  } else if (k == "runtime" || k == "timeout") {
    j.runtime_ps = o.time(kPsPerS);
  } else if (k == "time_based") {
    j.time_based = o.flag();
  } else if (k == "numjobs") {
    j.numjobs = static_cast<unsigned>(o.ranged(1, UINT32_MAX));
  } else if (k == "cpus_allowed") {
    j.cpus_allowed = o.cpu_list();
  } else if (k == "cpumask") {
    j.cpus_allowed = o.cpu_mask();
  } else if (k == "cpus_allowed_policy") {
    if (o.value() != "shared" && o.value() != "split") o.fail("must be shared or split");
    j.cpus_split = o.value() == "split";
  } else if (k == "thinktime") {
    j.thinktime_ps = o.time(kPsPerUs);  // fio: plain thinktime is microseconds
  } else if (k == "thinktime_spin") {
    j.thinktime_spin_ps = o.time(kPsPerUs);
  } else if (k == "thinktime_blocks") {
    j.thinktime_blocks = static_cast<unsigned>(o.ranged(1, UINT32_MAX));
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
    o.one_for_all("IOPS caps (use rate= for per-direction caps)");
    j.rate_iops = o.ranged(0, UINT64_MAX);
  } else if (k == "rate") {
    o.per_direction(j.rate_bps, [](const Opt& x) { return x.bytes(); });
  } else if (k == "rate_min" || k == "ratemin") {
    o.per_direction(j.rate_min_bps, [](const Opt& x) { return x.bytes(); });
  } else if (k == "rate_iops_min") {
    o.per_direction(j.rate_iops_min, [](const Opt& x) { return x.ranged(0, UINT64_MAX); });
  } else if (k == "randseed") {
    j.randseed = o.ranged(0, UINT64_MAX);
  } else if (k == "hipri") {
    j.hipri = o.flag();
  } else if (k == "direct") {
    j.direct = o.ranged(0, 1) != 0;
  } else if (k == "buffered") {
    j.direct = o.ranged(0, 1) == 0;
  } else if (k == "fsync") {
    j.fsync = static_cast<unsigned>(o.ranged(0, UINT32_MAX));
  } else if (k == "fdatasync") {
    j.fdatasync = static_cast<unsigned>(o.ranged(0, UINT32_MAX));
  } else if (k == "end_fsync" || k == "fsync_on_close") {
    j.end_fsync = o.flag();
  } else if (k == "sync") {
    const std::string& v = o.value();
    if (v == "0" || v == "none") j.sync = false;
    else if (v == "1" || v == "sync" || v == "dsync") j.sync = true;
    else o.fail("is not one of none, 0, sync, 1, dsync");
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
    else if (v.find_first_of("0123456789") != 0 && v != "pattern" && v != "null")
      o.fail("is a checksum method, not modelled: FlashVP's verify compares every byte a read returns with what "
             "was written (verify=1 or meta), and a write job is not read back afterwards as fio's verify phase "
             "does");
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
  } else if (k == "percentile_list") {
    j.percentile_list = o.percentiles();
  } else if (k == "write_lat_log" || k == "write_bw_log" || k == "write_iops_log") {
    (k == "write_lat_log" ? j.lat_log : k == "write_bw_log" ? j.bw_log : j.iops_log) = o.log_prefix();
  } else if (k == "log_avg_msec") {
    j.log_avg_msec = static_cast<unsigned>(o.ranged(0, UINT32_MAX));
  } else if (k == "log_window_value" || k == "log_max_value") {
    const std::string& v = o.value();
    if (v == "avg" || v == "0") j.log_window = 0;
    else if (v == "max" || v == "1") j.log_window = 1;
    else if (v == "both") j.log_window = 2;
    else o.fail("is not one of avg, max, both, 0, 1");
  } else if (k == "log_offset") {
    j.log_offset = o.flag();
  } else if (k == "log_prio") {
    j.log_prio = o.flag();
  } else if (k == "log_issue_time") {
    j.log_issue_time = o.flag();
  } else if (k == "per_job_logs") {
    j.per_job_logs = o.flag();
  } else if (k == "bwavgtime") {
    j.bwavgtime = static_cast<unsigned>(o.ranged(1, UINT32_MAX));
  } else if (k == "iopsavgtime") {
    j.iopsavgtime = static_cast<unsigned>(o.ranged(1, UINT32_MAX));
  } else if (k == "randrepeat" || k == "allrandrepeat") {
    o.flag();  // every stream repeats for the run's seed (--seed); another seed gives another run
  } else if (k == "lat_percentiles") {
    o.flag();  // summary.json's percentiles are of the whole latency already
  } else if (k == "new_group") {
    j.new_group = o.flag();
  } else if (k == "exitall") {
    j.exitall = o.flag();
  } else if (k == "description") {
    o.value();  // shown by fio only
  } else if (const FioOptionInfo* info = find_fio_option(k)) {
    j.where.erase(k);
    if (info->support == FioSupport::Refused)
      throw FioError(fmt::format("{}: option {} is not modelled: {}", o.where(), vp::quoted(k), info->why));
    if (info->support == FioSupport::Modelled)  // the table and this parser disagree: a FlashVP bug
      throw FioError(fmt::format("{}: option {} is listed as modelled but the job parser does not know it",
                                 o.where(), vp::quoted(k)));
    j.accepted.emplace_back(k, o.val.value_or(""));
  } else {
    j.where.erase(k);
    throw FioError(fmt::format("{}: unknown option {}: fio has no such option (docs/reference/fio-options.md lists "
                               "them all)",
                               o.where(), vp::quoted(k)));
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

// fio replaces ${VAR} in a job file with the environment variable's value.
std::string expand_env(const std::string& line, const std::string& origin, size_t n) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    size_t b = line.find("${", i);
    if (b == std::string::npos) return out + line.substr(i);
    size_t e = line.find('}', b);
    if (e == std::string::npos) return out + line.substr(i);
    std::string var = line.substr(b + 2, e - b - 2);
    const char* v = std::getenv(var.c_str());
    if (!v)
      throw FioError(fmt::format("{}:{}: environment variable {} is not set (fio replaces ${{{}}} with its value)",
                                 origin, n, vp::quoted(var), var));
    out += line.substr(i, b - i) + v;
    i = e + 1;
  }
  return out;
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

uint64_t FioJob::max_bs() const {
  uint64_t m = std::max(bs, bs_max);
  for (const BsShare& b : bssplit) m = std::max(m, b.bytes);
  return m;
}

unsigned FioJob::sync_every() const {
  if (fsync && fdatasync) return std::min(fsync, fdatasync);
  return fsync ? fsync : fdatasync;
}

bool FioJob::is_random() const {
  return rw == RwMode::RandRead || rw == RwMode::RandWrite || rw == RwMode::RandRW || rw == RwMode::RandTrim ||
         rw == RwMode::RandTrimWrite;
}

bool FioJob::has_reads() const {
  bool mixed = rw == RwMode::RandRW || rw == RwMode::SeqRW;
  return rw == RwMode::Read || rw == RwMode::RandRead || (mixed && rwmixread > 0);
}

bool FioJob::has_writes() const {
  bool mixed = rw == RwMode::RandRW || rw == RwMode::SeqRW;
  return rw == RwMode::Write || rw == RwMode::RandWrite || trim_write() || (mixed && rwmixread < 100);
}

bool FioJob::has_trims() const { return rw == RwMode::Trim || rw == RwMode::RandTrim || trim_write(); }

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

std::string FioJob::rw_rw_text() const {
  if (rw_skip) return fmt::format("{}:{}", rw_name(), rw_skip);
  if (rw_per_offset > 1) return fmt::format("{}:{}", rw_name(), rw_per_offset);
  return rw_name();
}

uint64_t FioJob::start_offset(uint64_t capacity) const {
  // fio aligns a percentage offset up to offset_align (by default, bs).
  const uint64_t align = offset_align ? offset_align : bs;
  auto bytes = [&](uint64_t b, double pct) {
    if (b || pct == 0) return b;
    uint64_t v = static_cast<uint64_t>(double(capacity) * pct / 100.0);
    return (v + align - 1) / align * align;
  };
  return bytes(offset, offset_percent) + clone * bytes(offset_increment, offset_increment_percent);
}

std::string FioJob::to_fio() const {
  // Every value is written, so a [global] placed before the section cannot
  // change the job; only empty strings/lists (which fio cannot spell) are left out.
  std::string o = fmt::format("[{}]\n", name);
  if (!app.empty()) o += fmt::format("app={}\n", app);  // first: the values below override what it fills in
  o += fmt::format("rw={}\nrwmixread={}\n", rw_rw_text(), rwmixread);
  if (!bssplit.empty()) {
    std::string split;
    for (const BsShare& b : bssplit) split += fmt::format("{}{}/{}", split.empty() ? "" : ":", b.bytes, b.percent);
    o += fmt::format("bssplit={}\n", split);
  } else {
    o += bs_max ? fmt::format("bs={}-{}\n", bs, bs_max) : fmt::format("bs={}\n", bs);
  }
  o += fmt::format("iodepth={}\n", iodepth);
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
  // Options added since the ones above; written last so earlier lines keep their place.
  if (rw_identical) o += "rw_sequencer=identical\n";
  o += fmt::format("ramp_time={}\nio_size={}\nloops={}\nfill_device={}\noffset_align={}\nblockalign={}\n",
                   fmt_time(ramp_ps), io_size, loops, int(fill_device), offset_align, blockalign);
  auto dirs = [](const uint64_t (&v)[2]) { return fmt::format("{},{}", v[0], v[1]); };
  o += fmt::format("rate={}\nrate_min={}\nrate_iops_min={}\n", dirs(rate_bps), dirs(rate_min_bps), dirs(rate_iops_min));
  o += fmt::format("fdatasync={}\nend_fsync={}\nsync={}\niodepth_low={}\niodepth_batch_complete_min={}\n", fdatasync,
                   int(end_fsync), int(sync), iodepth_low, iodepth_batch_complete_min);
  o += fmt::format("iodepth_batch_complete_max={}\nthinktime_blocks={}\nnew_group={}\nexitall={}\n",
                   iodepth_batch_complete_max, thinktime_blocks, int(new_group), int(exitall));
  if (!percentile_list.empty()) {
    std::string l;
    for (double p : percentile_list) l += fmt::format("{}{}", l.empty() ? "" : ":", p);
    o += fmt::format("percentile_list={}\n", l);
  }
  // fio's logs, only when asked for, so the jobs without them read as before.
  for (const auto& [k, v] : {std::pair{"write_lat_log", &lat_log}, {"write_bw_log", &bw_log}, {"write_iops_log", &iops_log}})
    if (*v) o += fmt::format("{}={}\n", k, **v);
  if (log_avg_msec) o += fmt::format("log_avg_msec={}\n", log_avg_msec);
  if (log_window) o += fmt::format("log_window_value={}\n", log_window == 1 ? "max" : "both");
  if (log_offset) o += "log_offset=1\n";
  if (log_prio) o += "log_prio=1\n";
  if (log_issue_time) o += "log_issue_time=1\n";
  if (!per_job_logs) o += "per_job_logs=0\n";
  if (bwavgtime) o += fmt::format("bwavgtime={}\n", *bwavgtime);
  if (iopsavgtime) o += fmt::format("iopsavgtime={}\n", *iopsavgtime);
  for (const auto& [k, v] : accepted) o += v.empty() ? k + "\n" : fmt::format("{}={}\n", k, v);
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
  auto more = [](const FioJob& j) {
    return std::tie(j.bs_max, j.blockalign, j.bssplit, j.rw_skip, j.rw_per_offset, j.rw_identical, j.ramp_ps, j.io_size, j.loops,
                    j.fill_device, j.fdatasync, j.end_fsync, j.sync, j.iodepth_low, j.iodepth_batch_complete_min,
                    j.iodepth_batch_complete_max, j.offset_align, j.thinktime_blocks, j.percentile_list,
                    j.new_group, j.exitall, j.accepted);
  };
  auto logs = [](const FioJob& j) {
    return std::tie(j.lat_log, j.bw_log, j.iops_log, j.log_avg_msec, j.log_window, j.log_offset, j.log_prio,
                    j.log_issue_time, j.per_job_logs, j.bwavgtime, j.iopsavgtime);
  };
  auto rates = [](const FioJob& j) {
    return std::array{j.rate_bps[0], j.rate_bps[1], j.rate_min_bps[0], j.rate_min_bps[1], j.rate_iops_min[0],
                      j.rate_iops_min[1]};
  };
  return tie(*this) == tie(o) && more(*this) == more(o) && rates(*this) == rates(o) && logs(*this) == logs(o);
}

std::string FioJob::at(const std::string& option) const {
  auto it = where.find(option);
  if (it == where.end()) return fmt::format("{}: job {}: option '{}' (default)", origin, vp::quoted(name), option);
  // A bare flag (`hipri`) has no value to show.
  const std::string& v = it->second.value;
  return fmt::format("{}: job {}: option '{}'{}", it->second.at, vp::quoted(name), option,
                     v.empty() ? "" : " = " + vp::quoted(v));
}

std::string FioJob::direct_hint() const {
  if (where.count("direct") || where.count("buffered")) return "";
  return fmt::format("; job {} sets no direct= and fio's default is direct=0 (buffered I/O through the page cache): "
                     "add direct=1 to the job or its [global] section for direct I/O (O_DIRECT) straight to the device",
                     vp::quoted(name));
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
    std::string s = trim(expand_env(strip_comment(raw), origin, line));
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

std::vector<std::pair<std::string, std::string>> fio_global_options(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  bool global = false;
  std::istringstream in(text);
  std::string raw;
  for (size_t line = 1; std::getline(in, raw); ++line) {
    std::string s = trim(expand_env(strip_comment(raw), "job file", line));
    if (s.empty()) continue;
    if (s[0] == '[') {
      global = trim(s.substr(1, s.size() > 1 ? s.size() - 2 : 0)) == "global";
      continue;
    }
    if (!global) continue;
    size_t eq = s.find('=');
    std::string key = trim(s.substr(0, eq)), value = eq == std::string::npos ? "" : trim(s.substr(eq + 1));
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& kv) { return kv.first == key; });
    if (it == out.end())
      out.emplace_back(key, value);
    else
      it->second = value;
  }
  return out;
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
