// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/LinkTiming.hpp"

namespace vp::pcie {

void LinkTiming::declare_rate(const ParamScope& r) {
  // Defaults: FlashShare Table 2, PCIe 3.0 x4.
  r.integer("gen", 3, "PCIe generation 1-5 (2.5, 5, 8, 16, 32 GT/s per lane; with encoding=auto, the line code)")
      .range(1, 5);
  r.integer("lanes", 4, "link width in lanes: 1, 2, 4, 8, 12 or 16").range(1, 16);
  r.choice("encoding", "auto", {"auto", "8b10b", "128b130b", "none"},
           "line encoding; auto: 8b/10b for gen 1-2, 128b/130b for gen 3-5");
  r.rule([](const ScopedConfig& c) {
    int64_t lanes = c.get_int("lanes");
    if (lanes & (lanes - 1) && lanes != 12) c.fail("lanes", "must be 1, 2, 4, 8, 12 or 16");
  });
}

LinkTiming LinkTiming::rate_from(const ScopedConfig& c) {
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

}  // namespace vp::pcie
