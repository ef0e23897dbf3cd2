// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The flash media behind the SSD controller: channels of dies, the page data
// store and the timing of the configured cell. Exported to the FTL as IFlash.
#include <memory>
#include <nlohmann/json.hpp>
#include <systemc>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/flash/FlashChannel.hpp"
#include "vp/flash/FlashCounters.hpp"
#include "vp/flash/FlashDataStore.hpp"
#include "vp/flash/FlashScheduler.hpp"
#include "vp/flash/FlashTypes.hpp"

namespace vp::flash {

class FlashArray : public sc_core::sc_module, public IFlash {
 public:
  sc_core::sc_export<IFlash> target;

  static constexpr const char* kScope = "ssd.flash";
  // Parameters relative to the array's scope (ssd.flash on the platforms).
  static void declare_params(const ParamScope& p);
  // Fills every key of the chosen cell preset (ssd.flash.cell) that the
  // configuration does not set itself. Call after loading presets, files and
  // --set, before validate().
  static void apply_cell(Config& cfg, const std::string& scope = kScope);
  // The same with the cell's YAML given: the keys it may hold are the
  // ssd.flash cell keys (bits_per_cell, t_read..., t_erase, cache_read),
  // set in the array's `scope`.
  static void apply_cell_text(Config& cfg, const std::string& name, const std::string& yaml,
                              const std::string& scope = kScope);
  static FlashGeometry geometry_from(const ScopedConfig& cfg);
  static FlashTiming timing_from(const ScopedConfig& cfg);
  static FlashScheduler::Options scheduler_from(const ScopedConfig& cfg);

  // `spare_units`: spare areas a page holds, one per mapping unit of the FTL
  // (sub-page mapping); the functional access then goes by unit.
  FlashArray(sc_core::sc_module_name name, Services& svc, const std::string& scope = kScope, uint32_t spare_units = 1);
  // The dies serve latency-critical host reads (FlashTransaction::latency)
  // before the others; the platform that knows the workload attribute sets it.
  void set_latency_first(bool on) {
    for (auto& c : channels_) c->set_latency_first(on);
  }

  void submit(FlashTransaction& t) override { channels_[t.addr.channel]->submit(t); }
  const FlashGeometry& geometry() const override { return geo_; }
  const FlashTiming& timing() const override { return tim_; }
  void prefetch(uint64_t ppn) const override { store_.prefetch(ppn); }
  bool peek(uint64_t ppn, uint8_t* data, FlashOob* oob) const override {
    store_.read(ppn, data, oob);
    return store_.programmed(ppn);
  }
  void preload_page(uint64_t ppn, const FlashOob& oob, const uint8_t* data = nullptr) override {
    store_.program(ppn, data, oob);
  }
  void preload_copy(uint64_t src, uint64_t dst, const FlashOob& oob) override { store_.copy(src, dst, &oob); }
  void preload_block(uint64_t block, uint32_t pages, uint32_t first_lpn, uint32_t lpn_stride, uint32_t seq,
                     const RandomPermutation* order) override {
    store_.set_rule(block, pages, first_lpn, lpn_stride, seq, order);
  }
  void preload_rule(const FillRule* rule, uint32_t seq, const RandomPermutation* order) override {
    store_.set_fill_rule(rule, seq, order);
  }
  bool as_filled(uint64_t block) const override { return store_.as_filled(block); }
  bool holds_pages(uint64_t block) const override { return store_.holds_pages(block); }
  void preload_erase(uint64_t block) override { store_.erase(block); }
  uint32_t erase_count(uint64_t block) const override { return store_.erase_count(block); }
  void power_loss() override;
  uint64_t stored_bytes() const { return store_.stored_bytes(); }
  uint64_t events() const { return eq_.fired(); }

  // Busy time over simulated time so far (0 at time 0).
  double die_utilisation(uint32_t channel, uint32_t die) const;
  double channel_utilisation(uint32_t channel) const;
  // Die and channel utilisation (mean, max) for summary.json.
  nlohmann::json summary() const;
  Tick die_busy(uint32_t channel, uint32_t die) const { return channels_[channel]->die_busy(die); }
  Tick channel_busy(uint32_t channel) const { return channels_[channel]->bus_busy(); }
  struct EraseCounts {
    uint32_t min = 0, max = 0;
    double mean = 0;
  };
  EraseCounts erase_counts() const;  // over every block
  const FlashCounters& counters() const { return ctr_; }

 private:
  FlashGeometry geo_;
  FlashTiming tim_;
  EventQueue eq_;
  FlashDataStore store_;
  FlashCounters ctr_;
  std::vector<std::unique_ptr<FlashChannel>> channels_;
};

}  // namespace vp::flash
