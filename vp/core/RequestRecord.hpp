// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The record every I/O carries end to end. Each layer marks the end of the
// stage it just finished; the time since the previous mark is charged to that
// stage, so the stages of a request always add up to its latency. The host
// half and the device half are joined by (SQ id, command id).
//
// Host requests and device commands are not one to one: blk-mq merges
// several I/Os into one command and splits a large one into several. Every
// command the driver issues gets a serial number (RequestTracker::issue);
// each I/O keeps the serial of the command it rode in, and a split I/O the
// serials of its pieces, so a request maps to its commands (one to many) and
// I/Os sharing a serial were merged (many to one).
#include <array>
#include <cstdint>
#include <vector>

#include "vp/core/Units.hpp"

namespace vp {

enum class Stage : uint8_t {
  HostSubmit,    // application issue -> blk-mq has the request (syscall, blk-mq CPU work); a buffered
                 // I/O: the thread's time on the CPU in the page cache (copy, submitting its reads)
  CacheWait,     // a buffered I/O waiting on the page cache: its pages being read in, dirty throttling
  BlkMq,         // waiting in a plug, software queue or I/O scheduler -> dispatched to the driver
  DriverQueue,   // waiting in the driver for a free SQ slot / tag
  Accel,         // I/O-stack accelerator: go write -> controller starts fetching the command it composed
  SqWait,        // command in SQ (doorbell rung) -> controller starts fetching it
  Fetch,         // 64-byte command DMA
  Firmware,      // firmware tasks, including waiting for an embedded core
  DataDma,       // data between host memory and the SSD
  Flash,         // flash transactions (scheduling, bus, array)
  CqPost,        // completion entry written to host memory
  Interrupt,     // MSI-X delivery, waiting for the core, ISR
  Wakeup,        // context switch back to the waiting thread
  Count
};
constexpr size_t kStages = static_cast<size_t>(Stage::Count);
const char* stage_name(Stage s);

// Marks that arrived earlier than the previous mark of the same request (a
// model reporting a stage out of order); counted so tests can insist on none.
inline uint64_t& stage_order_violations() {
  static uint64_t n = 0;
  return n;
}

struct StageClock {
  Tick origin = 0, last = 0;
  std::array<Tick, kStages> spent{};  // time charged to each stage
  std::array<Tick, kStages> ended{};  // when the stage last ended (0: never)

  void start(Tick t) {
    origin = last = t;
    spent.fill(0);
    ended.fill(0);
  }
  void mark(Stage s, Tick t) {
    if (t < last) {
      ++stage_order_violations();
      t = last;
    }
    auto i = static_cast<size_t>(s);
    spent[i] += t - last;
    ended[i] = t;
    last = t;
  }
  Tick total() const { return last - origin; }
  // Splices in a part of the path recorded elsewhere (the device's half):
  // the time from here to its start is charged to `gap`.
  void join(const StageClock& part, Stage gap) {
    mark(gap, part.origin);
    if (part.last < last) ++stage_order_violations();
    for (size_t i = 0; i < kStages; ++i)
      if (part.ended[i]) {
        spent[i] += part.spent[i];
        ended[i] = part.ended[i];
      }
    last = part.last;
  }
};

// The device's half, filled by the controller for (sqid, cid).
struct DeviceHalf {
  StageClock clock;  // starts when the fetch starts
  bool valid = false;
  uint64_t command = 0;  // serial number of the command in (sqid, cid) now
  uint8_t attr = 0;     // workload attribute the controller decoded from the command
  uint32_t result = 0;  // what the device reported in the completion (buffer status)
};

// Owned by the platform; the controller fills device halves, the host joins them.
class RequestTracker {
 public:
  void resize(unsigned queues, unsigned depth) {
    depth_ = depth;
    halves_.assign(static_cast<size_t>(queues) * depth, DeviceHalf{});
  }
  DeviceHalf* device(unsigned sqid, unsigned cid) {
    size_t i = static_cast<size_t>(sqid) * depth_ + (cid % (depth_ ? depth_ : 1));
    return i < halves_.size() ? &halves_[i] : nullptr;
  }
  bool enabled() const { return !halves_.empty(); }
  // A command is issued as (sqid, cid): its serial number, 1, 2, ... in
  // issue order, recorded in the device half when tracking.
  uint64_t issue(unsigned sqid, unsigned cid) {
    ++issued_;
    if (DeviceHalf* d = device(sqid, cid)) d->command = issued_;
    return issued_;
  }
  uint64_t issued() const { return issued_; }

 private:
  unsigned depth_ = 0;
  uint64_t issued_ = 0;
  std::vector<DeviceHalf> halves_;
};

inline const char* stage_name(Stage s) {
  static const char* names[] = {"host_submit", "cache_wait", "blk_mq",    "driver_queue", "accel",
                                "sq_wait",     "fetch",      "firmware",  "data_dma",     "flash",
                                "cq_post",     "interrupt",  "wakeup"};
  static_assert(sizeof(names) / sizeof(names[0]) == kStages, "a name per stage");
  return names[static_cast<size_t>(s)];
}

}  // namespace vp
