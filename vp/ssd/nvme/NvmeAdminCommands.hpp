// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The NVMe admin command set as the controller executes it (NVMe 1.4 sec.
// 5): Identify (controller, namespace, active namespace list), Get/Set
// Features, Create/Delete I/O SQ and CQ, Get Log Page (Error Information,
// SMART / Health, Firmware Slot), Abort, Keep Alive, Format NVM and
// Asynchronous Event Request. It works on the controller's queues, command
// slots and feature values, and completes through it; the controller
// fetches admin commands and hands each one here after its admin time.
#include <array>
#include <cstdint>

#include "vp/ssd/nvme/NvmeController.hpp"

namespace vp::ssd {

class NvmeAdminCommands {
 public:
  explicit NvmeAdminCommands(NvmeController& c) : c_(c) {}
  // Executes the admin command in slot `s` and completes it (or holds it:
  // an Asynchronous Event Request waits for an event).
  void execute(uint32_t s);

 private:
  using Slot = NvmeController::Slot;
  using SubQueue = NvmeController::SubQueue;
  using CompQueue = NvmeController::CompQueue;
  using ErrorEntry = NvmeController::ErrorEntry;
  uint16_t identify(Slot& sl, Tick& delay);
  uint16_t create_cq(const nvme::Sqe& c);
  uint16_t create_sq(const nvme::Sqe& c);
  uint16_t delete_sq(const nvme::Sqe& c);
  uint16_t delete_cq(const nvme::Sqe& c);
  uint16_t features(Slot& sl);
  uint16_t feature_value(uint8_t fid, uint8_t sel, uint32_t cdw11, uint32_t& dw0);
  uint16_t abort(Slot& sl);
  std::array<uint8_t, 16> nguid() const;
  void format(uint32_t s);
  uint16_t get_log_page(Slot& sl, Tick& delay);
  // Sends `bytes` of the slot's buffer to the command's PRPs.
  uint16_t send_to_host(Slot& sl, uint32_t bytes, Tick& delay);

  NvmeController& c_;
};

}  // namespace vp::ssd
