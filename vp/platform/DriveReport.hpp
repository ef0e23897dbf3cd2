// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What reached a drive from the host that drives it (the section "device"
// of the drive's entry in summary.json): flash and PCIe totals, the I/O commands the controller decoded
// (FastDrain's victim tag included), and the volatile write cache as the
// host's driver read it. Shared by the platforms that put a drive behind a
// modeled NVMe driver (vp-server, vp-drive).
#include <nlohmann/json.hpp>

#include "vp/pcie/PcieLink.hpp"
#include "vp/host/block/HostBlockDriver.hpp"
#include "vp/ssd/Drive.hpp"

namespace vp::platform {

class DriveReport {
 public:
  // `link`: the drive's link, `driver`: the host's driver of the drive;
  // registers the section in the drive's scope.
  DriveReport(StatRegistry& stats, ssd::Drive& drive, const pcie::PcieLink& link,
              const host::HostBlockDriver& driver);
  nlohmann::json summary() const;

 private:
  ssd::Drive& drive_;
  const pcie::PcieLink& link_;
  const host::HostBlockDriver& driver_;
  uint64_t reads_ = 0, writes_ = 0, written_blocks_ = 0, victim_writes_ = 0, victim_pages_max_ = 0;
};

}  // namespace vp::platform
