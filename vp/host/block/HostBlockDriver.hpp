// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the host's cores, jobs and page cache need from the driver of the
// block device they use, whichever it is (the NVMe driver; an I/O-stack
// accelerator's driver beside it): blk-mq's view (BlkMqDriver), whether the
// device is up and what it is, host memory as the driver's DMA sees it, and
// the polled completion path.
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/Event.hpp"
#include "vp/host/block/BlkMqDriver.hpp"
#include "vp/host/block/IoRequest.hpp"

namespace vp::host {

// What bring-up learned about the device.
struct ControllerInfo {
  std::string model, serial;
  uint64_t ns_lbas = 0;
  uint32_t lba_size = 0;
  uint32_t max_transfer = 0;  // bytes (MDTS)
  uint32_t io_queues = 0;
  uint64_t cap = 0;
  bool volatile_write_cache = false;  // Identify Controller VWC (byte 525) bit 0
  uint32_t version = 0;
};

class HostBlockDriver : public BlkMqDriver {
 public:
  // Bring-up finished (ready_event() is notified then).
  virtual bool ready() const = 0;
  virtual const Event& ready_event() const = 0;
  virtual const ControllerInfo& info() const = 0;
  // Host memory at physical address `addr`, as the device's DMA reaches it.
  virtual uint8_t* host_ptr(uint64_t addr) = 0;
  // The blk-mq hardware queue submission queue `sqid` belongs to.
  virtual unsigned hw_queue_of(uint16_t sqid) const = 0;
  // Polled completions: whether there are polled queues at all, whether
  // core `core`'s has a new entry (a look, nothing consumed), reaping it
  // (completed I/Os appended to `done`), and the event a polling core
  // waits on instead of re-reading every cycle (device writes landing).
  virtual bool has_poll_queues() const = 0;
  virtual bool poll_ready(unsigned core) const = 0;
  virtual void poll(unsigned core, std::vector<IoRequest*>& done) = 0;
  virtual const Event& memory_written() const = 0;
};

}  // namespace vp::host
