// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/DriveReport.hpp"

#include <algorithm>

namespace vp::platform {

DriveReport::DriveReport(StatRegistry& stats, ssd::Drive& drive, const host::HostBlockDriver& driver)
    : stats_(stats), drive_(drive), driver_(driver) {
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
  return {{"flash_reads", stats_.value("ssd.flash.reads")},
          {"flash_programs", stats_.value("ssd.flash.programs")},
          {"flash_erases", stats_.value("ssd.flash.erases")},
          {"pcie_bytes_down", stats_.value("pcie.bytes_down")},
          {"pcie_bytes_up", stats_.value("pcie.bytes_up")},
          {"nvme_error_completions", stats_.value("ssd.nvme.error_completions")},
          {"volatile_write_cache", driver_.info().volatile_write_cache},  // Identify VWC as the host read it
          {"flash_stored_bytes", drive_.flash.stored_bytes()},
          {"read_commands", reads_},
          {"write_commands", writes_},
          {"written_blocks", written_blocks_},
          {"victim_writes", victim_writes_},
          {"victim_pages_max", victim_pages_max_}};
}

}  // namespace vp::platform
