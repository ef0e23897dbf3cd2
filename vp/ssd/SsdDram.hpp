// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The SSD's embedded DRAM: one data bus of `bus_width` bits at `data_rate`
// in front of `banks` banks, each keeping its last row open (open-page
// policy). Rows of `row_size` bytes are interleaved across the banks
// (global row g = addr / row_size lives in bank g mod banks as row
// g / banks), so a sequential stream walks the banks.
//
// An access waits for the bus (first come first served, in booking order),
// then for each row it touches pays the bank's row timing -- hit: t_cl;
// another row open: t_rp + t_rcd + t_cl; bank closed: t_rcd + t_cl -- and
// the burst of its bytes in that row, bytes / (bus_width/8 x data_rate).
// Refresh is not simulated as events: the fraction of time it takes,
// `refresh_overhead`, stretches every transfer by 1 / (1 - overhead).
//
// Users (the controller's data staging, the FTL's mapping table, the cache
// layer) reserve their regions at elaboration; regions are handed out one
// after another and the DRAM's size bounds them.
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class SsdDram : public sc_core::sc_module, public ISsdDram {
 public:
  sc_core::sc_export<ISsdDram> target;

  static constexpr const char* kScope = "ssd.dram";
  static void declare_params(const ParamScope& p);
  SsdDram(sc_core::sc_module_name name, Services& svc, const std::string& scope = kScope);

  uint64_t reserve(uint64_t bytes, const std::string& what, const std::vector<std::string>& keys = {}) override;
  Tick access(uint64_t addr, uint64_t bytes, bool write, Tick now) override;

  uint64_t size() const { return size_; }
  uint64_t reserved() const { return next_; }
  // Bus time of `bytes` of burst, refresh stretch included.
  Tick transfer_time(uint64_t bytes) const;
  Tick busy_total() const { return bus_.busy_total(); }
  // Regions, accesses and utilisation (bus busy time over `elapsed`).
  nlohmann::json summary(Tick elapsed) const;
  uint64_t events() const { return eq_.fired(); }

 private:
  static constexpr uint64_t kClosed = ~uint64_t(0);

  EventQueue eq_;  // only drives the traced busy flag
  ScopedConfig cfg_;
  StatGroup stats_;
  uint64_t size_, row_size_;
  uint32_t bus_bytes_, banks_;
  double data_rate_, refresh_;
  Tick t_rcd_, t_cl_, t_rp_;
  FcfsResource bus_;
  BusySignal busy_;
  std::vector<uint64_t> open_row_;  // per bank: the open row, or kClosed
  uint64_t next_ = 0;               // first byte not reserved
  std::vector<std::pair<std::string, uint64_t>> regions_;
  Counter &reads_, &writes_, &read_bytes_, &write_bytes_, &row_hits_, &row_misses_, &busy_ps_;
};

}  // namespace vp::ssd
