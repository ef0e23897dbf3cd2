// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A firmware thread (DeepFlash FAST'20 sec. 4: NVMQ, CACHE, TRANS, ILOCK,
// LOG, BGC, FCMD, or a layered instance) pinned to one embedded core. Work
// reaches it as messages in its own FIFO queue and, for the threads of a
// pool (DIOS's NVMQ threads), in a queue the pool shares: whichever of the
// pool's threads is free takes the next item. A thread waiting for a lock
// it cannot work without is blocked: it takes no new work, but still runs
// urgent items (lock replies, completions of its requests), so two threads
// waiting for each other's ranges cannot deadlock.
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "vp/core/StatGroup.hpp"
#include "vp/core/Units.hpp"

namespace vp::ssd {

class EmbeddedCore;
class FirmwareThread;

// One item of work: the core time it takes (message receipt included) and
// what it does when it ends.
struct FwWork {
  Tick cost = 0;
  // Work whose size is known only when it starts (a batch): its cost then.
  std::function<Tick()> start;
  std::function<void(FirmwareThread&)> done;
  bool latency = false;  // a latency-critical command's work (goes first with latency-first queues)
};

// A FIFO of work in which, when latency-first, latency-critical items pass
// the others (and keep their order among themselves).
class FwQueue {
 public:
  void push(FwWork w, bool latency_first) {
    if (latency_first && w.latency) {
      items_.insert(items_.begin() + long(latency_items_), std::move(w));
      ++latency_items_;
    } else {
      items_.push_back(std::move(w));
    }
  }
  FwWork pop() {
    FwWork w = std::move(items_.front());
    items_.pop_front();
    if (latency_items_) --latency_items_;
    return w;
  }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }

 private:
  std::deque<FwWork> items_;
  size_t latency_items_ = 0;  // at the front
};

// A queue several threads serve; posting wakes every core one of them runs on.
struct FwWorkQueue {
  FwQueue items;
  std::vector<EmbeddedCore*> cores;
  bool latency_first = false;
  void post(FwWork w);
};

class FirmwareThread {
 public:
  // `stats`: the firmware's group (thread.<name>.*).
  FirmwareThread(int id, std::string name, EmbeddedCore& core, const StatGroup& stats);
  int id() const { return id_; }
  const std::string& name() const { return name_; }
  EmbeddedCore& core() const { return core_; }
  // Serve `pool` besides the thread's own queue.
  void serve(FwWorkQueue& pool);
  void post(FwWork w);
  bool runnable() const {
    return !urgent_.empty() || (!blocked_ && (!own_.empty() || (pool_ && !pool_->items.empty())));
  }
  // The next item: urgent ones, the thread's own messages, then the pool's.
  FwWork take();
  void post_urgent(FwWork w);
  void block() { blocked_ = true; }
  // Latency-critical work passes the rest of the thread's own queue.
  void set_latency_first(bool on) { latency_first_ = on; }
  void unblock();
  bool blocked() const { return blocked_; }
  void ran(Tick busy) {
    busy_ps_ += busy;
    ++items_;
  }
  uint64_t busy_ps() const { return busy_ps_.value; }
  uint64_t items() const { return items_.value; }

 private:
  int id_;
  std::string name_;
  EmbeddedCore& core_;
  std::deque<FwWork> urgent_;
  FwQueue own_;
  FwWorkQueue* pool_ = nullptr;
  bool blocked_ = false;
  bool latency_first_ = false;
  Counter &busy_ps_, &items_;
};

}  // namespace vp::ssd
