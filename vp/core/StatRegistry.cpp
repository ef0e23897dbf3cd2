// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/StatRegistry.hpp"

#include <algorithm>
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

void StatRegistry::section(const std::string& scope, const std::string& name, const std::string& desc,
                           std::function<nlohmann::ordered_json()> report) {
  for (const Section& x : sections_)
    if (x.scope == scope && x.name == name)
      throw StatError(fmt::format("summary section '{}' of '{}' registered twice", name, scope));
  sections_.push_back({scope, name, desc, std::move(report)});
}

void StatRegistry::add_part(Part p) {
  for (const std::string& sc : p.scopes) {
    if (sc.empty()) throw StatError(fmt::format("part '{}' holds the empty scope", p.key));
    for (const Part& q : parts_)
      if (std::find(q.scopes.begin(), q.scopes.end(), sc) != q.scopes.end())
        throw StatError(fmt::format("scope '{}' declared in two parts ('{}' and '{}')", sc, q.key, p.key));
  }
  for (const Part& q : parts_)
    if (q.key == p.key && q.listed != p.listed)
      throw StatError(fmt::format("part '{}' declared both as an object and as a list", p.key));
  parts_.push_back(std::move(p));
}

void StatRegistry::part(const std::string& key, std::vector<std::string> scopes) {
  for (const Part& q : parts_)
    if (q.key == key && !q.listed) throw StatError(fmt::format("part '{}' declared twice", key));
  add_part({key, false, 0, nlohmann::ordered_json::object(), std::move(scopes)});
}

void StatRegistry::part_in(const std::string& key, nlohmann::ordered_json entry, std::vector<std::string> scopes) {
  size_t index = 0;
  for (const Part& q : parts_) index += q.key == key;
  add_part({key, true, index, std::move(entry), std::move(scopes)});
}

const StatRegistry::Part* StatRegistry::part_of(const std::string& scope) const {
  const Part* best = nullptr;
  size_t best_len = 0;
  for (const Part& p : parts_)
    for (const std::string& sc : p.scopes)
      if ((scope == sc || (scope.size() > sc.size() && scope.compare(0, sc.size(), sc) == 0 && scope[sc.size()] == '.')) &&
          sc.size() > best_len)
        best = &p, best_len = sc.size();
  return best;
}

std::string StatRegistry::section_path(const std::string& scope, const std::string& name) const {
  const Part* p = part_of(scope);
  if (!p) return name;
  return p->listed ? fmt::format("{}[{}].{}", p->key, p->index, name) : p->key + "." + name;
}

nlohmann::ordered_json StatRegistry::sections_json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  // Every declared part, also one with nothing to report.
  for (const Part& p : parts_) {
    if (!p.listed) {
      j[p.key] = nlohmann::ordered_json::object();
      continue;
    }
    if (!j.contains(p.key)) j[p.key] = nlohmann::ordered_json::array();
    j[p.key].push_back(p.entry);
  }
  for (const Section& x : sections_) {
    nlohmann::ordered_json r = x.report();
    if (r.is_null()) continue;
    const Part* p = part_of(x.scope);
    nlohmann::ordered_json& into = !p ? j : p->listed ? j[p->key][p->index] : j[p->key];
    if (into.contains(x.name))
      throw StatError(fmt::format("summary section '{}' of '{}' has the place of another ({})", x.name, x.scope,
                                  section_path(x.scope, x.name)));
    into[x.name] = std::move(r);
  }
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
  for (const Section& x : sections_)
    j.push_back({{"name", section_path(x.scope, x.name)},
                 {"kind", "section"},
                 {"unit", ""},
                 {"scope", x.scope},
                 {"description", x.desc}});
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
  static const std::regex index(R"(\[\d+\])");  // a section of drives[1]
  std::string out = "| statistic | kind | unit | meaning |\n| --- | --- | --- | --- |\n";
  std::set<std::string> seen;
  for (const auto& s : describe()) {
    std::string name = s["name"].get<std::string>();
    std::string pattern = std::regex_replace(std::regex_replace(name, index, "[<k>]"), instance, "$1$2<n>");
    if (!seen.insert(pattern).second) continue;
    std::string desc = s["description"].get<std::string>();
    if (pattern != name) desc = std::regex_replace(desc, number, "<n>");
    out += fmt::format("| `{}` | {} | {} | {} |\n", pattern, s["kind"].get<std::string>(), s["unit"].get<std::string>(),
                       desc);
  }
  return out;
}

}  // namespace vp
