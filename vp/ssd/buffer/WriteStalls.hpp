// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Host writes a write buffer holds while it has no room, let go in arrival
// order once there is room for the first (a later, smaller write does not
// overtake it). Counts the writes held and the time they waited.
#include <deque>

#include "vp/core/StatGroup.hpp"
#include "vp/core/Units.hpp"
#include "vp/ssd/SsdInterfaces.hpp"
#include "vp/ssd/buffer/WriteBufferPolicy.hpp"

namespace vp::ssd {

class WriteStalls {
 public:
  WriteStalls(Counter& writes, Counter& stall_ps) : writes_(writes), stall_ps_(stall_ps) {}
  // A write buffer's own: `stalled_writes` and `stall_ps` in its group.
  explicit WriteStalls(const StatGroup& g)
      : WriteStalls(g.counter("stalled_writes", "commands",
                              "writes that waited for buffer space (dirty lines and copies in flight fill it)"),
                    g.counter("stall_ps", "ps", "time writes waited for buffer space, summed")) {}
  bool empty() const { return held_.empty(); }
  uint64_t held() const { return writes_.value; }  // writes held so far
  Tick stall_ps() const { return stall_ps_.value; }
  // A write arrives: true if it may go now (none held before it and
  // `fits(pages)`), else it is held.
  template <class Fits>
  bool admit(FtlRequest& r, Fits fits) {
    if (empty() && fits(r.pages)) return true;
    hold(r);
    return false;
  }
  void hold(FtlRequest& r) {
    held_.push_back({&r, now_ps()});
    ++writes_;
  }
  // Lets held writes go while `fits(pages)` says the first has room.
  template <class Fits>
  void release(Fits fits, CacheLines& lines) {
    while (!held_.empty() && fits(held_.front().r->pages)) {
      Held h = held_.front();
      held_.pop_front();
      stall_ps_ += now_ps() - h.since;
      lines.write_now(*h.r);
    }
  }

 private:
  struct Held {
    FtlRequest* r;
    Tick since;
  };
  std::deque<Held> held_;
  Counter &writes_, &stall_ps_;
};

}  // namespace vp::ssd
