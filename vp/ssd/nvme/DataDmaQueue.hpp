// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The controller's data DMA engine for one direction, when it orders its
// transfers (ssd.priority.dma): commands whose data is ready wait here and
// at most `engines` transfers are on the link at once, latency-critical ones
// (a non-zero workload attribute) taken first, each class in arrival order.
// Without ordering the controller books every transfer on the link as its
// data becomes ready, and the link serves them in that order.
#include <cstdint>
#include <deque>
#include <functional>

#include "vp/core/Counter.hpp"
#include "vp/core/EventQueue.hpp"

namespace vp::ssd {

class DataDmaQueue {
 public:
  // `start(slot)` puts the slot's transfer on the link and returns when it
  // is done (an absolute time, now or later).
  using Start = std::function<Tick(uint32_t slot)>;
  DataDmaQueue(EventQueue& eq, uint32_t engines, Start start, Counter& waits, Counter& wait_ps)
      : eq_(eq), engines_(engines), start_(std::move(start)), waits_(waits), wait_ps_(wait_ps) {}

  void submit(uint32_t slot, bool latency) {
    (latency ? urgent_ : normal_).push_back({slot, now_ps()});
    next();
  }

 private:
  struct Waiting {
    uint32_t slot;
    Tick since;
  };
  void next() {
    while (busy_ < engines_ && (!urgent_.empty() || !normal_.empty())) {
      auto& q = urgent_.empty() ? normal_ : urgent_;
      Waiting w = q.front();
      q.pop_front();
      if (w.since != now_ps()) {
        ++waits_;
        wait_ps_ += now_ps() - w.since;
      }
      ++busy_;
      eq_.at(start_(w.slot), [this] {
        --busy_;
        next();
      });
    }
  }

  EventQueue& eq_;
  uint32_t engines_, busy_ = 0;
  Start start_;
  std::deque<Waiting> urgent_, normal_;
  Counter &waits_, &wait_ps_;
};

}  // namespace vp::ssd
