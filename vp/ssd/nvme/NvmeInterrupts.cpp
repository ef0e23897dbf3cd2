// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/nvme/NvmeInterrupts.hpp"

namespace vp::ssd {

NvmeInterrupts::NvmeInterrupts(EventQueue& eq, pcie::PciInterrupts& signals, const StatGroup& stats)
    : eq_(eq),
      signals_(signals),
      vec_(signals.vectors()),
      coalesced_(stats.counter("irq_coalesced", "completions",
                               "completions whose interrupt was merged into a later one by coalescing")) {}

void NvmeInterrupts::reset() {
  for (auto& v : vec_) v = Vector{};  // timers in flight see a new id and do nothing
  signals_.clear_pending();
  intms_ = 0;
  signals_.set_device_msi_mask(0);
  thr_ = time_ = 0;
  if (signals_.intx_wire()) cq_level(false, 0);
}

void NvmeInterrupts::mask_set(uint32_t bits) {
  intms_ |= bits;
  signals_.set_device_msi_mask(intms_);
}

void NvmeInterrupts::mask_clear(uint32_t bits) {
  intms_ &= ~bits;
  signals_.set_device_msi_mask(intms_);
  signals_.deliver_pending();
  if (pin_based()) cq_level(cq_level_, 0);
}

void NvmeInterrupts::completion_posted(uint16_t v, Tick delay, bool io) {
  if (v >= vec_.size()) return;
  if (pin_based()) return;  // INTx follows the CQ level instead
  Vector& x = vec_[v];
  bool coalesce = io && !x.cd && (thr_ > 0 || time_ > 0);
  if (!coalesce) return fire(v, delay);
  if (++x.aggregated > thr_) return fire(v, delay);  // threshold is 0-based: thr_ + 1 entries
  ++coalesced_;
  if (time_ == 0 || x.timer) return;
  x.timer = true;
  uint64_t id = x.timer_id = ++next_timer_;
  eq_.after(delay + Tick(time_) * 100 * US, [this, v, id] {
    Vector& y = vec_[v];
    if (!y.timer || y.timer_id != id) return;
    fire(v, 0);
  });
}

void NvmeInterrupts::fire(uint16_t v, Tick delay) {
  Vector& x = vec_[v];
  x.aggregated = 0;
  x.timer = false;
  signals_.signal(v, delay);
}

void NvmeInterrupts::config_changed() {
  signals_.deliver_pending();
  if (!pin_based() && signals_.intx_wire()) cq_level(false, 0);  // the pin is released when messages take over
}

void NvmeInterrupts::cq_level(bool entries_outstanding, Tick delay) {
  cq_level_ = entries_outstanding;
  signals_.intx_level(entries_outstanding && !(intms_ & 1), delay);
}

}  // namespace vp::ssd
