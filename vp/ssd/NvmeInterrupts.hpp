// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How an NVMe controller tells the host that completion queues have entries:
// MSI-X (one table entry per vector, in BAR0, with its Pending Bit Array),
// MSI (one to 32 vectors, masked per vector by INTMS/INTMC) or, when neither
// is enabled, the INTx pin (level: asserted while any interrupt-enabled CQ
// holds entries the host has not consumed and INTMS bit 0 is clear).
// Interrupt coalescing (Set Features 08h: aggregation threshold and time) and
// its per-vector opt-out (09h, CD) apply to I/O completion queues only.
// A masked vector's message is held pending and sent when it is unmasked.
#include <cstdint>
#include <functional>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Stats.hpp"
#include "vp/pcie/PciConfigSpace.hpp"

namespace vp::ssd {

class NvmeInterrupts {
 public:
  // A posted write of `data` to `addr` leaving the device `delay` from now
  // (an MSI/MSI-X message, or an INTx assert/deassert message).
  using Send = std::function<void(uint64_t addr, uint32_t data, Tick delay)>;
  // Where INTx assert/deassert messages are written (the host's interrupt
  // controller decodes them; the data is 1 for assert, 0 for deassert).
  uint64_t intx_address = 0;

  NvmeInterrupts(EventQueue& eq, uint32_t vectors, pcie::PciConfigSpace& cfg, Send send, StatRegistry& stats);

  uint32_t vectors() const { return vectors_; }
  // MSI-X table and PBA accesses through BAR0 (`off` relative to the table
  // or PBA); false when outside them.
  bool table_read(uint32_t off, uint8_t* p, unsigned len) const;
  bool table_write(uint32_t off, const uint8_t* p, unsigned len);
  bool pba_read(uint32_t off, uint8_t* p, unsigned len) const;

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
  // Neither MSI-X nor MSI is enabled: the INTx pin signals completions.
  bool pin_based() const { return !cfg_.msix_enabled() && !cfg_.msi_enabled(); }
  // For INTx: whether any interrupt-enabled CQ holds unconsumed entries
  // (the controller reports it only while pin_based()).
  void cq_level(bool entries_outstanding, Tick delay);
  // The host changed MSI/MSI-X control or the command register: deliver
  // what was held by a mask that is gone.
  void config_changed();
  // Controller reset: coalescing state and pending messages are dropped;
  // the MSI-X table keeps what the host programmed (it is PCI state).
  void reset();
  // PCI reset: the table is masked again as at power-on.
  void reset_table();

 private:
  struct Vector {
    uint32_t aggregated = 0;  // completions not yet signalled
    bool timer = false, pending = false, cd = false;
    uint64_t timer_id = 0;
  };
  bool masked(uint16_t v) const;
  void fire(uint16_t v, Tick delay);
  void send_message(uint16_t v, Tick delay);
  void deliver_pending();

  EventQueue& eq_;
  uint32_t vectors_;
  pcie::PciConfigSpace& cfg_;
  Send send_;
  std::vector<uint8_t> table_;
  std::vector<Vector> vec_;
  uint32_t intms_ = 0;
  uint8_t thr_ = 0, time_ = 0;
  uint64_t next_timer_ = 0;
  bool intx_level_ = false, cq_level_ = false;
  Counter &msix_, &msi_, &intx_, &coalesced_;
};

}  // namespace vp::ssd
