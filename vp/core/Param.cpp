// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/Param.hpp"

#include <cmath>
#include <fmt/format.h>

#include "vp/core/Quote.hpp"
#include "vp/core/UnitSuffixes.hpp"

namespace vp {

namespace {
Unit unit_of(ParamType t) {
  switch (t) {
    case ParamType::Time: return Unit::Time;
    case ParamType::Size: return Unit::Size;
    case ParamType::Freq: return Unit::Freq;
    case ParamType::Rate: return Unit::Rate;
    case ParamType::Bandwidth: return Unit::Bandwidth;
    default: return Unit::None;
  }
}

std::string format_base(ParamType t, double v) {
  switch (t) {
    case ParamType::Time: return format_time(static_cast<Tick>(v));
    case ParamType::Size: return format_size(static_cast<uint64_t>(v));
    case ParamType::Freq: return format_freq(v);
    case ParamType::Rate: return format_rate(v);
    case ParamType::Bandwidth: return format_bandwidth(v);
    default: return fmt::format("{}", v);
  }
}
}  // namespace

std::string ParamSpec::type_name() const {
  switch (type) {
    case ParamType::Int: return "int";
    case ParamType::Double: return "real";
    case ParamType::Bool: return "bool";
    case ParamType::String: return "string";
    case ParamType::Enum: return "enum";
    default: return unit_name(unit_of(type));
  }
}

std::string ParamSpec::allowed() const {
  if (type == ParamType::Enum) {
    std::string s = "one of";
    for (const auto& c : choices) s += " " + c;
    return s;
  }
  if (type == ParamType::Bool) return "true or false";
  if (type == ParamType::String) return "any text";
  std::string what = type == ParamType::Int ? "an integer" : type == ParamType::Double ? "a number"
                                                          : std::string("a ") + type_name() + " such as " +
                                                                unit_examples(unit_of(type));
  bool lo = std::isfinite(min), hi = std::isfinite(max);
  if (lo && hi) return fmt::format("{} in [{}, {}]", what, format_base(type, min), format_base(type, max));
  if (lo) return fmt::format("{} >= {}", what, format_base(type, min));
  if (hi) return fmt::format("{} <= {}", what, format_base(type, max));
  return what;
}

double ParamSpec::parse(const std::string& text) const {
  auto bad = [&](const std::string& why) -> ConfigError {
    return ConfigError(fmt::format("{} = {}: {}; allowed: {}", key, vp::quoted(text), why, allowed()));
  };
  double v = 0;
  try {
    switch (type) {
      case ParamType::String: return 0;
      case ParamType::Bool:
        if (text == "true" || text == "1" || text == "yes" || text == "on") return 1;
        if (text == "false" || text == "0" || text == "no" || text == "off") return 0;
        throw bad("not a boolean");
      case ParamType::Enum:
        for (size_t i = 0; i < choices.size(); ++i)
          if (choices[i] == text) return static_cast<double>(i);
        throw bad("not a known choice");
      case ParamType::Int: {
        size_t used = 0;
        try {
          v = static_cast<double>(std::stoll(text, &used));
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size()) throw bad("not an integer");
        break;
      }
      case ParamType::Double: v = parse_number(text); break;
      case ParamType::Time: v = static_cast<double>(parse_time(text)); break;
      case ParamType::Size: v = static_cast<double>(parse_size(text)); break;
      case ParamType::Freq: v = parse_freq(text); break;
      case ParamType::Rate: v = parse_rate(text); break;
      case ParamType::Bandwidth: v = parse_bandwidth(text); break;
    }
  } catch (const UnitError& e) {
    throw bad(e.what());
  }
  if (v < min || v > max) throw bad("out of range");
  return v;
}

std::string ParamSpec::canonical(const std::string& text) const {
  if (type == ParamType::String || type == ParamType::Enum || type == ParamType::Int) return text;
  if (type == ParamType::Bool) return parse(text) != 0 ? "true" : "false";
  if (type == ParamType::Double) return text;
  return format_base(type, parse(text));
}

ParamSpec& ParamRegistry::add(const std::string& key, ParamType t, std::string def, const std::string& desc) {
  if (specs_.count(key)) throw std::logic_error("parameter declared twice: " + key);
  ParamSpec& s = specs_[key];
  s.key = key;
  s.type = t;
  s.def = std::move(def);
  s.desc = desc;
  return s;
}

ParamSpec& ParamRegistry::integer(const std::string& k, int64_t d, const std::string& desc) {
  return add(k, ParamType::Int, std::to_string(d), desc);
}
ParamSpec& ParamRegistry::real(const std::string& k, double d, const std::string& desc) {
  return add(k, ParamType::Double, fmt::format("{}", d), desc);
}
ParamSpec& ParamRegistry::boolean(const std::string& k, bool d, const std::string& desc) {
  return add(k, ParamType::Bool, d ? "true" : "false", desc);
}
ParamSpec& ParamRegistry::string(const std::string& k, const std::string& d, const std::string& desc) {
  return add(k, ParamType::String, d, desc);
}
ParamSpec& ParamRegistry::choice(const std::string& k, const std::string& d, std::vector<std::string> c,
                                 const std::string& desc) {
  ParamSpec& s = add(k, ParamType::Enum, d, desc);
  s.choices = std::move(c);
  return s;
}
ParamSpec& ParamRegistry::time(const std::string& k, const std::string& d, const std::string& desc) {
  return add(k, ParamType::Time, d, desc).at_least(0);
}
ParamSpec& ParamRegistry::size(const std::string& k, const std::string& d, const std::string& desc) {
  return add(k, ParamType::Size, d, desc).at_least(0);
}
ParamSpec& ParamRegistry::freq(const std::string& k, const std::string& d, const std::string& desc) {
  return add(k, ParamType::Freq, d, desc).at_least(1);
}
ParamSpec& ParamRegistry::rate(const std::string& k, const std::string& d, const std::string& desc) {
  return add(k, ParamType::Rate, d, desc).at_least(1);
}
ParamSpec& ParamRegistry::bandwidth(const std::string& k, const std::string& d, const std::string& desc) {
  return add(k, ParamType::Bandwidth, d, desc).at_least(1);
}

const ParamSpec* ParamRegistry::find(const std::string& key) const {
  auto it = specs_.find(key);
  return it == specs_.end() ? nullptr : &it->second;
}

std::string ParamRegistry::list() const {
  std::string out = fmt::format("{:<40} {:<13} {:<14} {}\n", "parameter", "type", "default", "description");
  for (const auto& [k, s] : specs_) {
    std::string def = s.def.find('\n') != std::string::npos ? "(multi-line)" : s.def;
    out += fmt::format("{:<40} {:<13} {:<14} {} [{}]\n", k, s.type_name(), def, s.desc, s.allowed());
  }
  return out;
}

nlohmann::json ParamRegistry::describe() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [k, s] : specs_) {
    nlohmann::json e = {{"key", k}, {"type", s.type_name()}, {"default", s.def}, {"allowed", s.allowed()},
                        {"description", s.desc}};
    if (!s.choices.empty()) e["choices"] = s.choices;
    // The same as fields: a quantity's base unit, every suffix with its
    // factor to it, the default and the bounds in it (bounds only if set).
    if (const auto& sufs = unit_suffixes(unit_of(s.type)); !sufs.empty()) {
      e["unit"] = sufs.front().text;
      nlohmann::json units = nlohmann::json::object();
      for (const UnitSuffix& u : sufs) units[u.text] = static_cast<uint64_t>(u.scale);
      e["units"] = units;
      e["default_value"] = s.parse(s.def);
    } else if (s.type == ParamType::Int || s.type == ParamType::Double) {
      e["default_value"] = s.parse(s.def);
    } else if (s.type == ParamType::Bool) {
      e["default_value"] = s.def == "true";
    }
    if (std::isfinite(s.min)) e["min"] = s.min;
    if (std::isfinite(s.max)) e["max"] = s.max;
    j.push_back(std::move(e));
  }
  return j;
}

std::string ParamRegistry::markdown() const {
  // A table cell holds one line and no unescaped '|'.
  auto cell = [](std::string t) {
    std::string out;
    for (char c : t) out += c == '\n' ? std::string("<br>") : c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string out = "| parameter | type | default | allowed | meaning |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& [k, s] : specs_)
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", k, s.type_name(), s.def.empty()                           ? ""
                       : s.def.find('\n') != std::string::npos ? "(several lines: see --print-config)"
                                                                : "`" + cell(s.def) + "`",
                       cell(s.allowed()), cell(s.desc));
  return out;
}

}  // namespace vp
