// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Parameter declarations: every component declares its parameters once, in
// a static declare_params(ParamRegistry&), with type, unit, default, range and
// description. The same registry drives --list-params, validation of the
// configuration tree and the effective config written after a run.
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vp/core/Units.hpp"

namespace vp {

enum class ParamType { Int, Double, Bool, String, Enum, Time, Size, Freq, Rate, Bandwidth };

class Config;

struct ParamSpec {
  std::string key;          // dotted path, e.g. ssd.flash.t_read
  ParamType type;
  std::string def;          // default, in the syntax a user would write
  std::string desc;
  double min = -std::numeric_limits<double>::infinity();  // in base units (ps, B, Hz, ...)
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // Enum only
  bool list = false;  // a string that YAML may give as a list of names (kept as "a, b")

  ParamSpec& range(double lo, double hi) { min = lo; max = hi; return *this; }
  ParamSpec& as_list() { list = true; return *this; }
  ParamSpec& at_least(double lo) { min = lo; return *this; }

  std::string type_name() const;   // "time", "int", "enum"...
  std::string allowed() const;     // human description of what is allowed
  // Parses `text` to a number in base units (bools 0/1, enums index); throws
  // ConfigError naming the key and value.
  double parse(const std::string& text) const;
  std::string canonical(const std::string& text) const;  // normalised spelling
};

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ParamRegistry {
 public:
  ParamSpec& integer(const std::string& key, int64_t def, const std::string& desc);
  ParamSpec& real(const std::string& key, double def, const std::string& desc);
  ParamSpec& boolean(const std::string& key, bool def, const std::string& desc);
  ParamSpec& string(const std::string& key, const std::string& def, const std::string& desc);
  ParamSpec& choice(const std::string& key, const std::string& def, std::vector<std::string> choices,
                    const std::string& desc);
  ParamSpec& time(const std::string& key, const std::string& def, const std::string& desc);
  ParamSpec& size(const std::string& key, const std::string& def, const std::string& desc);
  ParamSpec& freq(const std::string& key, const std::string& def, const std::string& desc);
  ParamSpec& rate(const std::string& key, const std::string& def, const std::string& desc);
  ParamSpec& bandwidth(const std::string& key, const std::string& def, const std::string& desc);

  // A cross-parameter rule; `fn` throws ConfigError (use Config::fail) when violated.
  void rule(std::function<void(const Config&)> fn) { rules_.push_back(std::move(fn)); }

  const ParamSpec* find(const std::string& key) const;
  const std::map<std::string, ParamSpec>& all() const { return specs_; }
  const std::vector<std::function<void(const Config&)>>& rules() const { return rules_; }
  std::string list() const;  // the --list-params table
  // Every parameter: key, type, default, allowed values, description
  // (--list-params --json), and as a markdown table (the reference page).
  nlohmann::json describe() const;
  std::string markdown() const;

 private:
  ParamSpec& add(const std::string& key, ParamType t, std::string def, const std::string& desc);
  std::map<std::string, ParamSpec> specs_;
  std::vector<std::function<void(const Config&)>> rules_;
};

}  // namespace vp
