// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/Config.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <sstream>
#include <yaml-cpp/yaml.h>

#include "vp/core/Quote.hpp"

namespace vp {

namespace {
void flatten(const YAML::Node& n, const std::string& prefix, const std::string& origin,
             std::vector<Config::Entry>& out) {
  std::string where = fmt::format("{}:{}", origin, n.Mark().line + 1);
  if (n.IsMap()) {
    for (const auto& kv : n) {
      std::string k = kv.first.as<std::string>();
      flatten(kv.second, prefix.empty() ? k : prefix + "." + k, origin, out);
    }
  } else if (n.IsScalar()) {
    out.push_back({prefix, n.Scalar(), where});
  } else if (n.IsNull()) {
    throw ConfigError(fmt::format("{}: key {} has no value", where, vp::quoted(prefix)));
  } else if (n.IsSequence() &&
             std::all_of(n.begin(), n.end(), [](const YAML::Node& e) { return e.IsScalar(); })) {  // [] too
    std::string joined;
    for (const auto& e : n) joined += (joined.empty() ? "" : ", ") + e.Scalar();
    out.push_back({prefix, joined, where, true});
  } else {
    throw ConfigError(fmt::format("{}: key {} must be a single value, not a list", where, vp::quoted(prefix)));
  }
}
}  // namespace

std::vector<Config::Entry> Config::parse_yaml(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}:{}: YAML syntax error: {}", origin, e.mark.line + 1, e.msg));
  }
  std::vector<Entry> kv;
  if (root.IsNull()) return kv;
  if (!root.IsMap()) throw ConfigError(origin + ": the configuration must be a YAML mapping");
  flatten(root, "", origin, kv);
  return kv;
}

void Config::load_yaml_text(const std::string& text, const std::string& origin) {
  for (auto& e : parse_yaml(text, origin)) set(e.key, e.value, e.where, e.list);
}

void Config::set(const std::string& key, const std::string& value, const std::string& origin, bool list) {
  const ParamSpec* s = reg_->find(key);
  if (!s) {
    // Name the nearest known parameters so a typo is easy to fix.
    std::string hint;
    auto dot = key.rfind('.');
    std::string parent = dot == std::string::npos ? "" : key.substr(0, dot + 1);
    for (const auto& [k, _] : reg_->all())
      if (!parent.empty() && k.rfind(parent, 0) == 0 && k.find('.', parent.size()) == std::string::npos)
        hint += (hint.empty() ? "" : ", ") + k.substr(parent.size());
    throw ConfigError(fmt::format("{}: unknown parameter {}{}", origin, vp::quoted(key),
                                  hint.empty() ? " (see --list-params)" : " (known under '" + parent + "': " + hint + ")"));
  }
  if (list && !s->list)
    throw ConfigError(fmt::format("{}: key {} must be a single value, not a list", origin, vp::quoted(key)));
  // Every value ends up in config.yaml and summary.json: it must be text.
  if (size_t bad = invalid_utf8(value); bad != std::string::npos)
    throw ConfigError(fmt::format("{}: {} = {}: not valid UTF-8 (byte {} is {:#04x})", origin, key, vp::quoted(value),
                                  bad,
                                  static_cast<unsigned char>(value[bad])));
  try {
    s->parse(value);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", origin, e.what()));
  }
  values_[key] = {value, origin};
}

void Config::validate() const {
  for (const auto& [k, v] : values_) {
    try {
      spec(k).parse(v.text);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("{}: {}", v.origin, e.what()));
    }
  }
  for (const auto& r : reg_->rules()) r(*this);
}

const ParamSpec& Config::spec(const std::string& key) const {
  const ParamSpec* s = reg_->find(key);
  if (!s) throw std::logic_error("parameter read but never declared: " + key);
  return *s;
}

std::string Config::text(const std::string& key) const {
  auto it = values_.find(key);
  return it != values_.end() ? it->second.text : spec(key).def;
}

std::string Config::origin(const std::string& key) const {
  auto it = values_.find(key);
  return it != values_.end() ? it->second.origin : "default";
}

std::string Config::describe(const std::string& key) const {
  return fmt::format("{} = {} ({})", key, vp::quoted(text(key)), origin(key));
}

