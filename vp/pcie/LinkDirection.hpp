// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One direction of one PCIe link's wire: what PcieLink has two of for an
// endpoint's path and PcieSwitch two of for its upstream link, so that both
// book, count and draw their traffic the same way.
//
// Two first-come-first-served queues share the wire: `ordered` for bulk
// transfers and posted writes that keep their order, `small` for the TLPs
// that slip between them (read requests, completions and writes of at most
// 64 bytes, configuration TLPs); a small TLP delays the ordered work queued
// behind it by its wire time, as DLLPs do both queues'. Counters (bytes,
// wire bytes, TLPs, DLLPs, busy time) and the waveform's busy flag and busy
// time are named after the direction ("down", "up") in the owner's scope.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "vp/core/EventQueue.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/core/Waves.hpp"
#include "vp/pcie/LinkTiming.hpp"

namespace vp::pcie {

// What one transfer puts on the wire of each hop it crosses: `tlps` TLPs
// carrying `payload` bytes, `bytes` on the wire with their overhead, and the
// DLLPs their receiver owes back.
struct TlpBurst {
  uint64_t payload = 0, bytes = 0, tlps = 0, dllps = 0;
  bool may_pass = false;  // slips between ordered transfers
};

class LinkDirection {
 public:
  struct Stats {
    uint64_t payload_bytes = 0, wire_bytes = 0, tlps = 0, dllps = 0;
    Tick busy_ps = 0;  // wire time of everything sent, TLPs and DLLPs
  };

  // `dir`: "down" or "up"; `from_to`: how the counters describe it
  // ("host -> device"). The waveform's transitions go on `eq`.
  LinkDirection(const StatGroup& stats, Waves& waves, EventQueue& eq, const char* dir, const char* from_to);
  LinkDirection(const LinkDirection&) = delete;
  LinkDirection& operator=(const LinkDirection&) = delete;

  // Sends the TLPs of `b` at `rate`, ready at `ready`; returns when the
  // last one leaves. Their receiver's DLLPs (b.dllps) are the caller's to
  // send the other way.
  Tick send_tlps(const LinkTiming& rate, Tick ready, const TlpBurst& b);
  // `n` DLLPs at `rate` from `at`: queued work finishes later by their wire
  // time; an idle direction sends them at once.
  void send_dllps(const LinkTiming& rate, Tick at, uint64_t n);

  uint64_t tlps_sent() const { return tlps_->value; }
  Stats stats() const;
  // Bytes, TLPs, DLLPs, busy time, utilisation (busy / elapsed) and payload
  // bandwidth over `elapsed` of simulated time.
  nlohmann::json summary(Tick elapsed) const;

 private:
  void occupy(Tick start, Tick wire);

  EventQueue& eq_;
  FcfsResource ordered_, small_;
  Counter *payload_, *wire_, *tlps_, *dllps_, *busy_;
  // Waveform: a busy flag and the busy time so far, from the booked
  // intervals clipped so that they never overlap.
  bool traced_ = false, level_ = false;
  uint64_t busy_ns_ = 0;
  Tick traced_until_ = 0, traced_ps_ = 0;
};

}  // namespace vp::pcie
