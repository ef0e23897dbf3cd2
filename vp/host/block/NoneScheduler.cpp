// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/block/NoneScheduler.hpp"

#include <algorithm>

namespace vp::host {

void NoneScheduler::insert(BlkRequest* rq, Tick) { fifo_.push_back(rq); }

BlkRequest* NoneScheduler::dispatch(Tick) {
  if (fifo_.empty()) return nullptr;
  BlkRequest* rq = fifo_.front();
  fifo_.pop_front();
  return rq;
}

std::vector<BlkRequest*> NoneScheduler::merge_candidates(const IoRequest&, unsigned core) const {
  std::vector<BlkRequest*> v;
  for (auto it = fifo_.rbegin(); it != fifo_.rend() && v.size() < kMergeLookback; ++it)
    if ((*it)->core == core) v.push_back(*it);
  return v;
}

std::vector<BlkRequest*> NoneScheduler::queued() const { return {fifo_.begin(), fifo_.end()}; }

void NoneScheduler::remove(BlkRequest* rq) { fifo_.remove(rq); }

}  // namespace vp::host
