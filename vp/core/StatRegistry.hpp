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
#include <vector>

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
  // own statistics, worked out), registered once per scope and name:
  // `report` returns null when there is nothing to report (a cache
  // organisation without a write buffer). An ordered_json keeps the keys in
  // the order the report wrote them (a job's stages in path order); a plain
  // json report's keys stay alphabetical.
  void section(const std::string& scope, const std::string& name, const std::string& desc,
               std::function<nlohmann::ordered_json()> report);
  // A part of the platform, declared by the platform that joins the parts:
  // the sections of every component under one of `scopes` (a scope and what
  // lies below it) report together. part() makes the object `key` of
  // summary.json (the host); part_in() appends `entry` to the list `key`
  // (drives, accelerators, switches), in the order declared. A section
  // goes to the part with the longest scope that holds it, under its own
  // name; one no part holds stays at the top level.
  void part(const std::string& key, std::vector<std::string> scopes);
  void part_in(const std::string& key, nlohmann::ordered_json entry, std::vector<std::string> scopes);
  // Every section that has something to report, in its part: the parts in
  // the order declared, then the sections in the order registered.
  nlohmann::ordered_json sections_json() const;
  // Where a component's section appears in summary.json: "drives[1].ftl",
  // "host.cpu", "jobs".
  std::string section_path(const std::string& scope, const std::string& name) const;

  const Counter* find(const std::string& name) const;
  // A counter's value; an unknown name is an error, not 0.
  uint64_t value(const std::string& name) const;

  // name -> value, and name -> unit, of every counter.
  nlohmann::json to_json() const;
  nlohmann::json units_json() const;
  // name -> Distribution::summary(), with "unit".
  nlohmann::json distributions_json() const;
  // Every statistic: name, kind, unit, description (--list-stats), then
  // every section (kind "section", name its place in summary.json, scope).
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
  struct Section {
    std::string scope, name, desc;
    std::function<nlohmann::ordered_json()> report;
  };
  struct Part {
    std::string key;
    bool listed;
    size_t index;  // in its list
    nlohmann::ordered_json entry;
    std::vector<std::string> scopes;
  };
  void add_part(Part p);
  // The part holding `scope`, nullptr when none does.
  const Part* part_of(const std::string& scope) const;
  std::vector<Section> sections_;
  std::vector<Part> parts_;
};

}  // namespace vp
