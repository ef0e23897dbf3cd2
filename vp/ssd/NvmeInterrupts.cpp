// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/NvmeInterrupts.hpp"

#include <algorithm>
#include <cstring>

#include "vp/ssd/NvmeSpec.hpp"

namespace vp::ssd {

using nvme::MSIX_ENTRY_SIZE;

NvmeInterrupts::NvmeInterrupts(EventQueue& eq, uint32_t vectors, pcie::PciConfigSpace& cfg, Send send,
                               StatRegistry& stats)
    : eq_(eq),
      vectors_(vectors),
      cfg_(cfg),
      send_(std::move(send)),
      table_(size_t(vectors) * MSIX_ENTRY_SIZE, 0),
      vec_(vectors),
      msix_(stats.counter("ssd.nvme.msix_sent", "messages", "MSI-X messages sent")),
      msi_(stats.counter("ssd.nvme.msi_sent", "messages", "MSI messages sent")),
      intx_(stats.counter("ssd.nvme.intx_asserts", "messages", "INTx assert messages sent")),
      coalesced_(stats.counter("ssd.nvme.irq_coalesced", "completions",
                               "completions whose interrupt was merged into a later one by coalescing")) {
  reset_table();
}

void NvmeInterrupts::reset_table() {
  std::fill(table_.begin(), table_.end(), 0);
  for (uint32_t v = 0; v < vectors_; ++v) table_[v * MSIX_ENTRY_SIZE + 12] = 1;  // masked at power-on
  for (auto& v : vec_) v.pending = false;
}

void NvmeInterrupts::reset() {
  for (auto& v : vec_) v = Vector{};  // timers in flight see a new id and do nothing
  intms_ = 0;
  thr_ = time_ = 0;
  if (intx_level_) cq_level(false, 0);
}

bool NvmeInterrupts::table_read(uint32_t off, uint8_t* p, unsigned len) const {
  if (off + len > table_.size()) return false;
  std::memcpy(p, &table_[off], len);
  return true;
}

bool NvmeInterrupts::table_write(uint32_t off, const uint8_t* p, unsigned len) {
  if (off + len > table_.size()) return false;
  std::memcpy(&table_[off], p, len);
  // Only the mask bit of vector control is writable; clearing it may release a pending message.
  for (uint32_t v = off / MSIX_ENTRY_SIZE; v <= (off + len - 1) / MSIX_ENTRY_SIZE; ++v) {
    uint8_t* ctrl = &table_[v * MSIX_ENTRY_SIZE + 12];
    ctrl[0] &= 1;
    ctrl[1] = ctrl[2] = ctrl[3] = 0;
  }
  deliver_pending();
  return true;
}

bool NvmeInterrupts::pba_read(uint32_t off, uint8_t* p, unsigned len) const {
  uint32_t bytes = (vectors_ + 63) / 64 * 8;
  if (off + len > bytes) return false;
  for (unsigned i = 0; i < len; ++i) {
    uint8_t b = 0;
    for (unsigned bit = 0; bit < 8; ++bit) {
      uint32_t v = (off + i) * 8 + bit;
      if (v < vectors_ && vec_[v].pending) b |= uint8_t(1u << bit);
    }
    p[i] = b;
  }
  return true;
}

void NvmeInterrupts::mask_set(uint32_t bits) { intms_ |= bits; }

void NvmeInterrupts::mask_clear(uint32_t bits) {
  intms_ &= ~bits;
  deliver_pending();
  if (pin_based()) cq_level(cq_level_, 0);
}

bool NvmeInterrupts::masked(uint16_t v) const {
  if (cfg_.msix_enabled()) return cfg_.msix_function_masked() || (table_[v * MSIX_ENTRY_SIZE + 12] & 1);
  unsigned n = std::max(1u, cfg_.msi_enabled_vectors());
  unsigned m = v % n;
  return (intms_ >> m & 1) || cfg_.msi_vector_masked(m);
}

void NvmeInterrupts::completion_posted(uint16_t v, Tick delay, bool io) {
  if (v >= vectors_) return;
  if (!cfg_.msix_enabled() && !cfg_.msi_enabled()) return;  // INTx follows the CQ level instead
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
  if (masked(v)) {
    x.pending = true;
    if (!cfg_.msix_enabled()) cfg_.set_msi_pending(v % std::max(1u, cfg_.msi_enabled_vectors()), true);
    return;
  }
  send_message(v, delay);
}

void NvmeInterrupts::send_message(uint16_t v, Tick delay) {
  vec_[v].pending = false;
  if (!cfg_.bus_master()) return;  // a function without bus mastering cannot send messages
  if (cfg_.msix_enabled()) {
    const uint8_t* e = &table_[v * MSIX_ENTRY_SIZE];
    uint64_t addr;
    uint32_t data;
    std::memcpy(&addr, e, 8);
    std::memcpy(&data, e + 8, 4);
    ++msix_;
    send_(addr, data, delay);
    return;
  }
  unsigned n = std::max(1u, cfg_.msi_enabled_vectors());
  cfg_.set_msi_pending(v % n, false);
  ++msi_;
  send_(cfg_.msi_address(), cfg_.msi_data() | (v % n), delay);  // multiple messages vary the low data bits
}

void NvmeInterrupts::deliver_pending() {
  for (uint32_t v = 0; v < vectors_; ++v)
    if (vec_[v].pending && !masked(static_cast<uint16_t>(v))) send_message(static_cast<uint16_t>(v), 0);
}

void NvmeInterrupts::config_changed() {
  deliver_pending();
  if (!pin_based() && intx_level_) cq_level(false, 0);  // the pin is released when messages take over
}

void NvmeInterrupts::cq_level(bool entries_outstanding, Tick delay) {
  cq_level_ = entries_outstanding;
  bool want = entries_outstanding && !cfg_.msix_enabled() && !cfg_.msi_enabled() && !cfg_.intx_disabled() &&
              !(intms_ & 1);
  cfg_.set_intx_status(entries_outstanding && !(intms_ & 1));
  if (want == intx_level_) return;
  intx_level_ = want;
  if (want) ++intx_;
  send_(intx_address, want ? 1u : 0u, delay);
}

}  // namespace vp::ssd
