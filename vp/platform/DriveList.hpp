// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// platform.drives: the NVMe drives a platform holds, by name, in the order
// the host's driver probes them (drive k is /dev/nvme<k>n1 on root port
// bus 0 device k). Each drive's keys and statistics are under its name;
// drive 0's link keeps the scope `pcie`, drive k's is `<name>.pcie`.
//
// `ssd.*` is what every drive starts from: a drive not named ssd takes
// each ssd.* key set (by a preset, a file or --set) that it does not set
// itself, and drive k > 0 each pcie.* key likewise, so presets written for
// one drive apply to all of them. A drive's image and power loss are its
// own and are not taken.
#include <string>
#include <vector>

#include "vp/core/Config.hpp"
#include "vp/core/Param.hpp"

namespace vp::platform {

constexpr const char* kDrivesKey = "platform.drives";
constexpr const char* kTemplateDrive = "ssd";

// The names in a value of platform.drives ("ssd0, ssd1"); throws a
// ConfigError naming `origin` for a bad or repeated name, or none.
std::vector<std::string> parse_drives(const std::string& value, const std::string& origin);
std::vector<std::string> drives_of(const Config& cfg);
// Drive k's link scope.
std::string link_scope(const std::vector<std::string>& drives, unsigned k);
// Declares platform.drives itself.
void declare_drive_list(ParamRegistry& r);
// The ssd.* and pcie.* keys set, taken by the drives that leave them unset
// (see the file comment); `reg`: the registry `cfg` was built on.
void inherit_drive_keys(Config& cfg, const ParamRegistry& reg, const std::vector<std::string>& drives);

}  // namespace vp::platform
