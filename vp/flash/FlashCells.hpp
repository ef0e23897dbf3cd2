// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Flash cell types shipped inside the binary (generated at build time from
// vp/flash/cells/*.yaml): (name, YAML fragment of ssd.flash.* keys).
#include <string>
#include <utility>
#include <vector>

namespace vp::flash {
const std::vector<std::pair<std::string, std::string>>& embedded_cells();
}
