// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Preconditioning sets up a used drive without simulating time: a
// sequential fill is kept as a rule (no memory per page, SequentialLayout),
// a random fill or ageing runs the allocator and GC functionally (replay),
// or ageing is modelled on a few planes whose block counts then stand for
// every plane's (sampled: SteadyStateAger, AgedLayout). Contents given
// before the run (an image file) are written the way ageing writes, after it.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Rng.hpp"
#include "vp/ssd/ftl/FtlMapping.hpp"
#include "vp/ssd/ftl/FtlState.hpp"
#include "vp/ssd/ftl/GarbageCollector.hpp"
#include "vp/ssd/ftl/PageAllocator.hpp"
#include "vp/ssd/ftl/precondition/AgedLayout.hpp"
#include "vp/ssd/ftl/precondition/SequentialLayout.hpp"

namespace vp::ssd {

class Preconditioner {
 public:
  // ssd.precondition.*
  static void declare_params(const ParamScope& scope);

  // `overprovision_key`: the FTL's setting that gives collection room, named
  // when a plane fills with valid data.
  Preconditioner(FtlState& s, PageAllocator& alloc, GarbageCollector& gc, FtlMapping& mapping,
                 const ScopedConfig& scope, std::string overprovision_key, uint64_t seed);
  ~Preconditioner();

  // Fills and ages the drive as configured (at the start, before any I/O).
  void run();
  // Writes a host page (page_size bytes) as the overwrites of ageing do:
  // allocated like a host write, its spare area naming it, GC run
  // functionally when a plane runs short.
  void load(uint64_t lpn, const uint8_t* data);
  void report(nlohmann::json& j) const;

 private:
  void write(uint32_t lpn, const uint8_t* data);
  // Why the sampled model cannot age this drive ("" when it can).
  std::string sampled_refusal() const;
  void age_sampled(uint64_t n);
  void collect(uint64_t plane);

  FtlState& s_;
  PageAllocator& alloc_;
  GarbageCollector& gc_;
  FtlMapping& mapping_;
  double fill_, age_;
  bool sequential_;
  enum class AgeModel : uint8_t { Auto, Replay, Sampled } model_;
  std::string aged_by_;  // the model that aged the drive ("" when not aged)
  std::string replay_why_;  // auto: why the sampled model did not apply
  uint32_t samples_;
  uint64_t seed_;
  std::string scope_, overprovision_key_;
  std::unique_ptr<RandomPermutation> order_;  // of a random fill
  std::unique_ptr<SequentialLayout> layout_;  // where the fill put the pages
  std::unique_ptr<RandomPermutation> aged_order_;
  std::unique_ptr<AgedLayout> aged_;  // where a sampled ageing put them
  uint64_t writes_ = 0, moved_ = 0, loaded_ = 0, sampled_planes_ = 0;
};

}  // namespace vp::ssd