void Config::fail(const std::string& key, const std::string& why) const {
  throw ConfigError(fmt::format("{}: {} = {}: {}", origin(key), key, vp::quoted(text(key)), why));
}

void Config::fail(std::vector<std::string> keys, const std::string& why) const {
  // What the user set (command line, config file) first, then what a preset,
  // a flash cell or a host profile filled in, then defaults.
  auto rank = [this](const std::string& k) {
    auto it = values_.find(k);
    if (it == values_.end()) return 2;
    const std::string& o = it->second.origin;
    return o.rfind("preset ", 0) == 0 || o.rfind("cell ", 0) == 0 || o.rfind("profile ", 0) == 0 ? 1 : 0;
  };
  std::stable_sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  std::string msg = fmt::format("{}: {} = {}", origin(keys[0]), keys[0], vp::quoted(text(keys[0])));
  for (size_t i = 1; i < keys.size(); ++i) msg += ", " + describe(keys[i]);
  throw ConfigError(msg + ": " + why);
}

double Config::number(const std::string& key) const {
  try {
    return spec(key).parse(text(key));
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", origin(key), e.what()));
  }
}

int64_t Config::get_int(const std::string& k) const {
  number(k);  // validates
  return std::stoll(text(k));  // exact, where a double would round large values (seeds)
}
double Config::get_real(const std::string& k) const { return number(k); }
bool Config::get_bool(const std::string& k) const { return number(k) != 0; }
std::string Config::get_string(const std::string& k) const { return text(k); }

const std::vector<std::string>& Config::choices(const std::string& key) const {
  const ParamSpec* s = reg_->find(key);
  if (!s || s->type != ParamType::Enum) throw std::logic_error("parameter '" + key + "' is not a declared choice");
  return s->choices;
}

void Config::throw_choice_mismatch(const std::string& key, const std::string& what) {
  throw std::logic_error("choice parameter '" + key + "': the model's mapping and the declared choices differ (" +
                         what + ")");
}

bool Config::is(const std::string& key, const std::string& choice) const {
  const auto& c = choices(key);
  if (std::find(c.begin(), c.end(), choice) == c.end()) throw_choice_mismatch(key, choice);
  return text(key) == choice;
}
Tick Config::get_time(const std::string& k) const { return static_cast<Tick>(number(k)); }
uint64_t Config::get_size(const std::string& k) const { return static_cast<uint64_t>(number(k)); }
double Config::get_freq(const std::string& k) const { return number(k); }
double Config::get_rate(const std::string& k) const { return number(k); }
double Config::get_bandwidth(const std::string& k) const { return number(k); }

std::string Config::to_yaml() const {
  // Rebuild the nesting from the dotted keys; the map keeps keys sorted so
  // siblings are contiguous.
  YAML::Emitter out;
  out << YAML::BeginMap;
  std::vector<std::string> open;
  for (const auto& [key, spec] : reg_->all()) {
    std::vector<std::string> parts;
    std::stringstream ss(key);
    for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
    size_t common = 0;
    while (common < open.size() && common + 1 < parts.size() && open[common] == parts[common]) ++common;
    while (open.size() > common) {
      out << YAML::EndMap;
      open.pop_back();
    }
    for (size_t i = common; i + 1 < parts.size(); ++i) {
      out << YAML::Key << parts[i] << YAML::Value << YAML::BeginMap;
      open.push_back(parts[i]);
    }
    std::string v = spec.canonical(text(key));
    out << YAML::Key << parts.back() << YAML::Value;
    // Typed for a program reading it: numbers and booleans plain, text
    // (enums, and values with units such as 3us or 2GiB) quoted, since
    // YAML 1.1 reads a bare off or no as false.
    if (spec.list) {  // as it is written: a list of names
      out << YAML::Flow << YAML::BeginSeq;
      std::stringstream items(v);
      for (std::string item; std::getline(items, item, ',');) {
        item.erase(0, item.find_first_not_of(' '));
        out << item;
      }
      out << YAML::EndSeq;
    } else if (v.find('\n') != std::string::npos)
      out << YAML::Literal << v;
    else if (spec.type == ParamType::Int || spec.type == ParamType::Double || spec.type == ParamType::Bool)
      out << v;
    else
      out << YAML::DoubleQuoted << v;
  }
  while (!open.empty()) {
    out << YAML::EndMap;
    open.pop_back();
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace vp
