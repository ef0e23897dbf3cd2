// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/PcieSwitch.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

#include "vp/pcie/PcieLink.hpp"

namespace vp::pcie {

void PcieSwitch::declare_params(const ParamScope& r) { LinkTiming::declare_rate(r); }

PcieSwitch::PcieSwitch(sc_core::sc_module_name name, Services& svc, const std::string& scope)
    : sc_module(name),
      cfg_(svc.cfg),
      t_(LinkTiming::rate_from(ScopedConfig(svc.cfg, scope))),
      eq_("eq"),
      stats_(svc.stats, scope),
      down_(stats_, svc.waves, eq_, "down", "root port -> switch"),
      up_(stats_, svc.waves, eq_, "up", "switch -> root port") {
  stats_.section("switch", "the switch's upstream link, shared by the ports below it: raw rate, ports, per direction traffic and utilisation", [this] { return summary(now_ps()); });
}

void PcieSwitch::attach(PcieLink& link) {
  if (link.timing().switches == 0)
    cfg_.fail(link.scope() + ".switches",
              fmt::format("the link is below switch {}, one of the switches it counts: 1 or more", scope()));
  if (link.upstream_)
    throw std::logic_error(fmt::format("PCIe link {}: already below a switch", link.scope()));
  auto down = link.down_stats(), up = link.up_stats();
  if (down.wire_bytes || up.wire_bytes)
    throw std::logic_error(fmt::format("PCIe link {}: attached to switch {} after carrying traffic", link.scope(),
                                       scope()));
  link.upstream_ = this;
  ports_.push_back(link.scope());
}

Tick PcieSwitch::carry(bool up, Tick start, Tick end, const TlpBurst& b, Tick hop_latency) {
  LinkDirection &d = up ? up_ : down_, &rev = up ? down_ : up_;
  end = std::max(end, d.send_tlps(t_, start, b));
  if (b.dllps) rev.send_dllps(t_, end + hop_latency, b.dllps);
  return end;
}

nlohmann::json PcieSwitch::summary(Tick elapsed) const {
  return {{"raw_GBps", t_.bytes_per_s / 1e9},
          {"ports", ports_},
          {"down", down_.summary(elapsed)},
          {"up", up_.summary(elapsed)}};
}

}  // namespace vp::pcie
