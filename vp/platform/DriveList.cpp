// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/DriveList.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <sstream>

#include "vp/core/Quote.hpp"

namespace vp::platform {

namespace {
// Top-level scopes a drive's name would collide with.
constexpr const char* kReserved[] = {"host", "pcie", "accel", "sim", "workload", "platform", "pcie_switch"};
// Keys of a drive that are its own, never taken from ssd.*.
constexpr const char* kOwn[] = {"image", "power_loss_at", "power_loss_in_recovery", "nvme.serial"};

bool valid_name(const std::string& n) {
  if (n.empty() || !(n[0] >= 'a' && n[0] <= 'z')) return false;
  return std::all_of(n.begin(), n.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}
}  // namespace

std::vector<std::string> parse_drives(const std::string& value, const std::string& origin) {
  std::vector<std::string> names;
  std::stringstream ss(value);
  for (std::string n; std::getline(ss, n, ',');) {
    n.erase(0, n.find_first_not_of(" \t"));
    n.erase(n.find_last_not_of(" \t") + 1);
    if (!valid_name(n))
      throw ConfigError(fmt::format("{}: {} = {}: {} is not a drive name (a lower-case letter, then letters, digits "
                                    "or _)",
                                    origin, kDrivesKey, vp::quoted(value), vp::quoted(n)));
    if (std::find(std::begin(kReserved), std::end(kReserved), n) != std::end(kReserved))
      throw ConfigError(fmt::format("{}: {} = {}: {} is the scope of other keys; name the drive otherwise", origin,
                                    kDrivesKey, vp::quoted(value), vp::quoted(n)));
    if (std::find(names.begin(), names.end(), n) != names.end())
      throw ConfigError(fmt::format("{}: {} = {}: drive {} is named twice", origin, kDrivesKey, vp::quoted(value),
                                    vp::quoted(n)));
    names.push_back(n);
  }
  if (names.empty())
    throw ConfigError(fmt::format("{}: {} = {}: a platform needs at least one drive", origin, kDrivesKey,
                                  vp::quoted(value)));
  return names;
}

std::vector<std::string> drives_of(const Config& cfg) {
  return parse_drives(cfg.get_string(kDrivesKey), cfg.origin(kDrivesKey));
}

std::string link_scope(const std::vector<std::string>& drives, unsigned k) {
  return k == 0 ? std::string("pcie") : drives.at(k) + ".pcie";
}

void declare_drive_list(ParamRegistry& r) {
  r.string(kDrivesKey, kTemplateDrive,
           "the NVMe drives on the platform, by name, in probe order: drive k is /dev/nvme<k>n1 on root port bus 0 "
           "device k, its keys and statistics under its name (a YAML list, or names separated by commas); a drive "
           "not named ssd takes every ssd.* key it leaves unset, drive k > 0 every pcie.* key for its link "
           "<name>.pcie (vp-server; vp-drive and vp-qemu hold one drive)")
      .as_list();
}

void inherit_drive_keys(Config& cfg, const ParamRegistry& reg, const std::vector<std::string>& drives) {
  auto take = [&](const std::string& from, const std::string& to) {
    for (const auto& [key, spec] : reg.all()) {
      if (key.rfind(from + ".", 0) != 0) continue;
      const std::string rest = key.substr(from.size() + 1);
      if (std::find(std::begin(kOwn), std::end(kOwn), rest) != std::end(kOwn)) continue;
      const std::string mine = to + "." + rest;
      if (cfg.is_set(key) && !cfg.is_set(mine) && reg.find(mine))
        cfg.set(mine, cfg.get_string(key), fmt::format("{} ({})", key, cfg.origin(key)));
    }
  };
  // ssd's own keys mean nothing when no drive is called ssd: say so rather than ignore them.
  if (std::find(drives.begin(), drives.end(), kTemplateDrive) == drives.end())
    for (const char* own : kOwn)
      if (const std::string key = std::string(kTemplateDrive) + "." + own; cfg.is_set(key))
        cfg.fail({key, kDrivesKey}, fmt::format("no drive is called {}, and a drive's {} is its own: set it on one "
                                                "of the drives (<drive>.{})",
                                                kTemplateDrive, own, own));
  for (unsigned k = 0; k < drives.size(); ++k) {
    if (drives[k] != kTemplateDrive) take(kTemplateDrive, drives[k]);
    if (k > 0) take("pcie", link_scope(drives, k));
    // Linux takes controllers with one serial and model for paths to one
    // subsystem: each drive reports a serial of its own, the k-th FVP...k+1.
    if (const std::string serial = drives[k] + ".nvme.serial"; k > 0 && !cfg.is_set(serial))
      cfg.set(serial, fmt::format("FVP{:010}", k + 1), fmt::format("{} (drive {})", kDrivesKey, k));
  }
}

}  // namespace vp::platform
