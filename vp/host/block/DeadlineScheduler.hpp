// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// mq-deadline as in Linux 6.1 (one priority class): a FIFO and a sector-sorted
// list per direction. Requests leave in batches of up to fifo_batch in
// sector order; a new batch prefers reads unless writes have been passed
// over writes_starved times, and starts at the oldest request of its
// direction when that one has expired (or when no sector successor is
// left), otherwise at the sector successor of the last one dispatched.
#include <list>
#include <map>

#include "vp/core/ParamScope.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/host/block/IoScheduler.hpp"

namespace vp::host {

struct DeadlineParams {
  Tick read_expire, write_expire;
  unsigned fifo_batch, writes_starved;
};

class DeadlineScheduler : public IoScheduler {
 public:
  // In the scheduler's scope (host.blkmq.deadline on the server).
  static void declare_params(const ParamScope& p);
  static DeadlineParams params_from(const ScopedConfig& cfg);
  DeadlineScheduler(const DeadlineParams& p, const StatGroup& stats);

  void insert(BlkRequest* rq, Tick now) override;
  BlkRequest* dispatch(Tick now) override;
  bool empty() const override { return fifo_[0].empty() && fifo_[1].empty(); }
  size_t size() const override { return fifo_[0].size() + fifo_[1].size(); }
  // The elevator's two lookups, whatever core submits: the request ending
  // where `io` starts (back merge, by hash) and the one starting where it
  // ends (front merge, by the sort tree).
  std::vector<BlkRequest*> merge_candidates(const IoRequest& io, unsigned core) const override;
  void merged(BlkRequest* rq, bool front) override;
  std::vector<BlkRequest*> queued() const override;
  void remove(BlkRequest* rq) override;

 private:
  using Sorted = std::multimap<uint64_t, BlkRequest*>;
  Sorted::iterator find_sorted(BlkRequest* rq);
  BlkRequest* successor(BlkRequest* rq);
  void take(BlkRequest* rq);  // out of both lists, keeping next_ right

  DeadlineParams p_;
  std::list<BlkRequest*> fifo_[2];  // [0] reads, [1] writes, by insertion
  Sorted sorted_[2];                // by start sector
  BlkRequest* next_[2] = {nullptr, nullptr};
  int last_dir_ = 0;
  unsigned batching_ = 0, starved_ = 0;
  Counter &batches_, &expired_, &write_turns_;
};

}  // namespace vp::host
