// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Round firmware costs the firmware tests work their timings out from: a
// 1 GHz core, so cycles are nanoseconds.
#include "tests/ModelRig.hpp"

namespace vp::test {

inline Sets firmware_test_costs(Sets more) {
  Sets s = {{"ssd.flash.page_size", "4KiB"},   {"ssd.fw.clock", "1GHz"},          {"ssd.fw.cost.fetch_batch", "50"},
            {"ssd.fw.cost.fetch", "100"},       {"ssd.fw.cost.parse", "300"},      {"ssd.fw.cost.cache_lookup", "20"},
            {"ssd.fw.cost.trans", "200"},       {"ssd.fw.cost.compose", "70"},     {"ssd.fw.cost.complete", "30"},
            {"ssd.fw.cost.cq_flush", "60"},     {"ssd.fw.cost.message", "5"}};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

}  // namespace vp::test
