// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The flash as an FTL mapping units smaller than a page sees it (sub-page
// mapping: 4 KiB units in 8 or 16 KiB pages). The FTL's parts address
// units; this turns their work into the flash's: the units programmed into
// one page wait in the write buffer until the page is whole (the FTL pads
// the slots it leaves empty) and go out as one program, each unit's spare
// area naming its logical unit; a read of a unit reads its page, and reads
// of units of one page in flight at once share that page read. Erases pass
// through. Copy-back moves whole pages and is not offered (the drive's
// rules refuse it with sub-page units).
#include <memory>
#include <unordered_map>
#include <vector>

#include "vp/flash/FlashTypes.hpp"

namespace vp::ssd {

class SubPageFlash : public flash::IFlash, public flash::FlashClient {
 public:
  // `units`: the geometry in units (flash::in_units); `pages`: the flash
  // itself, whose functional access goes by unit already.
  SubPageFlash(const flash::FlashGeometry& units, flash::IFlash& pages);

  // A unit program whose client is null fills a slot with nothing (padding).
  void submit(flash::FlashTransaction& t) override;
  void flash_done(flash::FlashTransaction& t) override;
  const flash::FlashGeometry& geometry() const override { return units_; }
  const flash::FlashTiming& timing() const override { return pages_.timing(); }
  bool peek(uint64_t unit, uint8_t* data, flash::FlashOob* oob) const override { return pages_.peek(unit, data, oob); }
  void prefetch(uint64_t unit) const override { pages_.prefetch(unit); }
  void preload_page(uint64_t unit, const flash::FlashOob& oob, const uint8_t* data) override {
    pages_.preload_page(unit, oob, data);
  }
  void preload_copy(uint64_t src, uint64_t dst, const flash::FlashOob& oob) override {
    pages_.preload_copy(src, dst, oob);
  }
  void preload_block(uint64_t block, uint32_t units, uint32_t first_lpn, uint32_t lpn_stride, uint32_t seq,
                     const RandomPermutation* order) override {
    pages_.preload_block(block, units, first_lpn, lpn_stride, seq, order);
  }
  void preload_rule(const flash::FillRule* rule, uint32_t seq, const RandomPermutation* order) override {
    pages_.preload_rule(rule, seq, order);
  }
  bool as_filled(uint64_t block) const override { return pages_.as_filled(block); }
  bool holds_pages(uint64_t block) const override { return pages_.holds_pages(block); }
  void preload_erase(uint64_t block) override { pages_.preload_erase(block); }
  uint32_t erase_count(uint64_t block) const override { return pages_.erase_count(block); }
  void power_loss() override;

  uint64_t pages_waiting() const { return packs_.size(); }  // pages with units still to come

 private:
  // One page on its way: a program collecting its units, or a read whose
  // units wait for it.
  struct Page {
    flash::FlashTransaction t;
    std::vector<uint8_t> data;
    std::vector<flash::FlashOob> oobs;
    std::vector<flash::FlashTransaction*> units;  // the FTL's transactions it completes
    uint32_t filled = 0;
  };
  Page& page_for(std::unordered_map<uint64_t, std::unique_ptr<Page>>& pages, uint64_t ppn,
                 const flash::FlashTransaction& first, flash::FlashOp op);

  const flash::FlashGeometry units_, geo_;  // in units, in pages
  flash::IFlash& pages_;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> packs_, reads_;  // by physical page
};

}  // namespace vp::ssd
