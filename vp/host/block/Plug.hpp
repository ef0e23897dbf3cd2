// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A task's block plug (Linux's struct blk_plug): while a batch is being
// submitted its requests collect here instead of going to the queues, a new
// I/O merges only with the most recently plugged request (as
// blk_attempt_plug_merge does with one queue), and the batch is flushed to
// the queues at the end, or early when the plug is full.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "vp/host/block/BlkRequest.hpp"

namespace vp::host {

class Plug {
 public:
  static constexpr size_t kMaxRequests = 32;         // BLK_MAX_REQUEST_COUNT
  static constexpr uint32_t kFlushBytes = 128 << 10;  // BLK_PLUG_FLUSH_SIZE

  bool active = false;
  std::vector<BlkRequest*> requests;  // plugging order

  BlkRequest* last() const { return requests.empty() ? nullptr : requests.back(); }
  // Linux flushes before adding a request to a full plug or after a large one.
  bool full() const { return requests.size() >= kMaxRequests || (last() && last()->bytes >= kFlushBytes); }
  void remove(BlkRequest* rq) { requests.erase(std::remove(requests.begin(), requests.end(), rq), requests.end()); }
};

}  // namespace vp::host
