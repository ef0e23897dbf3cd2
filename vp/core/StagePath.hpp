// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The order in which an I/O passes the stages of its record (Stage's own
// order is the write's): a read's flash transactions come before its data
// crosses PCIe to the host, a write's data crosses PCIe before it is
// programmed. A buffered I/O's wait in the page cache comes after its
// submission on the CPU and before the block layer, where the page cache
// sits. Outputs list stages in this order, per direction.
#include <array>

#include "vp/core/RequestRecord.hpp"

namespace vp {

inline const std::array<Stage, kStages>& stage_path(bool write) {
  static const std::array<Stage, kStages> read = {
      Stage::HostSubmit, Stage::CacheWait, Stage::BlkMq,     Stage::DriverQueue, Stage::Accel,
      Stage::SqWait,     Stage::Fetch,     Stage::Firmware,  Stage::Flash,       Stage::DataDma,
      Stage::CqPost,     Stage::Interrupt, Stage::Wakeup};
  static const std::array<Stage, kStages> written = {
      Stage::HostSubmit, Stage::CacheWait, Stage::BlkMq,     Stage::DriverQueue, Stage::Accel,
      Stage::SqWait,     Stage::Fetch,     Stage::Firmware,  Stage::DataDma,     Stage::Flash,
      Stage::CqPost,     Stage::Interrupt, Stage::Wakeup};
  return write ? written : read;
}

}  // namespace vp
