// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/PcieLink.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

namespace vp::pcie {

void PcieLink::declare_params(const ParamScope& r) {
  // Defaults: FlashShare Table 2, PCIe 3.0 x4.
  r.integer("gen", 3, "PCIe generation 1-5 (2.5, 5, 8, 16, 32 GT/s per lane; with encoding=auto, the line code)")
      .range(1, 5);
  r.integer("lanes", 4, "link width in lanes: 1, 2, 4, 8, 12 or 16").range(1, 16);
  r.choice("encoding", "auto", {"auto", "8b10b", "128b130b", "none"},
           "line encoding; auto: 8b/10b for gen 1-2, 128b/130b for gen 3-5");
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
    int64_t lanes = c.get_int("lanes");
    if (lanes & (lanes - 1) && lanes != 12) c.fail("lanes", "must be 1, 2, 4, 8, 12 or 16");
  });
}

LinkTiming PcieLink::timing_from(const ScopedConfig& c) {
  static const double gt_per_lane[] = {0, 2.5e9, 5e9, 8e9, 16e9, 32e9};
  int64_t gen = c.get_int("gen");
  // auto: the generation's own line code (8b/10b up to Gen2, 128b/130b from Gen3).
  enum class Code { Auto, B8B10, B128B130, None };
  Code enc = c.get_enum<Code>("encoding", {{"auto", Code::Auto},
                                                {"8b10b", Code::B8B10},
                                                {"128b130b", Code::B128B130},
                                                {"none", Code::None}});
  if (enc == Code::Auto) enc = gen <= 2 ? Code::B8B10 : Code::B128B130;
  double eff = enc == Code::B8B10 ? 8.0 / 10.0 : enc == Code::B128B130 ? 128.0 / 130.0 : 1.0;
  LinkTiming t;
  t.generation = static_cast<unsigned>(gen);
  t.lanes = static_cast<unsigned>(c.get_int("lanes"));
  t.bytes_per_s = gt_per_lane[gen] * double(t.lanes) * eff / 8.0;
  t.max_payload = static_cast<uint32_t>(c.get_size("max_payload"));
  t.max_read_request = static_cast<uint32_t>(c.get_size("max_read_request"));
  t.tlp_overhead = static_cast<uint32_t>(c.get_size("tlp_overhead"));
  t.ack_coalesce = static_cast<uint32_t>(c.get_int("ack_coalesce"));
  t.fc_coalesce = static_cast<uint32_t>(c.get_int("fc_coalesce"));
  t.link_latency = c.get_time("link_latency");
  auto switches = static_cast<Tick>(c.get_int("switches"));
  t.latency = c.get_time("rc_latency") + (switches + 1) * t.link_latency +
              switches * c.get_time("switch_latency");
  return t;
}

Tick LinkTiming::wire_time(uint64_t bytes) const {
  return round_ps(double(bytes) * 1e12 / bytes_per_s);
}

Tick LinkTiming::serialize(uint64_t payload, uint32_t chunk) const {
  return wire_time(payload + tlps(payload, chunk) * tlp_overhead);
}

