#include "vp/pcie/PcieLink.hpp"

#include <fmt/format.h>

namespace vp::pcie {

void PcieLink::declare_params(ParamRegistry& r) {
  // Defaults: FlashShare Table 2, PCIe 3.0 x4.
  r.integer("pcie.gen", 3, "PCIe generation (sets the rate per lane and, with encoding=auto, the line code)")
      .range(1, 6);
  r.integer("pcie.lanes", 4, "link width in lanes").range(1, 32);
  r.choice("pcie.encoding", "auto", {"auto", "8b10b", "128b130b", "none"},
           "line encoding; auto: 8b/10b for gen 1-2, 128b/130b for gen 3+");
  r.size("pcie.tlp_overhead", "24B", "bytes each TLP adds on the wire (framing, sequence, header, LCRC)")
      .range(0, 256);
  r.size("pcie.max_payload", "256B", "maximum TLP payload (MPS)").range(128, 4096);
  r.size("pcie.max_read_request", "512B", "maximum read request size (MRRS)").range(128, 4096);
  r.time("pcie.latency", "300ns", "one-way latency of a TLP through the link, PHY and root complex");
  r.rule([](const Config& c) {
    for (const char* k : {"pcie.max_payload", "pcie.max_read_request"}) {
      uint64_t v = c.get_size(k);
      if (v & (v - 1)) c.fail(k, "must be a power of two between 128B and 4KiB");
    }
    int64_t lanes = c.get_int("pcie.lanes");
    if (lanes & (lanes - 1) && lanes != 12) c.fail("pcie.lanes", "must be 1, 2, 4, 8, 12, 16 or 32");
  });
}

LinkTiming PcieLink::timing_from(const Config& c) {
  static const double gt_per_lane[] = {0, 2.5e9, 5e9, 8e9, 16e9, 32e9, 64e9};
  int64_t gen = c.get_int("pcie.gen");
  std::string enc = c.get_string("pcie.encoding");
  if (enc == "auto") enc = gen <= 2 ? "8b10b" : "128b130b";
  double eff = enc == "8b10b" ? 8.0 / 10.0 : enc == "128b130b" ? 128.0 / 130.0 : 1.0;
  LinkTiming t;
  t.bytes_per_s = gt_per_lane[gen] * double(c.get_int("pcie.lanes")) * eff / 8.0;
  t.max_payload = static_cast<uint32_t>(c.get_size("pcie.max_payload"));
  t.max_read_request = static_cast<uint32_t>(c.get_size("pcie.max_read_request"));
  t.tlp_overhead = static_cast<uint32_t>(c.get_size("pcie.tlp_overhead"));
  t.latency = c.get_time("pcie.latency");
  return t;
}

Tick LinkTiming::serialize(uint64_t payload, uint32_t chunk) const {
  uint64_t tlps = payload == 0 ? 1 : (payload + chunk - 1) / chunk;
  double wire = double(payload + tlps * tlp_overhead);
  return static_cast<Tick>(wire * 1e12 / bytes_per_s + 0.5);
}

PcieLink::PcieLink(sc_core::sc_module_name name, Services& svc)
    : sc_module(name),
      down_in("down_in"),
      up_in("up_in"),
      down_out("down_out"),
      up_out("up_out"),
      t_(timing_from(svc.cfg)) {
  down_.bytes = &svc.stats.counter("pcie.bytes_down", "bytes", "payload bytes sent host -> device");
  up_.bytes = &svc.stats.counter("pcie.bytes_up", "bytes", "payload bytes sent device -> host");
  down_in.register_b_transport(this, &PcieLink::b_down);
  up_in.register_b_transport(this, &PcieLink::b_up);
}

Tick PcieLink::cross(Direction& d, Tick ready, uint64_t payload, uint32_t chunk, bool may_pass) {
  *d.bytes += payload;
  Tick wire = t_.serialize(payload, chunk);
  if (!may_pass) return d.ordered.book(ready, wire) + t_.latency;
  d.ordered.steal(ready, wire);
  return d.small.book(ready, wire) + t_.latency;
}

void PcieLink::transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, Direction& fwd, Direction& back,
                         tlm_utils::simple_initiator_socket<PcieLink>& out, bool writes_ordered) {
  Tick now = now_ps();
  Tick ready = now + delay.value();
  uint32_t len = gp.get_data_length();
  if (gp.is_write()) {
    Tick arrive = cross(fwd, ready, len, t_.max_payload, !writes_ordered && len <= 64);
    delay = to_sc(arrive - now);
    out->b_transport(gp, delay);
    return;
  }
  // Read: header-only requests of at most MRRS each, then completions with data.
  uint64_t requests = (len + t_.max_read_request - 1) / t_.max_read_request;
  Tick arrive = cross(fwd, ready, 0, 1, true);
  for (uint64_t i = 1; i < requests; ++i) arrive = cross(fwd, ready, 0, 1, true);
  delay = to_sc(arrive - now);
  out->b_transport(gp, delay);
  if (!gp.is_response_ok()) return;
  Tick back_ready = now + delay.value();
  delay = to_sc(cross(back, back_ready, len, t_.max_payload, len <= 64) - now);
}

}  // namespace vp::pcie
