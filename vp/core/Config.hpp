// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One configuration tree per run: defaults from the ParamRegistry, overlaid by
// a preset or YAML file, then by --set key=value. Values are kept as text with
// their origin (file:line or --set) so every error names where it came from.
#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "vp/core/Param.hpp"

namespace vp {

class Config {
 public:
  explicit Config(const ParamRegistry& reg) : reg_(&reg) {}

  // One (dotted key, value, file:line) per leaf of a YAML mapping; throws
  // ConfigError for syntax errors, lists and empty values. Keys are not checked.
  struct Entry {
    std::string key, value, where;
    bool list = false;  // a YAML list of scalars, joined as "a, b"
  };
  static std::vector<Entry> parse_yaml(const std::string& text, const std::string& origin);
  void load_yaml_text(const std::string& text, const std::string& origin);
  // `list`: the value came as a YAML list (only a list parameter takes one).
  void set(const std::string& key, const std::string& value, const std::string& origin = "--set", bool list = false);
  // Parses every value, checks ranges, then the registry's cross-parameter rules.
  void validate() const;

  int64_t get_int(const std::string& key) const;
  double get_real(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  std::string get_string(const std::string& key) const;
  Tick get_time(const std::string& key) const;
  uint64_t get_size(const std::string& key) const;
  double get_freq(const std::string& key) const;
  double get_rate(const std::string& key) const;
  double get_bandwidth(const std::string& key) const;
  // A choice parameter parsed once into a C++ enum: `values` maps every
  // declared choice (a choice it misses, or a name not declared, is a
  // model error caught at elaboration, not a silent default).
  template <class E>
  E get_enum(const std::string& key, std::initializer_list<std::pair<const char*, E>> values) const;
  // An off/on choice.
  bool get_switch(const std::string& key) const { return get_enum<bool>(key, {{"off", false}, {"on", true}}); }
  // Whether a choice parameter is set to `choice`, which must be one of its
  // choices (for rules checked once; models keep get_enum's result).
  bool is(const std::string& key, const std::string& choice) const;

  bool is_set(const std::string& key) const { return values_.count(key) != 0; }
  std::string origin(const std::string& key) const;
  // "key = 'value' (origin)": how a message names a key a check involves.
  std::string describe(const std::string& key) const;
  // Throws a ConfigError that names key, value and origin.
  [[noreturn]] void fail(const std::string& key, const std::string& why) const;
  // A check across keys failed: names every key with its value and origin,
  // the ones the user set first (the first key's origin leads the message).
  [[noreturn]] void fail(std::vector<std::string> keys, const std::string& why) const;
  // So that fail({"a.b", "c.d"}, why) is not read as a std::string built from two pointers.
  [[noreturn]] void fail(std::initializer_list<std::string> keys, const std::string& why) const {
    fail(std::vector<std::string>(keys), why);
  }

  // Whole tree, defaults included, nested by dots; feeding it back reproduces the run.
  std::string to_yaml() const;

 private:
  const std::vector<std::string>& choices(const std::string& key) const;
  [[noreturn]] static void throw_choice_mismatch(const std::string& key, const std::string& what);

 public:

 private:
  struct Value {
    std::string text, origin;
  };
  const ParamSpec& spec(const std::string& key) const;
  std::string text(const std::string& key) const;
  double number(const std::string& key) const;
  const ParamRegistry* reg_;
  std::map<std::string, Value> values_;
};

template <class E>
E Config::get_enum(const std::string& key, std::initializer_list<std::pair<const char*, E>> values) const {
  const std::vector<std::string>& declared = choices(key);
  if (declared.size() != values.size()) throw_choice_mismatch(key, "maps " + std::to_string(values.size()));
  std::string v = text(key);
  const E* found = nullptr;
  for (const auto& [name, e] : values) {
    if (std::find(declared.begin(), declared.end(), name) == declared.end()) throw_choice_mismatch(key, name);
    if (v == name) found = &e;
  }
  if (!found) throw_choice_mismatch(key, v);
  return *found;
}

}  // namespace vp
