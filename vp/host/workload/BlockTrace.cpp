// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/BlockTrace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <sstream>

#include "vp/core/InputFile.hpp"
#include "vp/core/Quote.hpp"

namespace vp::host {

namespace {

constexpr uint64_t kSector = 512;  // blkparse counts 512-byte sectors whatever the device's LBA size

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<uint64_t> to_u64(const std::string& s) {
  if (!all_digits(s)) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "8,0": blkparse's major,minor device field.
bool is_device(const std::string& s) {
  size_t c = s.find(',');
  return c != std::string::npos && all_digits(s.substr(0, c)) && all_digits(s.substr(c + 1));
}

// blkparse time: seconds '.' nine digits of nanoseconds.
std::optional<uint64_t> blk_time_ns(const std::string& s) {
  size_t dot = s.find('.');
  if (dot == std::string::npos) return std::nullopt;
  auto sec = to_u64(s.substr(0, dot));
  std::string frac = s.substr(dot + 1);
  if (!sec || frac.size() > 9 || !all_digits(frac) || *sec > UINT64_MAX / 1000000000000ull) return std::nullopt;
  frac.append(9 - frac.size(), '0');
  return *sec * 1000000000 + *to_u64(frac);
}

std::vector<std::string> csv_fields(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string f; std::getline(ss, f, ',');) out.push_back(trim(f));
  if (!s.empty() && s.back() == ',') out.emplace_back();
  return out;
}

bool msr_like(const std::string& line) {
  auto f = csv_fields(line);
  if (f.size() != 7) return false;
  std::string t = lower(f[3]);
  return lower(f[0]) == "timestamp" || (all_digits(f[0]) && (t == "read" || t == "write"));
}

bool blkparse_like(const std::string& line) {
  auto w = words(line);
  return w.size() >= 7 && is_device(w[0]) && all_digits(w[1]) && all_digits(w[2]) && blk_time_ns(w[3]);
}

bool iolog_header(const std::string& line, int& version) {
  // fio compares only the header's prefix; so does this.
  if (line.rfind("fio version 2 iolog", 0) == 0) return version = 2, true;
  if (line.rfind("fio version 3 iolog", 0) == 0) return version = 3, true;
  return false;
}

// Parses one trace; records carry raw times in the format's unit until the
// end, when they become picoseconds from the format's origin.
class Reader {
 public:
  Reader(const std::string& origin) : origin_(origin) {}

  [[noreturn]] void fail(size_t line, const std::string& why) const {
    throw TraceError(fmt::format("{}:{}: {}", origin_, line, printable(why)));
  }
  uint64_t number(size_t line, const std::string& tok, const char* what) const {
    if (!tok.empty() && tok[0] == '-') fail(line, fmt::format("{} {} is negative", what, vp::quoted(tok)));
    if (!all_digits(tok)) fail(line, fmt::format("{} {} is not a whole number", what, vp::quoted(tok)));
    auto v = to_u64(tok);
    if (!v) fail(line, fmt::format("{} {} is too large", what, vp::quoted(tok)));
    return *v;
  }
  uint64_t size(size_t line, const std::string& tok, const char* what) const {
    uint64_t v = number(line, tok, what);
    if (v == 0) fail(line, fmt::format("{} is 0 (a read or write moves at least one byte)", what));
    return v;
  }

  void msr(const std::vector<std::pair<size_t, std::string>>& lines, std::vector<TraceRecord>& out) {
    bool first = true;
    for (const auto& [ln, text] : lines) {
      auto f = csv_fields(text);
      if (first && f.size() == 7 && lower(f[0]) == "timestamp") {  // an optional header row
        first = false;
        continue;
      }
      first = false;
      if (f.size() != 7)
        fail(ln, fmt::format("{} fields where an MSR Cambridge record has 7 "
                             "(Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)",
                             f.size()));
      TraceRecord r;
      r.line = ln;
      r.time_ps = number(ln, f[0], "timestamp");
      std::string t = lower(f[3]);
      if (t != "read" && t != "write") fail(ln, fmt::format("type {} is neither Read nor Write", vp::quoted(f[3])));
      r.write = t == "write";
      r.offset = number(ln, f[4], "offset");
      r.bytes = size(ln, f[5], "size");
      number(ln, f[6], "response time");
      out.push_back(r);
    }
  }

