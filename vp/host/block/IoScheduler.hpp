// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The I/O scheduler slot of a blk-mq hardware queue: requests are inserted
// when they cannot (or, with a scheduler, may not) go to the driver at once
// and are handed back, one per free tag, in the order the policy chooses.
// Merge lookups and the FlashShare hazard scan go through it too, since only
// the policy knows how its queues are organised.
#include <cstdint>
#include <vector>

#include "vp/host/block/BlkRequest.hpp"

namespace vp::host {

class IoScheduler {
 public:
  virtual ~IoScheduler() = default;
  virtual void insert(BlkRequest* rq, Tick now) = 0;
  // The next request to issue, taken out; nullptr when empty.
  virtual BlkRequest* dispatch(Tick now) = 0;
  virtual bool empty() const = 0;
  virtual size_t size() const = 0;  // requests held
  // Queued requests a bio merge by `core` may look at, in the order the
  // lookup examines them.
  virtual std::vector<BlkRequest*> merge_candidates(const IoRequest& io, unsigned core) const = 0;
  // `rq` grew by a merge (a front merge moved its start sector).
  virtual void merged(BlkRequest* rq, bool front) = 0;
  // Every queued request, oldest first (hazard scan).
  virtual std::vector<BlkRequest*> queued() const = 0;
  virtual void remove(BlkRequest* rq) = 0;
};

}  // namespace vp::host
