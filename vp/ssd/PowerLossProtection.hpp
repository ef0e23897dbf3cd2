// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Power-loss protection, as enterprise drives (the Z-SSD among them) ship
// it: hold-up capacitors keep the drive running for `ssd.plp.holdup` after
// the host's power fails, and the firmware spends that time writing what
// its DRAM buffers (cache lines, write-buffer entries, evictions in flight)
// to flash. What is on flash when the hold-up ends survives; the pages still
// buffered then are lost, and the summary says how many. Because buffered
// writes survive a power failure, such a drive reports no volatile write
// cache (NVMe Identify VWC = 0) and the host sends it no Flush.
#include <nlohmann/json.hpp>
#include <systemc>
#include <vector>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class PowerLossProtection : public sc_core::sc_module {
 public:
  sc_core::sc_port<IPowerDrain> buffers;

  static constexpr const char* kScope = "ssd.plp";
  static void declare_params(const ParamScope& p);
  PowerLossProtection(sc_core::sc_module_name name, Services& svc, const std::string& scope = kScope);

  bool enabled() const { return enabled_; }
  // The host's power fails now: the buffers drain until they are empty or
  // the hold-up time is over, whichever comes first (`done`). The
  // simulation pauses (sc_pause) when they are empty.
  void power_fail();
  bool failing() const { return failing_; }
  bool done() const { return drained_ || now_ps() >= deadline(); }
  Tick deadline() const { return failed_at_ + holdup_; }
  // The hold-up is over: the pages still buffered are lost (returned).
  std::vector<uint64_t> cut();
  nlohmann::json summary() const;

 private:
  bool enabled_;
  Tick holdup_;
  Tick failed_at_ = 0, drained_at_ = 0;
  bool failing_ = false, drained_ = false;
  uint64_t buffered_ = 0, lost_ = 0;
};

}  // namespace vp::ssd
