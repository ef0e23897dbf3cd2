// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A host software profile (host.profile): a named set of host.* costs and
// switches shipped inside the binary (generated at build time from
// vp/host/profiles/*.yaml), filling whichever keys the configuration does
// not set, as a flash cell fills the cell keys. `none` sets nothing.
#include <string>
#include <utility>
#include <vector>

#include "vp/core/Config.hpp"
#include "vp/core/ParamScope.hpp"

namespace vp::host {

const std::vector<std::pair<std::string, std::string>>& embedded_profiles();

class HostProfile {
 public:
  static constexpr const char* kKey = "host.profile";
  // host.profile, in the host's scope.
  static void declare_params(const ParamScope& host);
  static std::vector<std::string> names();  // "none" first, then the shipped ones
  // Fills the host.* keys of the profile host.profile names.
  static void apply(Config& cfg);
  // `yaml` as profile `name`: every key must be a host.* parameter other than host.profile.
  static void apply_text(Config& cfg, const std::string& name, const std::string& yaml);
};

}  // namespace vp::host
