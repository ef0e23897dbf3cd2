// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A component's statistics, named relative to the component (gem5's stats
// groups): StatGroup(stats, "ssd.nvme").counter("io_commands", ...) registers
// "ssd.nvme.io_commands". A second instance built with another scope gets its
// own names.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "vp/core/StatRegistry.hpp"

namespace vp {

class StatGroup {
 public:
  StatGroup(StatRegistry& reg, std::string scope) : reg_(reg), scope_(std::move(scope)) {}

  const std::string& scope() const { return scope_; }
  StatRegistry& registry() const { return reg_; }
  std::string name(const std::string& rel) const { return scope_.empty() ? rel : scope_ + "." + rel; }
  StatGroup group(const std::string& rel) const { return StatGroup(reg_, name(rel)); }

  Counter& counter(const std::string& rel, const std::string& unit, const std::string& desc) const {
    return reg_.counter(name(rel), unit, desc);
  }
  Counter& total(const std::string& rel, const std::string& unit, const std::string& desc) const {
    return reg_.total(name(rel), unit, desc);
  }
  Distribution& distribution(const std::string& rel, const std::string& unit, const std::string& desc) const {
    return reg_.distribution(name(rel), unit, desc);
  }
  // The component's summary.json section, `name` within the part of the
  // platform holding this scope (StatRegistry::part).
  void section(const std::string& name, const std::string& desc, std::function<nlohmann::json()> fn) const {
    reg_.section(scope_, name, desc, std::move(fn));
  }

 private:
  StatRegistry& reg_;
  std::string scope_;
};

}  // namespace vp
