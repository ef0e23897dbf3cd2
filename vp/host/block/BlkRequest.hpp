// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A block-layer request (Linux's struct request): what becomes one NVMe
// command. It carries one application I/O, or several when blk-mq merged
// contiguous ones into it, chained head..tail through IoRequest::next_in_cmd
// the way a request chains its bios.
#include <cstdint>

#include "vp/host/block/IoRequest.hpp"

namespace vp::host {

struct BlkRequest {
  IoRequest* head = nullptr;
  IoRequest* tail = nullptr;
  bool write = false;
  uint64_t lba = 0;
  uint32_t nlb = 0;
  uint32_t bytes = 0;
  uint32_t segments = 0;  // IoRequests carried (one PRP segment each)
  uint8_t attr = 0;
  unsigned core = 0;      // software queue (submitting core)
  unsigned hwq = 0;       // hardware queue it maps to
  uint64_t seq = 0;       // age: lower was queued earlier
  Tick fifo_time = 0;     // deadline: when it expires

  uint64_t end() const { return lba + nlb; }
  bool overlaps(uint64_t l, uint32_t n) const { return lba < l + n && l < end(); }
};

}  // namespace vp::host
