// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/HostProfile.hpp"

#include <fmt/format.h>

#include "vp/core/Quote.hpp"

namespace vp::host {

std::vector<std::string> HostProfile::names() {
  std::vector<std::string> n{"none"};
  for (const auto& [name, _] : embedded_profiles()) n.push_back(name);
  return n;
}

void HostProfile::declare_params(const ParamScope& r) {
  r.choice("profile", "none", names(),
           "host software profile filling the host.* costs and switches not set explicitly (vp/host/profiles): "
           "none, or linux-4.9 (FlashShare's kernel: blk-mq dispatch by kblockd, its costs calibrated to OSDI'18 "
           "Fig 15b)");
}

void HostProfile::apply(Config& cfg) {
  std::string name = cfg.get_string(kKey);
  if (name == "none") return;
  for (const auto& [n, text] : embedded_profiles())
    if (n == name) return apply_text(cfg, name, text);
  std::string known;
  for (const auto& n : names()) known += " " + n;
  cfg.fail(kKey, "no such profile (known:" + known + ")");
}

void HostProfile::apply_text(Config& cfg, const std::string& name, const std::string& yaml) {
  std::string origin = "profile " + name;
  for (const auto& e : Config::parse_yaml(yaml, origin)) {
    if (e.key.rfind("host.", 0) != 0 || e.key == kKey)
      throw ConfigError(fmt::format("{}: {} is not a host parameter a profile may set (host.* but host.profile)",
                                    e.where, vp::quoted(e.key)));
    if (!cfg.is_set(e.key)) cfg.set(e.key, e.value, origin);
  }
}

}  // namespace vp::host
