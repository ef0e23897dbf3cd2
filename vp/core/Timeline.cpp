// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/Timeline.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <fmt/format.h>
#include <iterator>

#include "vp/core/StagePath.hpp"

namespace vp {

namespace {
using Buf = fmt::memory_buffer;

// ps as microseconds with six decimals: exact, and no float on the way.
void ts(Buf& b, Tick ps) { fmt::format_to(std::back_inserter(b), "{}.{:06}", ps / 1000000, ps % 1000000); }

void quoted(Buf& b, const std::string& s) {
  b.push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') {
      b.push_back('\\');
      b.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      fmt::format_to(std::back_inserter(b), "\\u{:04x}", static_cast<unsigned>(c));
    } else {
      b.push_back(c);
    }
  }
  b.push_back('"');
}

// Processes in the viewer's order (chrome://tracing honours it): the host
// cores, the requests by SQ, the NVMe queues, then the device's resources
// as registered (kSortResources + pid).
constexpr uint32_t kSortHost = 0, kSortRequests = 1, kSortQueues = 999, kSortResources = 1000;
}  // namespace

Timeline::Timeline(const std::string& path) : file_(path), f_(std::fopen(file_.temp_path().c_str(), "w")) {
  if (!f_) throw OutputError("cannot write " + path);
  std::setvbuf(f_, nullptr, _IOFBF, 1 << 20);
  static const char head[] =
      "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"FlashVP\",\"time\":\"ts and dur in us with six "
      "decimals: exact picoseconds; args *_ps in ps\"},\n\"traceEvents\":[\n";
  if (std::fputs(head, f_) < 0) error_ = errno ? errno : EIO;
}

Timeline::~Timeline() {
  if (f_) std::fclose(f_);
}

void Timeline::emit(const char* data, size_t size) {
  if (!f_) return;
  if (!first_) std::fputs(",\n", f_);
  first_ = false;
  if (std::fwrite(data, 1, size, f_) != size && !error_) error_ = errno ? errno : EIO;
}

void Timeline::meta(const char* what, uint32_t pid, uint32_t tid, const std::string& name, int64_t sort) {
  Buf b;
  const bool named = sort < 0;
  fmt::format_to(std::back_inserter(b), "{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"{}\",\"args\":{{", pid, tid, what);
  if (named) {
    b.append(std::string_view("\"name\":"));
    quoted(b, name);
  } else {
    fmt::format_to(std::back_inserter(b), "\"sort_index\":{}", sort);
  }
  b.append(std::string_view("}}"));
  emit(b.data(), b.size());
}

uint32_t Timeline::process(const std::string& name, uint32_t sort) {
  auto [it, added] = pids_.try_emplace(name, next_pid_);
  if (!added) return it->second;
  const uint32_t pid = next_pid_++;
  meta("process_name", pid, pid, name, -1);
  meta("process_sort_index", pid, pid, name, sort == kSortResources ? kSortResources + pid : sort);
  return pid;
}

uint32_t Timeline::new_thread(uint32_t pid, const std::string& name) {
  const uint32_t tid = next_tid_++;
  meta("thread_name", pid, tid, name, -1);
  meta("thread_sort_index", pid, tid, name, tid);
  threads_.emplace_back(pid, tid);
  held_.emplace_back();
  thread_by_name_.try_emplace(name, static_cast<uint32_t>(threads_.size() - 1));
  return static_cast<uint32_t>(threads_.size() - 1);
}

uint32_t Timeline::sort_of(Place place) {
  return place == Place::First ? kSortHost : place == Place::AfterRequests ? kSortQueues : kSortResources;
}

uint32_t Timeline::thread(const std::string& group, const std::string& name, Place place) {
  return new_thread(process(group, sort_of(place)), name);
}

int Timeline::find_thread(const std::string& name) const {
  auto it = thread_by_name_.find(name);
  return it == thread_by_name_.end() ? -1 : static_cast<int>(it->second);
}

uint32_t Timeline::counter(const std::string& group, const std::string& name, Place place) {
  const uint32_t pid = process(group, sort_of(place));
  const unsigned n = ++counter_names_[{pid, name}];
  counters_.push_back({pid, n == 1 ? name : fmt::format("{}#{}", name, n)});
  return static_cast<uint32_t>(counters_.size() - 1);
}

void Timeline::slice(uint32_t thread, const char* name, Tick start, Tick end) {
  Buf b;
  const auto [pid, tid] = threads_[thread];
  fmt::format_to(std::back_inserter(b), "{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"name\":\"{}\",\"ts\":", pid, tid, name);
  ts(b, start);
  b.append(std::string_view(",\"dur\":"));
  ts(b, end - start);
  b.push_back('}');
  emit(b.data(), b.size());
}

void Timeline::count(uint32_t counter, Tick t, uint64_t value) {
  Buf b;
  const Counter& c = counters_[counter];
  fmt::format_to(std::back_inserter(b), "{{\"ph\":\"C\",\"pid\":{},\"name\":", c.pid);
  quoted(b, c.name);
  b.append(std::string_view(",\"ts\":"));
  ts(b, t);
  fmt::format_to(std::back_inserter(b), ",\"args\":{{\"value\":{}}}}}", value);
  emit(b.data(), b.size());
}

void Timeline::interval(uint32_t thread, Tick start, Tick end) {
  Held& h = held_[thread];
  if (h.set) {
    // Cut short by the next one only when that starts later (booked in order).
    const Tick e = start >= h.start ? std::min(h.end, start) : h.end;
    if (e > h.start) slice(thread, "busy", h.start, e);
  }
  h = {start, end, true};
}

