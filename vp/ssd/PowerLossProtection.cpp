// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/PowerLossProtection.hpp"

namespace vp::ssd {

void PowerLossProtection::declare_params(const ParamScope& r) {
  r.boolean("enabled", false,
            "power-loss protection: on a power failure the drive drains its DRAM buffers to flash on hold-up "
            "power, and reports no volatile write cache (NVMe VWC 0)");
  // Not in the papers: enterprise drives' capacitors hold them up for tens
  // of milliseconds, sized to drain their write buffer, not a whole cache.
  r.time("holdup", "20ms",
         "with ssd.plp.enabled: how long the capacitors keep the drive running after the host's power fails "
         "(its energy over its power draw); pages still buffered then are lost");
}

PowerLossProtection::PowerLossProtection(sc_core::sc_module_name name, Services& svc, const std::string& scope)
    : sc_module(name),
      buffers("buffers"),
      enabled_(ScopedConfig(svc.cfg, scope).get_bool("enabled")),
      holdup_(ScopedConfig(svc.cfg, scope).get_time("holdup")) {}

void PowerLossProtection::power_fail() {
  failing_ = true;
  failed_at_ = now_ps();
  buffered_ = buffers->undrained_pages().size();
  buffers->drain([this] {
    drained_ = true;
    drained_at_ = now_ps();
    Calendar::get().pause();
  });
}

std::vector<uint64_t> PowerLossProtection::cut() {
  std::vector<uint64_t> lost = drained_ ? std::vector<uint64_t>{} : buffers->undrained_pages();
  lost_ = lost.size();
  return lost;
}

nlohmann::json PowerLossProtection::summary() const {
  nlohmann::json j;
  j["holdup_s"] = double(holdup_) / 1e12;
  j["buffered_pages"] = buffered_;  // dirty when the power failed
  j["lost_pages"] = lost_;
  j["drained"] = drained_;
  if (drained_) j["drain_time_s"] = double(drained_at_ - failed_at_) / 1e12;
  return j;
}

}  // namespace vp::ssd