uint64_t LinkTiming::dllps_owed(uint64_t before, uint64_t n) const {
  auto every = [&](uint32_t k) { return k ? (before + n) / k - before / k : 0; };
  return every(ack_coalesce) + every(fc_coalesce);
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
      cfg_reads_(stats_.counter("cfg_reads", "requests", "configuration reads host -> device")),
      cfg_writes_(stats_.counter("cfg_writes", "requests", "configuration writes host -> device")) {
  stats_.section(scope, scope, [this] { return summary(now_ps()); });
  auto register_direction = [&](Direction* d, const char* dir, const char* from_to) {
    d->payload = &stats_.counter(fmt::format("bytes_{}", dir), "bytes", fmt::format("payload bytes sent {}", from_to));
    d->wire = &stats_.counter(fmt::format("wire_bytes_{}", dir), "bytes",
                              fmt::format("bytes on the wire {}: payload, TLP overhead and DLLPs", from_to));
    d->tlps = &stats_.counter(fmt::format("tlps_{}", dir), "TLPs", fmt::format("TLPs sent {}", from_to));
    d->dllps = &stats_.counter(fmt::format("dllps_{}", dir), "DLLPs",
                               fmt::format("ACK and UpdateFC DLLPs sent {}", from_to));
    d->busy = &stats_.counter(fmt::format("busy_ps_{}", dir), "ps", fmt::format("wire time used {}", from_to));
    if (svc.waves.enabled()) {
      d->traced = true;
      svc.waves.trace(d->level, Waves::signal_name(scope, fmt::format("{}_busy", dir)), scope);
      svc.waves.trace(d->busy_ns, Waves::signal_name(scope, fmt::format("{}_busy_ns", dir)), scope);
    }
  };
  register_direction(&down_, "down", "host -> device");
  register_direction(&up_, "up", "device -> host");
  down_in.register_b_transport(this, &PcieLink::b_down);
  up_in.register_b_transport(this, &PcieLink::b_up);
  cfg_in.register_b_transport(this, &PcieLink::b_cfg);
}

void PcieLink::occupy(Direction& d, Tick start, Tick wire) {
  *d.busy += wire;
  if (!d.traced) return;
  // Pieces come in booking order, nearly in time order; clipping the rare
  // one that starts before the last drawn end keeps the flag's intervals
  // apart, as the waveform needs.
  Tick end = start + wire;
  start = std::max(start, d.traced_until);
  if (end <= start) return;
  d.traced_until = end;
  eq_.at(start, [&d] { d.level = true; });
  eq_.at(end, [&d, len = end - start] {
    d.level = false;
    d.traced_ps += len;
    d.busy_ns = d.traced_ps / NS;
  });
}

Tick PcieLink::send(Direction& d, Direction& rev, Tick ready, uint64_t payload, uint64_t tlps, bool may_pass) {
  uint64_t bytes = payload + tlps * t_.tlp_overhead;
  Tick wire = t_.wire_time(bytes);
  Tick end;
  if (may_pass) {
    d.ordered.steal(ready, wire);
    end = d.small.book(ready, wire);
  } else {
    end = d.ordered.book(ready, wire);
  }
  occupy(d, end - wire, wire);
  *d.payload += payload;
  *d.wire += bytes;
  uint64_t owed = t_.dllps_owed(d.tlps->value, tlps);
  *d.tlps += tlps;
  if (owed) send_dllps(rev, end + t_.link_latency, owed);
  return end + t_.latency;
}

void PcieLink::send_dllps(Direction& d, Tick at, uint64_t n) {
  uint64_t bytes = n * LinkTiming::kDllpBytes;
  Tick wire = t_.wire_time(bytes);
  // Queued work finishes later by the DLLPs' wire time; an idle direction
  // sends them at once. The flag shows them after what is queued.
  Tick queued_until = std::max(d.ordered.free_at(), d.small.free_at());
  d.ordered.steal(at, wire);
  d.small.steal(at, wire);
  occupy(d, std::max(at, queued_until), wire);
  *d.dllps += n;
  *d.wire += bytes;
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

void PcieLink::transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, Direction& fwd, Direction& back,
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

PcieLink::DirectionStats PcieLink::stats_of(const Direction& d) {
  return {d.payload->value, d.wire->value, d.tlps->value, d.dllps->value, d.busy->value};
}

nlohmann::json PcieLink::summary(Tick elapsed) const {
  auto dir = [&](const Direction& d) {
    DirectionStats s = stats_of(d);
    double secs = double(elapsed) / 1e12;
    return nlohmann::json{{"payload_bytes", s.payload_bytes},
                          {"wire_bytes", s.wire_bytes},
                          {"tlps", s.tlps},
                          {"dllps", s.dllps},
                          {"busy_s", double(s.busy_ps) / 1e12},
                          {"utilisation", elapsed ? double(s.busy_ps) / double(elapsed) : 0.0},
                          {"payload_GBps", elapsed ? double(s.payload_bytes) / secs / 1e9 : 0.0}};
  };
  return {{"raw_GBps", t_.bytes_per_s / 1e9},
          {"one_way_latency_ns", double(t_.latency) / double(NS)},
          {"down", dir(down_)},
          {"up", dir(up_)},
          {"config_reads", cfg_reads_.value},
          {"config_writes", cfg_writes_.value}};
}

}  // namespace vp::pcie
