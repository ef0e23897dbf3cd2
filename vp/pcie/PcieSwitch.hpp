// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A PCIe switch whose downstream ports share one upstream link to the root
// port. A PcieLink stands for an endpoint's whole path at one rate; a link
// attached to the switch (attach()) also books every TLP and DLLP it carries,
// in either direction, on the switch's upstream link in that direction, so
// that endpoints below one switch share its bandwidth instead of each
// having the path to itself.
//
// Why a class of its own rather than a second pipe inside PcieLink: the
// upstream link is one resource for several links, with its own rate
// (`gen`, `lanes`, `encoding`: a x8 upstream carries two x4 endpoints at
// full rate, a x4 one makes them share), its own counters and waveform, and
// it must outlive and be seen by every link below it. Both book their wire
// the same way (LinkDirection).
//
// Booking, cut-through: a transfer takes its own link first, from s1 for
// W_down of wire time, then the upstream link from s2 = max(s1, when the
// upstream is free) for W_up (the same bytes at the upstream's rate, in the
// same queue: ordered, or slipping between ordered transfers); it arrives
// when the slower hop is done, at max(s1 + W_down, s2 + W_up) plus the
// link's latency. The switch buffers little: a TLP holds the upstream link
// while it crosses its port's link, so it starts there no earlier than on
// its port's link, in either direction. The receiver of the upstream
// hop answers on the upstream link's other direction with as many DLLPs
// as the port's link owes (counted per port at the port link's
// ack_coalesce and fc_coalesce: the merged stream would owe at most one
// fewer ACK and UpdateFC per port), link_latency after the slower hop is
// done: device -> host, the upstream hop cannot finish sooner; host ->
// device under a faster upstream, it could by the two hops' difference.
//
// A lone endpoint keeps its plain link's numbers bit for bit when the
// upstream is at least as fast: the upstream gets its bookings from the
// same instants at the same or shorter wire times, and its DLLPs at the
// same instants, so it is never busy when the link hands it a transfer
// (s2 == s1) and the link's own hop ends last.
//
// Hops and latency: the switch is one of the link's `switches` (the one
// nearest the root port, so its upstream link is the root port's), and adds
// no latency of its own: the link's one-way latency stays rc_latency +
// (switches + 1) * link_latency + switches * switch_latency. attach()
// refuses a link whose `switches` is 0. Further switches on the path stay
// latency only.
//
// Parameters in the switch's scope: the upstream link's gen, lanes and
// encoding. Statistics (bytes, wire bytes, TLPs, DLLPs, busy time per
// direction), the summary section (rate, ports, per direction bytes and
// utilisation) and the waveform's busy flags are the upstream link's, in
// the same scope and under the same names as a PcieLink's.
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/pcie/LinkDirection.hpp"
#include "vp/pcie/LinkTiming.hpp"

namespace vp::pcie {

class PcieLink;

class PcieSwitch : public sc_core::sc_module {
 public:
  static void declare_params(const ParamScope& r);
  PcieSwitch(sc_core::sc_module_name name, Services& svc, const std::string& scope);
  PcieSwitch(const PcieSwitch&) = delete;
  PcieSwitch& operator=(const PcieSwitch&) = delete;

  // Puts `link` below a downstream port: from now on its traffic also
  // crosses the upstream link. At elaboration, before the link carries
  // anything. Throws ConfigError (naming the link's `switches` key) when
  // the link counts no switch, std::logic_error when it is already below
  // a switch or has carried traffic.
  void attach(PcieLink& link);

  // Books `b` on the upstream link, device -> host when `up`, from `start`
  // (when it started on the port's link, which it left at `end`); returns
  // when the later of the two hops is done, and sends the DLLPs b owes the
  // other way `hop_latency` after that. Called by the attached links.
  Tick carry(bool up, Tick start, Tick end, const TlpBurst& b, Tick hop_latency);

  const LinkTiming& timing() const { return t_; }  // the upstream link's rate
  const std::string& scope() const { return stats_.scope(); }
  const std::vector<std::string>& ports() const { return ports_; }  // the attached links' scopes
  LinkDirection::Stats down_stats() const { return down_.stats(); }
  LinkDirection::Stats up_stats() const { return up_.stats(); }
  nlohmann::json summary(Tick elapsed) const;
  uint64_t events() const { return eq_.fired(); }  // waveform updates only

 private:
  const Config& cfg_;
  LinkTiming t_;
  EventQueue eq_;
  StatGroup stats_;
  LinkDirection down_, up_;
  std::vector<std::string> ports_;
};

}  // namespace vp::pcie
