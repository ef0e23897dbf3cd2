// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/TimelineSampler.hpp"

namespace vp {

TimelineSampler::TimelineSampler(Timeline& timeline) : timeline_(timeline) {
  sc_core::sc_get_curr_simcontext()->add_trace_file(this);
}

TimelineSampler::~TimelineSampler() { sc_core::sc_get_curr_simcontext()->remove_trace_file(this); }

void TimelineSampler::watch(const bool& flag, uint32_t thread) { flags_.push_back({&flag, thread}); }

void TimelineSampler::watch(const uint64_t& count, uint32_t counter) { counts_.push_back({&count, counter}); }

void TimelineSampler::cycle(bool delta_cycle) {
  if (delta_cycle) return;
  const Tick now = sc_core::sc_time_stamp().value();
  for (Flag& f : flags_) {
    if (*f.var == f.up) continue;
    f.up = *f.var;
    if (f.up)
      f.since = now;
    else if (now > f.since)
      timeline_.slice(f.thread, "busy", f.since, now);
  }
  for (Count& c : counts_) {
    if (c.seen && *c.var == c.last) continue;
    c.last = *c.var;
    c.seen = true;
    timeline_.count(c.counter, now, c.last);
  }
}

void TimelineSampler::finish(Tick now) {
  for (Flag& f : flags_) {
    if (f.up && now > f.since) timeline_.slice(f.thread, "busy", f.since, now);
    f.up = false;
  }
}

}  // namespace vp
