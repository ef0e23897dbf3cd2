// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A unit's suffixes and their factors to its base unit (ps, B, Hz, T/s, B/s),
// as the parsers of Units.hpp take them; --list-params --json lists them.
#include <vector>

#include "vp/core/Units.hpp"

namespace vp {

struct UnitSuffix {
  const char* text;
  double scale;
};

// Empty for Unit::None.
const std::vector<UnitSuffix>& unit_suffixes(Unit u);

}  // namespace vp
