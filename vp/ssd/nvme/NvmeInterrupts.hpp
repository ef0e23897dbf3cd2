// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// When an NVMe controller tells the host that completion queues have
// entries, on top of the function's interrupt signalling (PciInterrupts:
// MSI-X, MSI or the INTx pin): the INTx pin is level, asserted while any
// interrupt-enabled CQ holds entries the host has not consumed and INTMS
// bit 0 is clear; INTMS/INTMC mask MSI vectors; interrupt coalescing (Set
// Features 08h: aggregation threshold and time) and its per-vector opt-out
// (09h, CD) apply to I/O completion queues only.
#include <cstdint>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/pcie/PciInterrupts.hpp"

namespace vp::ssd {

class NvmeInterrupts {
 public:
  NvmeInterrupts(EventQueue& eq, pcie::PciInterrupts& signals, const StatGroup& stats);

  uint32_t vectors() const { return signals_.vectors(); }

  // INTMS / INTMC (meaningful for MSI and INTx only).
  void mask_set(uint32_t bits);
  void mask_clear(uint32_t bits);
  uint32_t mask() const { return intms_; }

  // Interrupt coalescing: threshold as the 0-based field, time in 100 us units.
  void set_coalescing(uint8_t threshold, uint8_t time_100us) {
    thr_ = threshold;
    time_ = time_100us;
  }
  void set_coalescing_disabled(uint16_t vector, bool cd) { vec_[vector].cd = cd; }
  bool coalescing_disabled(uint16_t vector) const { return vec_[vector].cd; }

  // A completion entry was posted to a CQ using `vector`; `delay` is when
  // the entry leaves the device (the message must follow it). Admin CQ
  // entries are never coalesced (`io` false).
  void completion_posted(uint16_t vector, Tick delay, bool io);
  bool pin_based() const { return signals_.pin_based(); }
  // For INTx: whether any interrupt-enabled CQ holds unconsumed entries
  // (the controller reports it only while pin_based()).
  void cq_level(bool entries_outstanding, Tick delay);
  // The host changed MSI/MSI-X control or the command register: deliver
  // what was held by a mask that is gone.
  void config_changed();
  // Controller reset: coalescing state and pending messages are dropped;
  // the MSI-X table keeps what the host programmed (it is PCI state).
  void reset();

 private:
  struct Vector {
    uint32_t aggregated = 0;  // completions not yet signalled
    bool timer = false, cd = false;
    uint64_t timer_id = 0;
  };
  void fire(uint16_t v, Tick delay);

  EventQueue& eq_;
  pcie::PciInterrupts& signals_;
  std::vector<Vector> vec_;
  uint32_t intms_ = 0;
  uint8_t thr_ = 0, time_ = 0;
  uint64_t next_timer_ = 0;
  bool cq_level_ = false;
  Counter& coalesced_;
};

}  // namespace vp::ssd
