// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/block/DeadlineScheduler.hpp"

#include <algorithm>

namespace vp::host {

void DeadlineScheduler::declare_params(const ParamScope& r) {
  r.time("read_expire", "500ms", "mq-deadline: a read is overdue this long after insertion");
  r.time("write_expire", "5s", "mq-deadline: a write is overdue this long after insertion");
  r.integer("fifo_batch", 16, "mq-deadline: requests dispatched in sector order per batch")
      .range(1, 1 << 20);
  r.integer("writes_starved", 2,
            "mq-deadline: read batches that may pass over waiting writes before a write batch")
      .range(0, 1 << 20);
}

DeadlineParams DeadlineScheduler::params_from(const ScopedConfig& c) {
  return {c.get_time("read_expire"), c.get_time("write_expire"),
          static_cast<unsigned>(c.get_int("fifo_batch")),
          static_cast<unsigned>(c.get_int("writes_starved"))};
}

DeadlineScheduler::DeadlineScheduler(const DeadlineParams& p, const StatGroup& s)
    : p_(p),
      batches_(s.total("batches", "batches", "mq-deadline batches started")),
      expired_(s.total("expired_starts", "batches",
                         "mq-deadline batches started at an expired request")),
      write_turns_(s.total("starved_write_batches", "batches",
                             "mq-deadline write batches forced by writes_starved while reads waited")) {}

void DeadlineScheduler::insert(BlkRequest* rq, Tick now) {
  int d = rq->write;
  rq->fifo_time = now + (d ? p_.write_expire : p_.read_expire);
  fifo_[d].push_back(rq);
  sorted_[d].emplace(rq->lba, rq);
}

DeadlineScheduler::Sorted::iterator DeadlineScheduler::find_sorted(BlkRequest* rq) {
  auto& s = sorted_[rq->write];
  auto [lo, hi] = s.equal_range(rq->lba);
  for (auto it = lo; it != hi; ++it)
    if (it->second == rq) return it;
  return s.end();
}

BlkRequest* DeadlineScheduler::successor(BlkRequest* rq) {
  auto it = find_sorted(rq);
  if (it == sorted_[rq->write].end() || ++it == sorted_[rq->write].end()) return nullptr;
  return it->second;
}

void DeadlineScheduler::take(BlkRequest* rq) {
  int d = rq->write;
  if (next_[d] == rq) next_[d] = successor(rq);
  auto it = find_sorted(rq);
  if (it != sorted_[d].end()) sorted_[d].erase(it);
  fifo_[d].remove(rq);
}

BlkRequest* DeadlineScheduler::dispatch(Tick now) {
  BlkRequest* rq = next_[last_dir_];
  if (!(rq && batching_ < p_.fifo_batch)) {
    int dir;
    if (!fifo_[0].empty()) {
      dir = 0;
      if (!fifo_[1].empty() && starved_++ >= p_.writes_starved) {
        dir = 1;
        ++write_turns_;
      }
    } else if (!fifo_[1].empty()) {
      dir = 1;
    } else {
      return nullptr;
    }
    if (dir == 1) starved_ = 0;
    BlkRequest* next = next_[dir];
    bool expired = now >= fifo_[dir].front()->fifo_time;
    if (expired || !next) {
      rq = fifo_[dir].front();
      if (expired) ++expired_;
    } else {
      rq = next;
    }
    batching_ = 0;
    ++batches_;
  }
  ++batching_;
  int d = rq->write;
  BlkRequest* after = successor(rq);
  take(rq);
  next_[d] = after;
  last_dir_ = d;
  return rq;
}

std::vector<BlkRequest*> DeadlineScheduler::merge_candidates(const IoRequest& io, unsigned) const {
  std::vector<BlkRequest*> v;
  const Sorted& s = sorted_[io.write];
  // Back merge: a queued request ending where `io` starts.
  for (const auto& [lba, rq] : s)
    if (rq->end() == io.lba) {
      v.push_back(rq);
      break;
    }
  // Front merge: one starting where `io` ends.
  auto it = s.find(io.lba + io.nlb);
  if (it != s.end()) v.push_back(it->second);
  return v;
}

void DeadlineScheduler::merged(BlkRequest* rq, bool front) {
  if (!front) return;
  // The start sector moved: re-sort. The request keeps its place in the FIFO.
  auto& s = sorted_[rq->write];
  for (auto it = s.begin(); it != s.end(); ++it)
    if (it->second == rq) {
      s.erase(it);
      break;
    }
  s.emplace(rq->lba, rq);
}

std::vector<BlkRequest*> DeadlineScheduler::queued() const {
  std::vector<BlkRequest*> v(fifo_[0].begin(), fifo_[0].end());
  v.insert(v.end(), fifo_[1].begin(), fifo_[1].end());
  std::sort(v.begin(), v.end(), [](const BlkRequest* a, const BlkRequest* b) { return a->seq < b->seq; });
  return v;
}

void DeadlineScheduler::remove(BlkRequest* rq) { take(rq); }

}  // namespace vp::host
