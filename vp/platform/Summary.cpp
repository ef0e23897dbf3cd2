// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/Summary.hpp"

#include "vp/accel/IoAccelerator.hpp"
#include "vp/core/BuildInfo.hpp"
#include "vp/core/Calendar.hpp"
#include "vp/host/sched/HostCore.hpp"
#include "vp/platform/DriveList.hpp"

namespace vp::platform {

void declare_parts(StatRegistry& stats, const SummaryParts& parts) {
  stats.part("host", {host::HostCore::kScope});
  for (unsigned k = 0; k < parts.drives.size(); ++k) {
    const std::string& d = parts.drives[k];
    // Drive 0's link is "pcie" whatever the drive's name; drive k's is under its own.
    std::vector<std::string> scopes{d};
    if (std::string link = link_scope(parts.drives, k); link.rfind(d + ".", 0) != 0) scopes.push_back(link);
    stats.part_in("drives", {{"name", d}, {"path", parts.path ? parts.path(k) : nlohmann::json()}}, scopes);
  }
  if (parts.accelerator) stats.part_in("accelerators", {{"name", accel::IoAccelerator::kScope}}, {accel::IoAccelerator::kScope});
  if (parts.pcie_switch) stats.part_in("switches", {{"name", "pcie_switch"}}, {"pcie_switch"});
}

nlohmann::ordered_json summary_head(const std::string& platform, const Config& cfg) {
  nlohmann::ordered_json s;
  s["schema_version"] = kSummarySchemaVersion;
  s["git_revision"] = build_revision();
  s["platform"] = platform;
  s["seed"] = cfg.get_int("sim.seed");
  s["sim_time_s"] = double(now_ps()) / 1e12;
  return s;
}

void add_statistics(nlohmann::ordered_json& s, const StatRegistry& stats) {
  s["host"] = nlohmann::ordered_json::object();
  for (const char* list : {"drives", "accelerators", "switches"}) s[list] = nlohmann::ordered_json::array();
  s.update(stats.sections_json());
  s["counters"] = stats.to_json();
  s["counter_units"] = stats.units_json();
  if (!stats.distributions().empty()) s["distributions"] = stats.distributions_json();
}

}  // namespace vp::platform
