// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Every statistic of a run, by full dotted name, registered once at
// elaboration with unit and description (gem5/SST style). Components register
// through a StatGroup named after themselves and keep references; the
// registry lists them (--list-stats) and dumps them into summary.json.
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "vp/core/Counter.hpp"
#include "vp/core/Distribution.hpp"

namespace vp {

// A statistic registered twice, of two kinds, or read under a name nobody
// registered: a model error, reported at elaboration.
struct StatError : std::logic_error {
  using std::logic_error::logic_error;
};

class StatRegistry {
 public:
  // A counter one component owns; registering the name again is an error.
  Counter& counter(const std::string& name, const std::string& unit, const std::string& desc);
  // A total several instances add to (every core's busy time): each instance
  // registers it with the same unit and description and gets the same counter.
  Counter& total(const std::string& name, const std::string& unit, const std::string& desc);
  Distribution& distribution(const std::string& name, const std::string& unit, const std::string& desc);

  // A summary.json section a component reports at the end of the run (its
  // own statistics, worked out): registered once per name; `report`
  // returns null when there is nothing to report (a cache organisation
  // without a write buffer).
  void section(const std::string& name, std::function<nlohmann::json()> report);
  // Every registered section that has something to report, by name.
  nlohmann::json sections_json() const;

  const Counter* find(const std::string& name) const;
  // A counter's value; an unknown name is an error, not 0.
  uint64_t value(const std::string& name) const;

  // name -> value, and name -> unit, of every counter.
  nlohmann::json to_json() const;
  nlohmann::json units_json() const;
  // name -> Distribution::summary(), with "unit".
  nlohmann::json distributions_json() const;
  // Every statistic: name, kind, unit, description (--list-stats).
  nlohmann::json describe() const;
  std::string list() const;
  std::string markdown() const;

  const std::map<std::string, Counter>& all() const { return counters_; }
  const std::map<std::string, Distribution>& distributions() const { return dists_; }

 private:
  enum class Kind { Counter, Total, Distribution };
  void claim(const std::string& name, Kind kind);
  std::map<std::string, Kind> kinds_;
  std::map<std::string, Counter> counters_;
  std::map<std::string, Distribution> dists_;
  std::map<std::string, std::function<nlohmann::json()>> sections_;
};

}  // namespace vp
