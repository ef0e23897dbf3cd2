// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/StatRegistry.hpp"

#include <fmt/format.h>
#include <regex>
#include <set>

namespace vp {

namespace {
const char* kind_name(int k) { return k == 0 ? "counter" : k == 1 ? "total" : "distribution"; }
}  // namespace

void StatRegistry::claim(const std::string& name, Kind kind) {
  if (name.empty() || name.front() == '.' || name.back() == '.' || name.find("..") != std::string::npos)
    throw StatError(fmt::format("statistic name '{}' is not a dotted path", name));
  auto [it, fresh] = kinds_.try_emplace(name, kind);
  if (fresh) return;
  if (kind == Kind::Total && it->second == Kind::Total) return;
  throw StatError(fmt::format("statistic '{}' registered twice (as a {}, then as a {})", name,
                              kind_name(static_cast<int>(it->second)), kind_name(static_cast<int>(kind))));
}

namespace {
// The statistic under `name` in `m`, labelled with its unit and description.
template <class Map>
auto& labelled(Map& m, const std::string& name, const std::string& unit, const std::string& desc) {
  auto& s = m[name];
  s.unit = unit;
  s.desc = desc;
  return s;
}
}  // namespace

Counter& StatRegistry::counter(const std::string& name, const std::string& unit, const std::string& desc) {
  claim(name, Kind::Counter);
  return labelled(counters_, name, unit, desc);
}

Counter& StatRegistry::total(const std::string& name, const std::string& unit, const std::string& desc) {
  claim(name, Kind::Total);
  if (const Counter* c = find(name); c && (c->unit != unit || c->desc != desc))
    throw StatError(fmt::format("total '{}' registered with unit '{}' ({}) and again with unit '{}' ({})", name, c->unit,
                                c->desc, unit, desc));
  return labelled(counters_, name, unit, desc);
}

Distribution& StatRegistry::distribution(const std::string& name, const std::string& unit, const std::string& desc) {
  claim(name, Kind::Distribution);
  return labelled(dists_, name, unit, desc);
}

void StatRegistry::section(const std::string& name, std::function<nlohmann::json()> report) {
  if (!sections_.emplace(name, std::move(report)).second)
    throw StatError(fmt::format("summary section '{}' registered twice", name));
}

nlohmann::json StatRegistry::sections_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, report] : sections_)
    if (nlohmann::json r = report(); !r.is_null()) j[name] = std::move(r);
  return j;
}

const Counter* StatRegistry::find(const std::string& name) const {
  auto it = counters_.find(name);
  return it == counters_.end() ? nullptr : &it->second;
}

uint64_t StatRegistry::value(const std::string& name) const {
  const Counter* c = find(name);
  if (!c) throw StatError(fmt::format("no counter named '{}' is registered", name));
  return c->value;
}

nlohmann::json StatRegistry::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, c] : counters_) j[k] = c.value;
  return j;
}

nlohmann::json StatRegistry::units_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, c] : counters_) j[k] = c.unit;
  return j;
}

nlohmann::json StatRegistry::distributions_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, d] : dists_) {
    j[k] = d.summary();
    j[k]["unit"] = d.unit;
  }
  return j;
}

nlohmann::json StatRegistry::describe() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [name, kind] : kinds_) {
    const auto& unit = kind == Kind::Distribution ? dists_.at(name).unit : counters_.at(name).unit;
    const auto& desc = kind == Kind::Distribution ? dists_.at(name).desc : counters_.at(name).desc;
    j.push_back({{"name", name}, {"kind", kind_name(static_cast<int>(kind))}, {"unit", unit}, {"description", desc}});
  }
  return j;
}

std::string StatRegistry::list() const {
  std::string out;
  for (const auto& s : describe())
    out += fmt::format("{:<48} {:<12} {:<12} {}\n", s["name"].get<std::string>(), s["kind"].get<std::string>(),
                       s["unit"].get<std::string>(), s["description"].get<std::string>());
  return out;
}

std::string StatRegistry::markdown() const {
  // Per-instance statistics (host.core0 ... host.core3) collapse to one row,
  // host.core<n>, whose description keeps the first instance's wording.
  static const std::regex instance(R"((^|\.)([A-Za-z_]+?)\d+(?=\.|$))");
  static const std::regex number(R"(\d+\b)");  // "core 3", "thread bgc0"
  std::string out = "| statistic | kind | unit | meaning |\n| --- | --- | --- | --- |\n";
  std::set<std::string> seen;
  for (const auto& s : describe()) {
    std::string name = s["name"].get<std::string>();
    std::string pattern = std::regex_replace(name, instance, "$1$2<n>");
    if (!seen.insert(pattern).second) continue;
    std::string desc = s["description"].get<std::string>();
    if (pattern != name) desc = std::regex_replace(desc, number, "<n>");
    out += fmt::format("| `{}` | {} | {} | {} |\n", pattern, s["kind"].get<std::string>(), s["unit"].get<std::string>(),
                       desc);
  }
  return out;
}

}  // namespace vp