  void blkparse(const std::vector<std::pair<size_t, std::string>>& lines, std::vector<TraceRecord>& out) {
    std::vector<TraceRecord> queued, dispatched;
    std::string device;
    for (const auto& [ln, text] : lines) {
      auto w = words(text);
      // blkparse ends with per-CPU and total statistics: nothing to replay there.
      if (w[0] == "Total" || (w[0].size() > 3 && w[0].rfind("CPU", 0) == 0 && std::isdigit(static_cast<unsigned char>(w[0][3]))))
        break;
      if (w.size() < 7 || !is_device(w[0]) || !all_digits(w[1]) || !all_digits(w[2]) || !all_digits(w[4]))
        fail(ln, "not a blkparse event (expected 'maj,min cpu sequence seconds.nanoseconds pid action rwbs ...')");
      auto ns = blk_time_ns(w[3]);
      if (!ns) fail(ln, fmt::format("time {} is not seconds.nanoseconds", vp::quoted(w[3])));
      const std::string& act = w[5];
      const std::string& rwbs = w[6];
      bool data = (act == "Q" || act == "D") && rwbs.find('D') == std::string::npos &&
                  (rwbs.find('W') != std::string::npos || rwbs.find('R') != std::string::npos);
      // A flush without data prints only "[process]" after the RWBS field.
      if (!data || w.size() < 8 || w[7][0] == '[') {
        ++skipped_;
        continue;
      }
      if (w.size() < 10 || w[8] != "+") fail(ln, "expected 'sector + sectors' after the RWBS field");
      TraceRecord r;
      r.line = ln;
      r.time_ps = *ns;
      r.write = rwbs.find('W') != std::string::npos;
      uint64_t sector = number(ln, w[7], "sector"), n = number(ln, w[9], "sector count");
      if (n == 0) {  // a data-less request (a flush with W set)
        ++skipped_;
        continue;
      }
      if (sector > UINT64_MAX / kSector || n > UINT64_MAX / kSector) fail(ln, "sector or sector count is too large");
      if (device.empty()) device = w[0];
      if (w[0] != device)
        fail(ln, fmt::format("events of a second device {} (the replay drives one device; the first was {})", w[0],
                             device));
      r.offset = sector * kSector;
      r.bytes = n * kSector;
      (act == "Q" ? queued : dispatched).push_back(r);
    }
    // Queue events are what the application asked for; dispatches (after
    // merging and scheduling) stand in only when the trace has no Q events.
    auto& use = queued.empty() ? dispatched : queued;
    skipped_ += (queued.empty() ? queued : dispatched).size();
    out = std::move(use);
  }

  void iolog(int version, const std::vector<std::pair<size_t, std::string>>& lines, std::vector<TraceRecord>& out) {
    uint64_t wait_ms = 0;  // v2: `wait` holds later I/Os until this long after the start
    std::string device;
    for (const auto& [ln, text] : lines) {
      auto w = words(text);
      size_t base = version == 3 ? 1 : 0;
      uint64_t stamp = 0;
      if (version == 3) {
        stamp = number(ln, w[0], "timestamp");
        if (stamp > UINT64_MAX / 1000000) fail(ln, fmt::format("timestamp {} is too large", vp::quoted(w[0])));
      }
      if (w.size() != base + 2 && w.size() != base + 4)
        fail(ln, version == 3 ? "expected 'timestamp filename action [offset length]'"
                              : "expected 'filename action [offset length]'");
      const std::string& file = w[base];
      const std::string& act = w[base + 1];
      if (version == 3 && !have_origin_) origin_time_ = stamp, have_origin_ = true;
      if (w.size() == base + 2) {
        if (act != "add" && act != "open" && act != "close")
          fail(ln, fmt::format("unknown file action {} (add, open, close; or an I/O action with offset and length)",
                               vp::quoted(act)));
        ++skipped_;
        continue;
      }
      uint64_t off = number(ln, w[base + 2], "offset");
      const std::string& len = w[base + 3];
      if (act == "wait") {  // fio ignores wait in version 3 logs
        if (version == 2) wait_ms = std::max(wait_ms, off);
        number(ln, len, "length");
        ++skipped_;
        continue;
      }
      if (act == "sync" || act == "datasync" || act == "trim") {
        number(ln, len, "length");
        ++skipped_;
        continue;
      }
      if (act != "read" && act != "write")
        fail(ln, fmt::format("unknown action {} (read, write, sync, datasync, trim, wait, add, open, close)",
                             vp::quoted(act)));
      if (device.empty()) device = file;
      if (file != device)
        fail(ln, fmt::format("a second file {} (the replay drives one device; the first file was {})",
                             vp::quoted(file), vp::quoted(device)));
      TraceRecord r;
      r.line = ln;
      r.write = act == "write";
      r.offset = off;
      r.bytes = size(ln, len, "length");
      r.time_ps = version == 3 ? stamp : wait_ms;
      out.push_back(r);
    }
  }

