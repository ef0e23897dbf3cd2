// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a unit test of one model needs around it: the services every model
// takes (configuration, statistics, waves, request records), and a driver
// that hands it requests at given simulated times.
#ifndef SC_INCLUDE_DYNAMIC_PROCESSES
#define SC_INCLUDE_DYNAMIC_PROCESSES
#endif
#include <functional>
#include <stdexcept>
#include <string>
#include <systemc>

#include "tests/TestSupport.hpp"

namespace vp::test {

struct ModelServices {
  explicit ModelServices(Config c) : cfg(std::move(c)), svc{cfg, stats, waves, tracker, 1} {}
  // A counter's value; a name nobody registered is an error, not 0.
  uint64_t stat(const std::string& name) const {
    if (!stats.find(name)) throw std::runtime_error("no statistic " + name);
    return stats.value(name);
  }
  Config cfg;
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  Services svc;
};

// Calls submit(i) at time at(i) for i = 0..n-1 (times in order) from a
// SystemC thread, then simulates until nothing is left to do.
inline void submit_in_time(size_t n, std::function<Tick(size_t)> at, std::function<void(size_t)> submit) {
  sc_core::sc_spawn([n, at, submit] {
    for (size_t i = 0; i < n; ++i) {
      if (at(i) > now_ps()) sc_core::wait(to_sc(at(i) - now_ps()));
      submit(i);
    }
  });
  sc_core::sc_start();
}

}  // namespace vp::test
