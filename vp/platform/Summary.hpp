// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// summary.json as every binary writes it (schema_version 3, docs/outputs.md):
// the run's head, then the components' sections grouped by the platform's
// parts (host, drives, accelerators, switches), then every counter. An
// ordered_json, so the file keeps that order (and a job's stages theirs).
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vp/core/Config.hpp"
#include "vp/core/StatRegistry.hpp"

namespace vp::platform {

// The parts of a platform whose components report in summary.json, as the
// platform joining them declares them to the registry: the host (scope
// host), each drive of `drives` with its link (`path(k)`: the block device
// the host sees it as, null without a modeled block layer), the
// accelerator and the PCIe switch when the platform has them.
struct SummaryParts {
  std::vector<std::string> drives;
  std::function<nlohmann::json(unsigned)> path;
  bool accelerator = false;
  bool pcie_switch = false;
};
void declare_parts(StatRegistry& stats, const SummaryParts& parts);

// What every summary.json starts with, whichever binary writes it:
// schema_version, git_revision, platform (server, drive, qemu), seed and
// sim_time_s (now).
nlohmann::ordered_json summary_head(const std::string& platform, const Config& cfg);
// What every summary.json ends with: the sections in their parts (host,
// drives, accelerators and switches always present, empty when the
// platform has none), every counter with its unit, and the distributions.
void add_statistics(nlohmann::ordered_json& summary, const StatRegistry& stats);

}  // namespace vp::platform
