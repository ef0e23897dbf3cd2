// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The arithmetic of a PCIe link: its rate per direction after the line code
// (generation, width, encoding), how a transfer is cut into TLPs, their wire
// time and the DLLPs the receiver owes for them. A PcieLink has one for its
// whole path; a PcieSwitch has one for its upstream link, of which only the
// rate counts (the TLPs are cut by the link below it).
#include <cstdint>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Units.hpp"

namespace vp::pcie {

struct LinkTiming {
  static constexpr uint32_t kDllpBytes = 8;  // on the wire, framing included
  double bytes_per_s = 0;                    // per direction, after line encoding
  unsigned generation = 3, lanes = 4;        // what the endpoint's Link Capabilities advertise
  uint32_t max_payload = 256, max_read_request = 512, tlp_overhead = 24;
  uint32_t ack_coalesce = 4, fc_coalesce = 4;  // TLPs received per ACK / UpdateFC; 0: none
  unsigned switches = 0;                       // switches on the path
  Tick link_latency = 0;                       // one link hop, one way
  Tick latency = 0;                            // root complex to endpoint, one way

  // The rate's keys in a link's scope (gen, lanes, encoding) and the rate
  // they give: bytes_per_s, generation and lanes set, the rest default.
  static void declare_rate(const ParamScope& r);
  static LinkTiming rate_from(const ScopedConfig& c);

  // TLPs needed to carry `payload` bytes in pieces of at most `chunk` (a
  // payload of 0 is one header-only TLP).
  static uint64_t tlps(uint64_t payload, uint32_t chunk) { return payload == 0 ? 1 : (payload + chunk - 1) / chunk; }
  Tick wire_time(uint64_t bytes) const;
  // Wire time of `payload` bytes sent as TLPs of at most `chunk` bytes.
  Tick serialize(uint64_t payload, uint32_t chunk) const;
  // DLLPs owed when `n` more TLPs arrive after `before` (ACKs and UpdateFCs).
  uint64_t dllps_owed(uint64_t before, uint64_t n) const;
};

}  // namespace vp::pcie
