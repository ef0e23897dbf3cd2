// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Presets shipped inside the binary (generated at build time from
// platforms/presets/*.yaml).
#include <string>
#include <utility>
#include <vector>

namespace vp::platform {
const std::vector<std::pair<std::string, std::string>>& embedded_presets();
}