void Timeline::request(const RequestLog::Row& r, unsigned dev, int core_thread) {
  const uint32_t key = dev << 16 | r.sqid;
  auto it = sqs_.find(key);
  if (it == sqs_.end()) {
    Sq q;
    q.pid = process(dev ? fmt::format("I/O requests, device {} SQ {}", dev, r.sqid) : fmt::format("I/O requests SQ {}", r.sqid),
                    kSortRequests + key);
    it = sqs_.emplace(key, std::move(q)).first;
  }
  Sq& q = it->second;
  // The lowest lane whose requests all ended by this one's issue.
  size_t lane = 0;
  while (lane < q.lane_end.size() && q.lane_end[lane] > r.issued) ++lane;
  if (lane == q.lane_end.size()) {
    q.lane_end.push_back(0);
    q.lane_tid.push_back(threads_[new_thread(q.pid, fmt::format("lane {}", lane))].second);
  }
  q.lane_end[lane] = std::max(q.lane_end[lane], r.done);
  const uint32_t tid = q.lane_tid[lane];

  const char* op = r.op();
  const std::string name = r.flush ? std::string(op) : fmt::format("{} lba {}", op, r.lba);
  Buf b;
  auto out = std::back_inserter(b);
  fmt::format_to(out, "{{\"ph\":\"X\",\"cat\":\"request\",\"pid\":{},\"tid\":{},\"name\":\"{}\",\"ts\":", q.pid, tid,
                 name);
  ts(b, r.issued);
  b.append(std::string_view(",\"dur\":"));
  ts(b, r.done - r.issued);
  b.append(std::string_view(",\"args\":{\"job\":"));
  quoted(b, r.job);
  fmt::format_to(out, ",\"op\":\"{}\",\"lba\":{},\"bytes\":{},\"sqid\":{},\"cid\":{},\"commands\":\"", op, r.lba, r.bytes,
                 r.sqid, r.cid);
  for (size_t i = 0; i < r.commands.count; ++i) fmt::format_to(out, i ? " {}" : "{}", r.commands.serials[i]);
  fmt::format_to(out, "\",\"status\":{},\"attr\":{},\"result\":{},\"issue_ps\":{},\"latency_ps\":{}", r.status, r.attr,
                 r.result, r.issued, r.done - r.issued);
  const StageClock& c = r.clock;
  for (Stage st : stage_path(r.write)) {  // in the direction's path order, as the summary's breakdown
    const auto i = static_cast<size_t>(st);
    if (c.ended[i]) fmt::format_to(out, ",\"{}_ps\":{}", stage_name(st), c.spent[i]);
  }
  b.push_back('}');
  const uint64_t flow = core_thread >= 0 ? ++flows_ : 0;
  if (flow) fmt::format_to(out, ",\"bind_id\":{},\"flow_out\":true", flow);
  b.push_back('}');
  emit(b.data(), b.size());

  // The stages in the order they ended, back to back from the record's
  // origin: a stage that came in several pieces (a split I/O's, a write's
  // data in several transfers) is one slice of its whole time.
  std::array<uint8_t, kStages> order{};
  size_t n = 0;
  for (size_t i = 0; i < kStages; ++i)
    if (c.spent[i]) order[n++] = static_cast<uint8_t>(i);
  std::stable_sort(order.begin(), order.begin() + n, [&](uint8_t a, uint8_t z) { return c.ended[a] < c.ended[z]; });
  Tick at = c.origin;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = order[k];
    b.clear();
    fmt::format_to(out, "{{\"ph\":\"X\",\"cat\":\"stage\",\"pid\":{},\"tid\":{},\"name\":\"{}\",\"ts\":", q.pid, tid,
                   stage_name(static_cast<Stage>(i)));
    ts(b, at);
    b.append(std::string_view(",\"dur\":"));
    ts(b, c.spent[i]);
    fmt::format_to(out, ",\"args\":{{\"ps\":{}}}}}", c.spent[i]);
    emit(b.data(), b.size());
    at += c.spent[i];
  }

  if (flow) {
    // The core that handed the completion to its thread: a marker there,
    // the flow arrow's end.
    const auto [cpid, ctid] = threads_[static_cast<size_t>(core_thread)];
    b.clear();
    fmt::format_to(out, "{{\"ph\":\"X\",\"cat\":\"completion\",\"pid\":{},\"tid\":{},\"name\":\"done {}\",\"ts\":", cpid,
                   ctid, name);
    ts(b, r.done);
    fmt::format_to(out, ",\"dur\":0,\"bind_id\":{},\"flow_in\":true}}", flow);
    emit(b.data(), b.size());
  }
}

void Timeline::close(Tick now, bool publish) {
  if (!f_) return;
  if (publish) {
    for (size_t t = 0; t < held_.size(); ++t) {
      Held& h = held_[t];
      if (h.set && std::min(h.end, now) > h.start) slice(static_cast<uint32_t>(t), "busy", h.start, std::min(h.end, now));
      h.set = false;
    }
    std::fputs("\n]}\n", f_);
  }
  bool ok = std::fflush(f_) == 0 && !std::ferror(f_) && !error_;
  ok = std::fclose(f_) == 0 && ok;
  f_ = nullptr;
  if (!publish) return;  // the temporary goes with file_
  if (!ok) throw OutputError("cannot write " + file_.path() + ": the write failed");
  file_.commit();
}

}  // namespace vp
