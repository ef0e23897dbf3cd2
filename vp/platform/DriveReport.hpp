// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What reached a drive from the host that drives it (summary.json's
// "device"): flash and PCIe totals, the I/O commands the controller decoded
// (FastDrain's victim tag included), and the volatile write cache as the
// host's driver read it. Shared by the platforms that put a drive behind a
// modeled NVMe driver (vp-server, vp-drive).
#include <nlohmann/json.hpp>

#include "vp/core/StatRegistry.hpp"
#include "vp/host/block/HostBlockDriver.hpp"
#include "vp/ssd/Drive.hpp"

namespace vp::platform {

class DriveReport {
 public:
  DriveReport(StatRegistry& stats, ssd::Drive& drive, const host::HostBlockDriver& driver);
  nlohmann::json summary() const;

 private:
  StatRegistry& stats_;
  ssd::Drive& drive_;
  const host::HostBlockDriver& driver_;
  uint64_t reads_ = 0, writes_ = 0, written_blocks_ = 0, victim_writes_ = 0, victim_pages_max_ = 0;
};

}  // namespace vp::platform
