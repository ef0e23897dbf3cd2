// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The parts of summary.json every binary writes the same way.
#include <nlohmann/json.hpp>
#include <string>

#include "vp/core/Config.hpp"
#include "vp/core/StatRegistry.hpp"

namespace vp::platform {

// What every summary.json starts with, whichever binary writes it:
// schema_version, git_revision, platform (server, drive, qemu), seed and
// sim_time_s (now).
nlohmann::json summary_head(const std::string& platform, const Config& cfg);
// What every summary.json ends with: each component's section, every
// counter with its unit, and the distributions.
void add_statistics(nlohmann::json& summary, const StatRegistry& stats);

}  // namespace vp::platform
