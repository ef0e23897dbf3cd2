// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A PCIe link between the root complex and one endpoint. Each direction is a
// serial pipe of the configured generation (1-5) and width (x1-x16) after the
// line code (8b/10b for gen 1-2, 128b/130b for gen 3-5): a transfer is cut
// into TLPs of at most max_payload bytes, each paying the per-TLP overhead.
// A write (posted) crosses once; a read sends header-only requests of at most
// max_read_request bytes one way and the completions with data back the
// other way, cut at max_payload.
//
// Sharing a direction: bulk transfers and the device's posted writes keep
// their order (first come first served; PCIe keeps posted writes in order, so
// a completion entry follows its data). Read requests, completions of at most
// 64 bytes (command fetches, PRP entries), small MMIO writes, configuration
// TLPs and DLLPs slip between the TLPs of bulk transfers, as a DMA engine
// interleaves them, and delay the bulk traffic queued behind by their own
// wire time.
//
// DLLPs: the receiver of TLPs answers in the reverse direction with one ACK
// DLLP per `ack_coalesce` TLPs and one UpdateFC DLLP (returning the credits)
// per `fc_coalesce` TLPs, counted over all TLPs received in that direction;
// each DLLP is 8 bytes on the wire (6 bytes plus framing). They are sent when
// the TLPs that owe them have crossed one link hop, and take the reverse
// direction's wire time: when that direction has work queued, the work
// behind finishes later by the DLLPs' wire time; when it is idle, they use
// idle time and delay nothing.
//
// Latency, one way: rc_latency + (switches + 1) * link_latency +
// switches * switch_latency. Switches are cut-through and add latency only,
// with every hop at the link's generation and width, so one pipe per
// direction stands for the whole path (each hop carries its own DLLPs, at
// the same share of its own bandwidth); the one exception is a PcieSwitch
// the link is attached to (PcieSwitch::attach), whose upstream link also
// carries every TLP and DLLP of the other links below it.
//
// Sockets:
//   down_in -> down_out : MMIO from the host to the endpoint's BARs
//   up_in   -> up_out   : DMA and MSI-X from the endpoint to host memory
//   cfg_in  -> cfg_out  : configuration requests from the host to the
//                         endpoint's configuration space; the address is the
//                         register offset (0-4095), an access is 1-4 bytes
//                         within one dword. Non-posted: the request TLP goes
//                         down (a write carries its dword), a completion TLP
//                         comes back up (a read's with its dword). With no
//                         configuration space bound, requests get an
//                         address error and take no time.
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "vp/core/EventQueue.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/pcie/LinkDirection.hpp"
#include "vp/pcie/LinkTiming.hpp"

namespace vp::pcie {

class PcieSwitch;

class PcieLink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PcieLink> down_in, up_in;
  tlm_utils::simple_initiator_socket<PcieLink> down_out, up_out;
  // Optional until the endpoint model has a configuration space to bind.
  tlm_utils::simple_target_socket_optional<PcieLink> cfg_in;
  tlm_utils::simple_initiator_socket_optional<PcieLink> cfg_out;

  // Parameters, statistics and the summary section in the link's own scope
  // ("pcie" for the SSD's link; another link gets keys of its own).
  static void declare_params(const ParamScope& reg);
  static LinkTiming timing_from(const ScopedConfig& cfg);
  PcieLink(sc_core::sc_module_name name, Services& svc, const std::string& scope);
  const LinkTiming& timing() const { return t_; }
  const std::string& scope() const { return stats_.scope(); }

  using DirectionStats = LinkDirection::Stats;
  DirectionStats down_stats() const { return down_.stats(); }
  DirectionStats up_stats() const { return up_.stats(); }
  // Per direction: bytes, utilisation (busy / elapsed) and effective payload
  // bandwidth over `elapsed` of simulated time; configuration requests.
  nlohmann::json summary(Tick elapsed) const;
  uint64_t events() const { return eq_.fired(); }  // waveform updates only
  // The host lost power and the link went down: from now on the host's
  // requests reach nothing (writes are dropped, reads return all ones, as
  // from a removed device) and the endpoint's DMA and messages fail.
  void link_down() { link_up_ = false; }
  bool link_up() const { return link_up_; }
  // The switch whose upstream link this link's traffic also crosses, if any.
  const PcieSwitch* upstream() const { return upstream_; }

 private:
  friend class PcieSwitch;  // attach() sets upstream_
  // `writes_ordered`: small posted writes keep their place behind bulk ones
  // (a completion entry must not overtake the data it reports).
  void transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, LinkDirection& fwd, LinkDirection& back,
                 tlm_utils::simple_initiator_socket<PcieLink>& out, bool writes_ordered);
  void b_down(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    transport(gp, delay, down_, up_, down_out, false);
  }
  void b_up(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) { transport(gp, delay, up_, down_, up_out, true); }
  void b_cfg(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // Sends `tlps` TLPs carrying `payload` bytes in all over `d`, ready at
  // `ready`, and through the switch's upstream link when there is one;
  // returns when the last one reaches the far end. The receivers' DLLPs go
  // the other way.
  Tick send(LinkDirection& d, LinkDirection& rev, Tick ready, uint64_t payload, uint64_t tlps, bool may_pass);

  LinkTiming t_;
  EventQueue eq_;
  StatGroup stats_;
  LinkDirection down_, up_;
  Counter &cfg_reads_, &cfg_writes_;
  bool link_up_ = true;
  PcieSwitch* upstream_ = nullptr;
  // A request that finds the link down: false if it went on as usual.
  bool refused(tlm::tlm_generic_payload& gp, bool from_host) const;
};

}  // namespace vp::pcie
