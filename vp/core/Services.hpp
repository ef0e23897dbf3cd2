// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the platform hands every component besides its sockets: the validated
// configuration, the statistics registry, waveform tracing and the request
// tracker. These are observation services, not a way for rooms to reach
// each other.
#include <cstdint>

#include "vp/core/Config.hpp"
#include "vp/core/RequestRecord.hpp"
#include "vp/core/Stats.hpp"
#include "vp/core/Waves.hpp"

namespace vp {

class RequestLog;

struct Services {
  const Config& cfg;
  StatRegistry& stats;
  Waves& waves;
  RequestTracker& tracker;
  uint64_t seed;
  RequestLog* requests = nullptr;  // requests.csv when asked for
};

}  // namespace vp
