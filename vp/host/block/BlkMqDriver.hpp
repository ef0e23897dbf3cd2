// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What blk-mq needs from the block driver below it: its hardware queues (the
// NVMe I/O queue pairs), their depth and the largest transfer, and a way to
// issue a request that already holds a tag of one of them.
#include <cstdint>

#include "vp/host/block/IoRequest.hpp"

namespace vp::host {

class BlkMqDriver {
 public:
  virtual ~BlkMqDriver() = default;
  // Largest transfer of one command in bytes (MDTS; 0 = no limit reported).
  virtual uint32_t max_transfer() const = 0;
  // Requests one hardware queue holds at once (blk-mq's tags).
  virtual uint32_t queue_tags() const = 0;
  // `head` and the requests chained behind it through next_in_cmd form one
  // command; it goes to hardware queue `hwq`.
  virtual void issue(IoRequest& head, unsigned hwq) = 0;
};

}  // namespace vp::host
