// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/LinkDirection.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace vp::pcie {

LinkDirection::LinkDirection(const StatGroup& stats, Waves& waves, EventQueue& eq, const char* dir,
                             const char* from_to)
    : eq_(eq),
      payload_(&stats.counter(fmt::format("bytes_{}", dir), "bytes", fmt::format("payload bytes sent {}", from_to))),
      wire_(&stats.counter(fmt::format("wire_bytes_{}", dir), "bytes",
                           fmt::format("bytes on the wire {}: payload, TLP overhead and DLLPs", from_to))),
      tlps_(&stats.counter(fmt::format("tlps_{}", dir), "TLPs", fmt::format("TLPs sent {}", from_to))),
      dllps_(&stats.counter(fmt::format("dllps_{}", dir), "DLLPs",
                            fmt::format("ACK and UpdateFC DLLPs sent {}", from_to))),
      busy_(&stats.counter(fmt::format("busy_ps_{}", dir), "ps", fmt::format("wire time used {}", from_to))) {
  if (waves.enabled()) {
    traced_ = true;
    // <link>.down.busy, <link>.down.busy_ns: a scope per direction.
    const std::string group = Waves::group_name(stats.scope());
    waves.trace(level_, Waves::signal_name(stats.scope(), fmt::format("{}.busy", dir)), group);
    waves.trace(busy_ns_, Waves::signal_name(stats.scope(), fmt::format("{}.busy_ns", dir)), group,
                Waves::Count::Total);
  }
}

void LinkDirection::occupy(Tick start, Tick wire) {
  *busy_ += wire;
  if (!traced_) return;
  // Pieces come in booking order, nearly in time order; clipping the rare
  // one that starts before the last drawn end keeps the flag's intervals
  // apart, as the waveform needs.
  Tick end = start + wire;
  start = std::max(start, traced_until_);
  if (end <= start) return;
  traced_until_ = end;
  eq_.at(start, [this] { level_ = true; });
  eq_.at(end, [this, len = end - start] {
    level_ = false;
    traced_ps_ += len;
    busy_ns_ = traced_ps_ / NS;
  });
}

Tick LinkDirection::send_tlps(const LinkTiming& rate, Tick ready, const TlpBurst& b) {
  Tick wire = rate.wire_time(b.bytes);
  Tick end;
  if (b.may_pass) {
    ordered_.steal(ready, wire);
    end = small_.book(ready, wire);
  } else {
    end = ordered_.book(ready, wire);
  }
  occupy(end - wire, wire);
  *payload_ += b.payload;
  *wire_ += b.bytes;
  *tlps_ += b.tlps;
  return end;
}

void LinkDirection::send_dllps(const LinkTiming& rate, Tick at, uint64_t n) {
  uint64_t bytes = n * LinkTiming::kDllpBytes;
  Tick wire = rate.wire_time(bytes);
  // The flag shows them after what is queued.
  Tick queued_until = std::max(ordered_.free_at(), small_.free_at());
  ordered_.steal(at, wire);
  small_.steal(at, wire);
  occupy(std::max(at, queued_until), wire);
  *dllps_ += n;
  *wire_ += bytes;
}

LinkDirection::Stats LinkDirection::stats() const {
  return {payload_->value, wire_->value, tlps_->value, dllps_->value, busy_->value};
}

nlohmann::json LinkDirection::summary(Tick elapsed) const {
  Stats s = stats();
  double secs = double(elapsed) / 1e12;
  return nlohmann::json{{"payload_bytes", s.payload_bytes},
                        {"wire_bytes", s.wire_bytes},
                        {"tlps", s.tlps},
                        {"dllps", s.dllps},
                        {"busy_s", double(s.busy_ps) / 1e12},
                        {"utilisation", elapsed ? double(s.busy_ps) / double(elapsed) : 0.0},
                        {"payload_GBps", elapsed ? double(s.payload_bytes) / secs / 1e9 : 0.0}};
}

}  // namespace vp::pcie
