// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/PcieLink.hpp"

#include <algorithm>
#include <cstring>

#include "vp/pcie/PcieSwitch.hpp"

namespace vp::pcie {

void PcieLink::declare_params(const ParamScope& r) {
  LinkTiming::declare_rate(r);
  r.size("tlp_overhead", "24B", "bytes each TLP adds on the wire (framing, sequence, header, LCRC)")
      .range(0, 256);
  r.size("max_payload", "256B", "maximum TLP payload (MPS)").range(128, 4096);
  r.size("max_read_request", "512B", "maximum read request size (MRRS)").range(128, 4096);
  r.integer("ack_coalesce", 4,
            "TLPs received per ACK DLLP (8 bytes on the wire) sent back the other way; 0: ACKs not modeled")
      .range(0, 4096);
  r.integer("fc_coalesce", 4,
            "TLPs received per UpdateFC DLLP (8 bytes on the wire) returning their credits the other way; "
            "0: not modeled")
      .range(0, 4096);
  // 150 + 150 ns: the 300 ns one-way latency the platform used before the
  // path was split into its parts.
  r.time("rc_latency", "150ns", "one-way latency of the root complex (root port to host memory and back)");
  r.time("link_latency", "150ns", "one-way latency of one link hop: PHY, data link layer and wire");
  r.integer("switches", 0, "PCIe switches between the root port and the endpoint (one more link hop each)")
      .range(0, 8);
  r.time("switch_latency", "120ns", "one-way cut-through latency of one switch");
  r.rule([](const ScopedConfig& c) {
    for (const char* k : {"max_payload", "max_read_request"}) {
      uint64_t v = c.get_size(k);
      if (v & (v - 1)) c.fail(k, "must be a power of two between 128B and 4KiB");
    }
  });
}

LinkTiming PcieLink::timing_from(const ScopedConfig& c) {
  LinkTiming t = LinkTiming::rate_from(c);
  t.max_payload = static_cast<uint32_t>(c.get_size("max_payload"));
  t.max_read_request = static_cast<uint32_t>(c.get_size("max_read_request"));
  t.tlp_overhead = static_cast<uint32_t>(c.get_size("tlp_overhead"));
  t.ack_coalesce = static_cast<uint32_t>(c.get_int("ack_coalesce"));
  t.fc_coalesce = static_cast<uint32_t>(c.get_int("fc_coalesce"));
  t.link_latency = c.get_time("link_latency");
  t.switches = static_cast<unsigned>(c.get_int("switches"));
  Tick switches = t.switches;
  t.latency = c.get_time("rc_latency") + (switches + 1) * t.link_latency +
              switches * c.get_time("switch_latency");
  return t;
}

PcieLink::PcieLink(sc_core::sc_module_name name, Services& svc, const std::string& scope)
    : sc_module(name),
      down_in("down_in"),
      up_in("up_in"),
      down_out("down_out"),
      up_out("up_out"),
      cfg_in("cfg_in"),
      cfg_out("cfg_out"),
      t_(timing_from(ScopedConfig(svc.cfg, scope))),
      eq_("eq"),
      stats_(svc.stats, scope),
      down_(stats_, svc.waves, eq_, "down", "host -> device"),
      up_(stats_, svc.waves, eq_, "up", "device -> host"),
      cfg_reads_(stats_.counter("cfg_reads", "requests", "configuration reads host -> device")),
      cfg_writes_(stats_.counter("cfg_writes", "requests", "configuration writes host -> device")) {
  stats_.section("pcie", "the link: raw rate, latency, per direction payload, wire bytes, TLPs, DLLPs, busy time, utilisation", [this] { return summary(now_ps()); });
  down_in.register_b_transport(this, &PcieLink::b_down);
  up_in.register_b_transport(this, &PcieLink::b_up);
  cfg_in.register_b_transport(this, &PcieLink::b_cfg);
}

Tick PcieLink::send(LinkDirection& d, LinkDirection& rev, Tick ready, uint64_t payload, uint64_t tlps,
                    bool may_pass) {
  TlpBurst b{payload, payload + tlps * t_.tlp_overhead, tlps, t_.dllps_owed(d.tlps_sent(), tlps), may_pass};
  Tick end = d.send_tlps(t_, ready, b);
  if (b.dllps) rev.send_dllps(t_, end + t_.link_latency, b.dllps);
  if (upstream_) end = upstream_->carry(&d == &up_, end - t_.wire_time(b.bytes), end, b, t_.link_latency);
  return end + t_.latency;
}

bool PcieLink::refused(tlm::tlm_generic_payload& gp, bool from_host) const {
  if (link_up_) return false;
  if (!from_host) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
  } else {
    if (gp.is_read()) std::memset(gp.get_data_ptr(), 0xFF, gp.get_data_length());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  return true;
}

void PcieLink::transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, LinkDirection& fwd, LinkDirection& back,
                         tlm_utils::simple_initiator_socket<PcieLink>& out, bool writes_ordered) {
  if (refused(gp, &fwd == &down_)) return;
  Tick now = now_ps();
  Tick ready = now + delay.value();
  uint32_t len = gp.get_data_length();
  if (gp.is_write()) {
    Tick arrive =
        send(fwd, back, ready, len, LinkTiming::tlps(len, t_.max_payload), !writes_ordered && len <= 64);
    delay = to_sc(arrive - now);
    out->b_transport(gp, delay);
    return;
  }
  // Read: header-only requests of at most MRRS each, then completions with data.
  uint64_t requests = std::max<uint64_t>(1, (len + t_.max_read_request - 1) / t_.max_read_request);
  Tick arrive = send(fwd, back, ready, 0, requests, true);
  delay = to_sc(arrive - now);
  out->b_transport(gp, delay);
  if (!gp.is_response_ok()) return;
  Tick back_ready = now + delay.value();
  delay = to_sc(send(back, fwd, back_ready, len, LinkTiming::tlps(len, t_.max_payload), len <= 64) - now);
}

void PcieLink::b_cfg(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (refused(gp, true)) return;
  uint64_t addr = gp.get_address();
  uint32_t len = gp.get_data_length();
  if (cfg_out.size() == 0 || addr >= 4096) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (len == 0 || (addr & 3) + len > 4 || gp.get_streaming_width() < len) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (!gp.is_read() && !gp.is_write()) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  bool write = gp.is_write();
  ++(write ? cfg_writes_ : cfg_reads_);
  Tick now = now_ps();
  // A configuration TLP carries at most one dword: the write's data going
  // down, the read's data coming back; the other one is header only.
  Tick arrive = send(down_, up_, now + delay.value(), write ? 4 : 0, 1, true);
  delay = to_sc(arrive - now);
  cfg_out->b_transport(gp, delay);
  bool data = !write && gp.is_response_ok();
  delay = to_sc(send(up_, down_, now + delay.value(), data ? 4 : 0, 1, true) - now);
}

nlohmann::json PcieLink::summary(Tick elapsed) const {
  return {{"raw_GBps", t_.bytes_per_s / 1e9},
          {"one_way_latency_ns", double(t_.latency) / double(NS)},
          {"down", down_.summary(elapsed)},
          {"up", up_.summary(elapsed)},
          {"config_reads", cfg_reads_.value},
          {"config_writes", cfg_writes_.value}};
}

}  // namespace vp::pcie