  const std::string& origin_;
  uint64_t skipped_ = 0;
  bool have_origin_ = false;
  uint64_t origin_time_ = 0;
};

}  // namespace

const char* trace_format_name(TraceFormat f) {
  switch (f) {
    case TraceFormat::Msr: return "msr";
    case TraceFormat::Blkparse: return "blkparse";
    case TraceFormat::Iolog: return "iolog";
    default: return "auto";
  }
}

const char* replay_fit_name(ReplayFit f) {
  switch (f) {
    case ReplayFit::Scale: return "scale";
    case ReplayFit::Wrap: return "wrap";
    default: return "none";
  }
}

TraceFormat BlockTrace::detect(const std::string& first_line) {
  std::string s = trim(first_line);
  int version = 0;
  if (iolog_header(s, version)) return TraceFormat::Iolog;
  if (blkparse_like(s)) return TraceFormat::Blkparse;
  if (msr_like(s)) return TraceFormat::Msr;
  return TraceFormat::Auto;
}

BlockTrace BlockTrace::parse(const std::string& text, const std::string& origin, TraceFormat format) {
  BlockTrace t;
  t.origin_ = origin;
  std::vector<std::pair<size_t, std::string>> lines;  // non-empty ones, numbered from 1
  {
    std::istringstream in(text);
    std::string raw;
    for (size_t n = 1; std::getline(in, raw); ++n) {
      std::string s = trim(raw);
      if (!s.empty()) lines.emplace_back(n, s);
    }
  }
  if (lines.empty()) throw TraceError(fmt::format("{}: the trace is empty", origin));
  Reader rd(t.origin_);
  if (format == TraceFormat::Auto) {
    format = detect(lines[0].second);
    if (format == TraceFormat::Auto)
      rd.fail(lines[0].first, fmt::format("unknown trace format: {} is not an MSR Cambridge CSV record, a blkparse "
                                          "event or a fio iolog header (replay_format names the format)",
                                          vp::quoted(lines[0].second)));
  }
  t.format_ = format;
  uint64_t unit_ps = 1;
  bool first_record_is_zero = true;
  switch (format) {
    case TraceFormat::Msr:
      rd.msr(lines, t.records_);
      unit_ps = 100000;  // Windows filetime: 100 ns
      break;
    case TraceFormat::Blkparse:
      rd.blkparse(lines, t.records_);
      unit_ps = 1000;
      break;
    default: {
      int version = 0;
      if (!iolog_header(lines[0].second, version))
        rd.fail(lines[0].first, "not a fio iolog: the first line must be 'fio version 2 iolog' or 'fio version 3 iolog'");
      lines.erase(lines.begin());
      rd.iolog(version, lines, t.records_);
      // v3 times count from the log's first line, as fio's delays do; v2
      // times are `wait` marks from the job's start.
      unit_ps = version == 3 ? 1000000 : 1000000000;
      first_record_is_zero = false;
      break;
    }
  }
  t.skipped_ = rd.skipped_;
  if (t.records_.empty()) throw TraceError(fmt::format("{}: no reads or writes to replay", origin));
  uint64_t zero = first_record_is_zero ? t.records_.front().time_ps : rd.origin_time_;
  uint64_t prev = 0;
  for (TraceRecord& r : t.records_) {
    // Replay keeps trace order: a record stamped before the one above it
    // (clocks of different CPUs) goes at the same time as that one.
    uint64_t rel = r.time_ps > zero ? r.time_ps - zero : 0;
    if (rel > UINT64_MAX / unit_ps) rd.fail(r.line, "time is too far from the trace's start");
    r.time_ps = std::max(prev, rel * unit_ps);
    prev = r.time_ps;
    if (r.offset > UINT64_MAX - r.bytes) rd.fail(r.line, "offset + size is too large");
    t.extent_ = std::max(t.extent_, r.offset + r.bytes);
    t.max_bytes_ = std::max(t.max_bytes_, r.bytes);
  }
  return t;
}

BlockTrace BlockTrace::load(const std::string& path, TraceFormat format) {
  std::string text;
  try {
    text = read_input_file(path, "block trace");
  } catch (const InputError& e) {
    throw TraceError(e.what());
  }
  return parse(text, path, format);
}

std::vector<TraceRecord> BlockTrace::fit(uint64_t region_bytes, uint32_t lba, ReplayFit mode) const {
  uint64_t region = region_bytes / lba * lba;
  std::vector<TraceRecord> out;
  out.reserve(records_.size());
  for (const TraceRecord& r : records_) {
    auto fail = [&](const std::string& why) { throw TraceError(fmt::format("{}:{}: {}", origin_, r.line, why)); };
    if (r.offset + r.bytes > UINT64_MAX - lba) fail("offset + size is too large");
    uint64_t off = r.offset / lba * lba;
    uint64_t end = (r.offset + r.bytes + lba - 1) / lba * lba;
    uint64_t bytes = end - off;
    if (bytes > region)
      fail(fmt::format("an I/O of {} bytes (whole LBAs of {}) does not fit in the job's region of {} bytes", bytes,
                       lba, region));
    uint64_t at = off;
    if (mode == ReplayFit::None) {
      if (end > region)
        fail(fmt::format("the I/O at offset {} of {} bytes ends beyond the job's region of {} bytes "
                         "(replay_fit=scale or replay_fit=wrap maps the trace into it)",
                         r.offset, r.bytes, region));
    } else {
      if (mode == ReplayFit::Scale && extent_ > region)
        at = static_cast<uint64_t>((unsigned __int128)r.offset * region / extent_) / lba * lba;
      else if (mode == ReplayFit::Wrap)
        at = off % region;
      if (at + bytes > region) at = region - bytes;  // both whole LBAs
    }
    TraceRecord m = r;
    m.offset = at;
    m.bytes = bytes;
    out.push_back(m);
  }
  return out;
}

}  // namespace vp::host
