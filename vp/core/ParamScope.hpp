// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Parameters named relative to the component that declares them (qbox's
// module-scoped parameters, gem5's SimObject params): a component declares
// and reads "max_io_queues" in its scope, "ssd.nvme", and a second instance
// built with another scope ("accel.nvme", say) gets keys of its own. Rules
// joining two scopes belong to the platform that joins them, which states
// them with full keys on the ParamRegistry.
#include <string>
#include <utility>
#include <vector>

#include "vp/core/Config.hpp"
#include "vp/core/Param.hpp"

namespace vp {

inline std::string scoped_key(const std::string& scope, const std::string& rel) {
  return scope.empty() ? rel : scope + "." + rel;
}

// Where a component declares its parameters.
class ParamScope {
 public:
  ParamScope(ParamRegistry& reg, std::string scope) : reg_(reg), scope_(std::move(scope)) {}

  const std::string& scope() const { return scope_; }
  std::string key(const std::string& rel) const { return scoped_key(scope_, rel); }
  ParamScope sub(const std::string& rel) const { return ParamScope(reg_, key(rel)); }
  ParamRegistry& registry() const { return reg_; }

  ParamSpec& integer(const std::string& rel, int64_t def, const std::string& desc) const {
    return reg_.integer(key(rel), def, desc);
  }
  ParamSpec& real(const std::string& rel, double def, const std::string& desc) const {
    return reg_.real(key(rel), def, desc);
  }
  ParamSpec& boolean(const std::string& rel, bool def, const std::string& desc) const {
    return reg_.boolean(key(rel), def, desc);
  }
  ParamSpec& string(const std::string& rel, const std::string& def, const std::string& desc) const {
    return reg_.string(key(rel), def, desc);
  }
  ParamSpec& choice(const std::string& rel, const std::string& def, std::vector<std::string> choices,
                    const std::string& desc) const {
    return reg_.choice(key(rel), def, std::move(choices), desc);
  }
  ParamSpec& time(const std::string& rel, const std::string& def, const std::string& desc) const {
    return reg_.time(key(rel), def, desc);
  }
  ParamSpec& size(const std::string& rel, const std::string& def, const std::string& desc) const {
    return reg_.size(key(rel), def, desc);
  }
  ParamSpec& freq(const std::string& rel, const std::string& def, const std::string& desc) const {
    return reg_.freq(key(rel), def, desc);
  }
  ParamSpec& rate(const std::string& rel, const std::string& def, const std::string& desc) const {
    return reg_.rate(key(rel), def, desc);
  }
  ParamSpec& bandwidth(const std::string& rel, const std::string& def, const std::string& desc) const {
    return reg_.bandwidth(key(rel), def, desc);
  }
  // A rule among this scope's own parameters (see ScopedConfig).
  template <class Fn>
  void rule(Fn fn) const;

 private:
  ParamRegistry& reg_;
  std::string scope_;
};

// What a component reads: the validated configuration seen from its scope.
class ScopedConfig {
 public:
  ScopedConfig(const Config& cfg, std::string scope) : cfg_(cfg), scope_(std::move(scope)) {}

  const std::string& scope() const { return scope_; }
  const Config& config() const { return cfg_; }
  std::string key(const std::string& rel) const { return scoped_key(scope_, rel); }
  ScopedConfig sub(const std::string& rel) const { return ScopedConfig(cfg_, key(rel)); }

  int64_t get_int(const std::string& rel) const { return cfg_.get_int(key(rel)); }
  double get_real(const std::string& rel) const { return cfg_.get_real(key(rel)); }
  bool get_bool(const std::string& rel) const { return cfg_.get_bool(key(rel)); }
  std::string get_string(const std::string& rel) const { return cfg_.get_string(key(rel)); }
  Tick get_time(const std::string& rel) const { return cfg_.get_time(key(rel)); }
  uint64_t get_size(const std::string& rel) const { return cfg_.get_size(key(rel)); }
  double get_freq(const std::string& rel) const { return cfg_.get_freq(key(rel)); }
  double get_rate(const std::string& rel) const { return cfg_.get_rate(key(rel)); }
  double get_bandwidth(const std::string& rel) const { return cfg_.get_bandwidth(key(rel)); }
  template <class E>
  E get_enum(const std::string& rel, std::initializer_list<std::pair<const char*, E>> values) const {
    return cfg_.get_enum<E>(key(rel), values);
  }
  bool get_switch(const std::string& rel) const { return cfg_.get_switch(key(rel)); }
  bool is(const std::string& rel, const std::string& choice) const { return cfg_.is(key(rel), choice); }
  bool is_set(const std::string& rel) const { return cfg_.is_set(key(rel)); }

  [[noreturn]] void fail(const std::string& rel, const std::string& why) const { cfg_.fail(key(rel), why); }
  [[noreturn]] void fail(std::initializer_list<std::string> rels, const std::string& why) const {
    std::vector<std::string> keys;
    for (const auto& r : rels) keys.push_back(key(r));
    cfg_.fail(keys, why);
  }

 private:
  const Config& cfg_;
  std::string scope_;
};

template <class Fn>
void ParamScope::rule(Fn fn) const {
  reg_.rule([scope = scope_, fn = std::move(fn)](const Config& c) { fn(ScopedConfig(c, scope)); });
}

}  // namespace vp
