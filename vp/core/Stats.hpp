#pragma once
// Statistics registered by name with unit and description (gem5/SST style).
// Components keep a reference to their counters and bump them on the hot path;
// the registry dumps them all into summary.json.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace vp {

struct Counter {
  uint64_t value = 0;
  std::string unit, desc;
  Counter& operator+=(uint64_t v) { value += v; return *this; }
  Counter& operator++() { ++value; return *this; }
};

class StatRegistry {
 public:
  // Re-registering a name returns the same counter (several instances of one
  // component may share a total).
  Counter& counter(const std::string& name, const std::string& unit, const std::string& desc) {
    auto [it, fresh] = counters_.try_emplace(name);
    if (fresh) {
      it->second.unit = unit;
      it->second.desc = desc;
    }
    return it->second;
  }
  const Counter* find(const std::string& name) const {
    auto it = counters_.find(name);
    return it == counters_.end() ? nullptr : &it->second;
  }
  uint64_t value(const std::string& name) const {
    const Counter* c = find(name);
    return c ? c->value : 0;
  }
  nlohmann::json to_json() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, c] : counters_) j[k] = c.value;
    return j;
  }
  const std::map<std::string, Counter>& all() const { return counters_; }

 private:
  std::map<std::string, Counter> counters_;
};

}  // namespace vp
