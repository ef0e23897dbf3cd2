// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The NVM command set as the controller executes it (NVMe 1.4 sec. 6):
// Read, Write and Compare (checked, data moved by PRPs through the staging
// buffer in SSD DRAM, handed to the firmware), Flush, Dataset Management
// (ranges trimmed with the deallocate attribute) and Write Zeroes (zeros
// written in MDTS-sized pieces), the last two served as steps one after
// another. It works on the controller's command slots and completes
// through it.
#include <cstdint>

#include "vp/ssd/nvme/NvmeController.hpp"

namespace vp::ssd {

class NvmeIoCommands {
 public:
  explicit NvmeIoCommands(NvmeController& c) : c_(c) {}
  // Checks the I/O command in slot `s` and starts it (or completes it with an error).
  void execute(uint32_t s);
  // Sends the slot's current step to the firmware (Dataset Management,
  // Write Zeroes, Format NVM).
  void run_step(uint32_t s);
  // The firmware served the command: data to the host or compared, then the completion.
  void finish(uint32_t s);
  // A write's data fetched from the host into the staging buffer, then the
  // command to the firmware; a read's data sent to the host, then the
  // completion. Each starts `delay` from now and returns when the link is
  // done with the data (the controller's DMA queue waits for it).
  Tick fetch_write_data(uint32_t s, Tick delay);
  Tick send_read_data(uint32_t s, Tick delay);

 private:
  using Slot = NvmeController::Slot;
  using Step = NvmeController::Step;
  void read_write(uint32_t s);
  // `move` now (`delay` from now), or through `queue`, the DMA engine's, when it orders transfers.
  void transfer(DataDmaQueue* queue, uint32_t s, Tick delay, Tick (NvmeIoCommands::*move)(uint32_t, Tick));
  void dsm(uint32_t s);
  void write_zeroes(uint32_t s);

  NvmeController& c_;
};

}  // namespace vp::ssd
