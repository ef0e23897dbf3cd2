// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/DriveReport.hpp"

#include <algorithm>

#include "vp/core/StatGroup.hpp"

namespace vp::platform {

DriveReport::DriveReport(StatRegistry& stats, ssd::Drive& drive, const pcie::PcieLink& link,
                         const host::HostBlockDriver& driver)
    : drive_(drive), link_(link), driver_(driver) {
  StatGroup(stats, drive.scope())
      .section("device", "what reached the drive from its host: flash and PCIe totals, I/O commands decoded, "
                         "the volatile write cache as the driver read it",
               [this] { return summary(); });
  drive.nvme.on_command.subscribe([this](const ssd::NvmeController::CommandRecord& c) {
    if (c.opcode == nvme::IO_READ) ++reads_;
    if (c.opcode != nvme::IO_WRITE) return;
    ++writes_;
    written_blocks_ += c.nlb;
    if (c.victim) {
      ++victim_writes_;
      victim_pages_max_ = std::max<uint64_t>(victim_pages_max_, c.victim_pages);
    }
  });
}

nlohmann::json DriveReport::summary() const {
  const flash::FlashCounters& f = drive_.flash.counters();
  return {{"flash_reads", f.reads.value},
          {"flash_programs", f.programs.value},
          {"flash_erases", f.erases.value},
          {"pcie_bytes_down", link_.down_stats().payload_bytes},
          {"pcie_bytes_up", link_.up_stats().payload_bytes},
          {"nvme_error_completions", drive_.nvme.error_completions()},
          {"volatile_write_cache", driver_.info().volatile_write_cache},  // Identify VWC as the host read it
          {"flash_stored_bytes", drive_.flash.stored_bytes()},
          {"read_commands", reads_},
          {"write_commands", writes_},
          {"written_blocks", written_blocks_},
          {"victim_writes", victim_writes_},
          {"victim_pages_max", victim_pages_max_}};
}

}  // namespace vp::platform
