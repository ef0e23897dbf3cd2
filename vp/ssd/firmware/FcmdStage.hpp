// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The firmware's FCMD stage (DeepFlash's flash-scatter): the FTL's flash
// port binds here, and every flash transaction passes on to the flash array
// once an FCMD thread of its channel group composed it; GC's and the
// journal's first pay their step on BGC and LOG (or on FCMD when there is no
// such thread). Without FCMD threads (the layered firmware composes in its
// own task) transactions go straight through. Everything else of IFlash is
// the flash array's, passed through.
#include <systemc>

#include "vp/flash/FlashTypes.hpp"
#include "vp/ssd/firmware/FirmwareCosts.hpp"
#include "vp/ssd/firmware/FirmwareOrganisation.hpp"

namespace vp::ssd {

class FcmdStage : public flash::IFlash {
 public:
  using FlashPort = sc_core::sc_port<flash::IFlash, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
  FcmdStage(FlashPort& flash, const FirmwareRoles& roles, const FirmwareCosts& costs)
      : flash_(flash), roles_(roles), costs_(costs) {}
  // The flash array is bound: its channels are split over the FCMD threads.
  void bound() { channels_ = flash_->geometry().channels; }

  void submit(flash::FlashTransaction& t) override;
  const flash::FlashGeometry& geometry() const override { return flash_->geometry(); }
  const flash::FlashTiming& timing() const override { return flash_->timing(); }
  void prefetch(uint64_t ppn) const override { flash_->prefetch(ppn); }
  bool peek(uint64_t ppn, uint8_t* data, flash::FlashOob* oob) const override { return flash_->peek(ppn, data, oob); }
  void preload_page(uint64_t ppn, const flash::FlashOob& oob, const uint8_t* data) override {
    flash_->preload_page(ppn, oob, data);
  }
  void preload_copy(uint64_t src, uint64_t dst, const flash::FlashOob& oob) override {
    flash_->preload_copy(src, dst, oob);
  }
  void preload_block(uint64_t block, uint32_t pages, uint32_t first_lpn, uint32_t lpn_stride, uint32_t seq,
                     const RandomPermutation* order) override {
    flash_->preload_block(block, pages, first_lpn, lpn_stride, seq, order);
  }
  void preload_rule(const flash::FillRule* rule, uint32_t seq, const RandomPermutation* order) override {
    flash_->preload_rule(rule, seq, order);
  }
  bool as_filled(uint64_t block) const override { return flash_->as_filled(block); }
  bool holds_pages(uint64_t block) const override { return flash_->holds_pages(block); }
  void preload_erase(uint64_t block) override { flash_->preload_erase(block); }
  uint32_t erase_count(uint64_t block) const override { return flash_->erase_count(block); }
  void power_loss() override { flash_->power_loss(); }

 private:
  void send(FirmwareThread& to, Tick cost, std::function<void(FirmwareThread&)> done) const;

  FlashPort& flash_;
  const FirmwareRoles& roles_;
  const FirmwareCosts& costs_;
  uint32_t channels_ = 1;
};

}  // namespace vp::ssd
