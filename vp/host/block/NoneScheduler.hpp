// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// blk-mq without an I/O scheduler ("none"): requests that find no free tag
// wait in the software queues and leave first in, first out (one list per
// hardware queue, in arrival order across the cores mapped to it). A bio
// merge looks at the newest requests of the submitting core's software
// queue only, at most eight of them, as Linux's blk_bio_list_merge does.
#include <list>

#include "vp/host/block/IoScheduler.hpp"

namespace vp::host {

class NoneScheduler : public IoScheduler {
 public:
  static constexpr unsigned kMergeLookback = 8;

  void insert(BlkRequest* rq, Tick now) override;
  BlkRequest* dispatch(Tick now) override;
  bool empty() const override { return fifo_.empty(); }
  size_t size() const override { return fifo_.size(); }
  std::vector<BlkRequest*> merge_candidates(const IoRequest& io, unsigned core) const override;
  void merged(BlkRequest*, bool) override {}
  std::vector<BlkRequest*> queued() const override;
  void remove(BlkRequest* rq) override;

 private:
  std::list<BlkRequest*> fifo_;
};

}  // namespace vp::host
