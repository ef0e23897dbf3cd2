// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/PciInterrupts.hpp"

#include <algorithm>
#include <cstring>

namespace vp::pcie {

PciInterrupts::PciInterrupts(uint32_t vectors, PciConfigSpace& cfg, Send send, const StatGroup& stats)
    : vectors_(vectors),
      cfg_(cfg),
      send_(std::move(send)),
      table_(size_t(vectors) * kEntryBytes, 0),
      pending_(vectors, false),
      msix_(stats.counter("msix_sent", "messages", "MSI-X messages sent")),
      msi_(stats.counter("msi_sent", "messages", "MSI messages sent")),
      intx_(stats.counter("intx_asserts", "messages", "INTx assert messages sent")) {
  reset_table();
}

void PciInterrupts::reset_table() {
  std::fill(table_.begin(), table_.end(), 0);
  for (uint32_t v = 0; v < vectors_; ++v) table_[v * kEntryBytes + 12] = 1;  // masked at power-on
  clear_pending();
}

void PciInterrupts::clear_pending() { std::fill(pending_.begin(), pending_.end(), false); }

bool PciInterrupts::table_read(uint32_t off, uint8_t* p, unsigned len) const {
  if (off + len > table_.size()) return false;
  std::memcpy(p, &table_[off], len);
  return true;
}

bool PciInterrupts::table_write(uint32_t off, const uint8_t* p, unsigned len) {
  if (off + len > table_.size()) return false;
  std::memcpy(&table_[off], p, len);
  // Only the mask bit of vector control is writable; clearing it may release a pending message.
  for (uint32_t v = off / kEntryBytes; v <= (off + len - 1) / kEntryBytes; ++v) {
    uint8_t* ctrl = &table_[v * kEntryBytes + 12];
    ctrl[0] &= 1;
    ctrl[1] = ctrl[2] = ctrl[3] = 0;
  }
  deliver_pending();
  return true;
}

bool PciInterrupts::pba_read(uint32_t off, uint8_t* p, unsigned len) const {
  if (off + len > pba_bytes()) return false;
  for (unsigned i = 0; i < len; ++i) {
    uint8_t b = 0;
    for (unsigned bit = 0; bit < 8; ++bit) {
      uint32_t v = (off + i) * 8 + bit;
      if (v < vectors_ && pending_[v]) b |= uint8_t(1u << bit);
    }
    p[i] = b;
  }
  return true;
}

void PciInterrupts::set_device_msi_mask(uint32_t bits) { device_mask_ = bits; }

unsigned PciInterrupts::msi_vector(uint16_t v) const { return v % std::max(1u, cfg_.msi_enabled_vectors()); }

bool PciInterrupts::masked(uint16_t v) const {
  if (cfg_.msix_enabled()) return cfg_.msix_function_masked() || (table_[v * kEntryBytes + 12] & 1);
  unsigned m = msi_vector(v);
  return (device_mask_ >> m & 1) || cfg_.msi_vector_masked(m);
}

void PciInterrupts::signal(uint16_t v, Tick delay) {
  if (masked(v)) {
    pending_[v] = true;
    if (!cfg_.msix_enabled()) cfg_.set_msi_pending(msi_vector(v), true);
    return;
  }
  pending_[v] = false;
  if (!cfg_.bus_master()) return;  // a function without bus mastering cannot send messages
  if (cfg_.msix_enabled()) {
    const uint8_t* e = &table_[v * kEntryBytes];
    uint64_t addr;
    uint32_t data;
    std::memcpy(&addr, e, 8);
    std::memcpy(&data, e + 8, 4);
    ++msix_;
    send_(addr, data, delay);
    return;
  }
  unsigned m = msi_vector(v);
  cfg_.set_msi_pending(m, false);
  ++msi_;
  send_(cfg_.msi_address(), cfg_.msi_data() | m, delay);  // multiple messages vary the low data bits
}

void PciInterrupts::deliver_pending() {
  for (uint32_t v = 0; v < vectors_; ++v)
    if (pending_[v] && !masked(static_cast<uint16_t>(v))) signal(static_cast<uint16_t>(v), 0);
}

void PciInterrupts::intx_level(bool level, Tick delay) {
  cfg_.set_intx_status(level);
  bool want = level && pin_based() && !cfg_.intx_disabled();
  if (want == intx_wire_) return;
  intx_wire_ = want;
  if (want) ++intx_;
  send_(intx_address, want ? 1u : 0u, delay);
}

}  // namespace vp::pcie
