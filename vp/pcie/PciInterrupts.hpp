// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How a PCI function signals its interrupt vectors, whatever the device:
// MSI-X (a table entry per vector in a BAR, with its Pending Bit Array), MSI
// (one to 32 vectors, low data bits varied per vector), or the INTx pin as an
// assert/deassert message. A masked vector's message is held pending and sent
// when the mask goes. Device-specific policy (which events fire which vector,
// coalescing, a device's own mask registers) stays with the device.
#include <cstdint>
#include <functional>
#include <vector>

#include "vp/core/StatGroup.hpp"
#include "vp/core/Units.hpp"
#include "vp/pcie/PciConfigSpace.hpp"

namespace vp::pcie {

class PciInterrupts {
 public:
  static constexpr uint32_t kEntryBytes = 16;  // one MSI-X table entry
  // A posted write of `data` to `addr` leaving the function `delay` from now.
  using Send = std::function<void(uint64_t addr, uint32_t data, Tick delay)>;
  // Where INTx assert/deassert messages are written (data 1 / 0); the
  // platform sets it.
  uint64_t intx_address = 0;

  PciInterrupts(uint32_t vectors, PciConfigSpace& cfg, Send send, const StatGroup& stats);

  uint32_t vectors() const { return vectors_; }
  uint32_t table_bytes() const { return vectors_ * kEntryBytes; }
  uint32_t pba_bytes() const { return (vectors_ + 63) / 64 * 8; }
  // MSI-X table and PBA accesses (`off` relative to each); false outside them.
  bool table_read(uint32_t off, uint8_t* p, unsigned len) const;
  bool table_write(uint32_t off, const uint8_t* p, unsigned len);
  bool pba_read(uint32_t off, uint8_t* p, unsigned len) const;

  // Neither MSI-X nor MSI is enabled: only the pin remains.
  bool pin_based() const { return !cfg_.msix_enabled() && !cfg_.msi_enabled(); }
  // The device's own per-MSI-vector mask bits (NVMe's INTMS), on top of the
  // capability's (after clearing some, deliver_pending() sends what they held).
  void set_device_msi_mask(uint32_t bits);
  bool masked(uint16_t v) const;
  // Vector `v` has something to report: its message leaves `delay` from now,
  // or waits while the vector is masked.
  void signal(uint16_t v, Tick delay);
  // Sends what a mask held and is no longer held by one.
  void deliver_pending();
  // The device's interrupt line level: Interrupt Status follows it, the
  // wire carries it while the pin is in use and not disabled.
  void intx_level(bool level, Tick delay);
  bool intx_wire() const { return intx_wire_; }  // asserted on the wire
  // Held messages are dropped (a device reset).
  void clear_pending();
  // PCI reset: the table is masked again as at power-on.
  void reset_table();

 private:
  unsigned msi_vector(uint16_t v) const;  // the MSI vector `v` folds into

  uint32_t vectors_;
  PciConfigSpace& cfg_;
  Send send_;
  std::vector<uint8_t> table_;
  std::vector<bool> pending_;
  uint32_t device_mask_ = 0;
  bool intx_wire_ = false;
  Counter &msix_, &msi_, &intx_;
};

}  // namespace vp::pcie
