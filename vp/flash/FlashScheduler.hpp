// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The transaction scheduler of one channel (DeepFlash's FCMD): a queue per
// die, and the choice of what a die runs next when it frees. Under FIFO, the
// oldest transaction; under read-first, in this order: foreground reads
// (latency-critical ones first with latency_first), foreground programs,
// background reads, background programs, erases, first come first served
// within each class; except that a host program (or copy-back) that has
// waited longer than the starvation limit goes first once reads have had
// `reads_per_starved_program` picks since the last host program, as
// mq-deadline's writes_starved bounds how long reads defer writes. Without
// that bound a standing program backlog is always starved, and read-first
// becomes first come first served. GC work that does not yield (foreground
// GC) is not overtaken by reads that came after it. With multi-plane on,
// the chosen read, program or erase takes along waiting transactions of the
// same op, block and page on the die's other planes (ONFI multi-plane
// addressing), so the die runs them as one operation.
#include <cstdint>
#include <deque>
#include <vector>

#include "vp/core/StatGroup.hpp"
#include "vp/flash/FlashBatch.hpp"
#include "vp/flash/FlashTypes.hpp"

namespace vp::flash {

class FlashScheduler {
 public:
  enum class Policy : uint8_t { Fifo, ReadFirst };
  struct Options {
    Policy policy = Policy::ReadFirst;
    Tick write_starvation = 1 * MS;
    uint32_t reads_per_starved_program = 8;
    bool multiplane = true;
    bool latency_first = false;  // latency-critical host reads before the others (ssd.priority.flash)
  };
  // What a die can take now: anything; only reads (its cache register still
  // holds the last read's data); only foreground reads (it suspended a
  // program or erase for them).
  enum class Allow : uint8_t { Any, Reads, ForegroundReads };

  // `starved_picks`: counts the starved programs that went before reads.
  FlashScheduler(uint32_t dies, const Options& o, Counter& starved_picks)
      : opt_(o), dies_(dies), starved_picks_(starved_picks) {
    for (auto& d : dies_) d.reads_since_program = o.reads_per_starved_program;
  }

  void push(FlashTransaction& t);
  // Fills `out` with what die `die` runs next; false when nothing allowed waits.
  bool pick(uint32_t die, Tick now, Allow allow, FlashBatch& out);
  bool foreground_read_waiting(uint32_t die) const;
  void clear();  // drops everything queued (power loss)
  const Options& options() const { return opt_; }
  // Set by the platform before anything is queued (see Options::latency_first).
  void set_latency_first(bool on) { opt_.latency_first = on; }

 private:
  // LatRead: latency-critical host reads, used with latency_first only.
  enum Class : uint8_t { LatRead, FgRead, FgWrite, BgRead, BgWrite, Erase, kClasses };
  using Queue = std::deque<FlashTransaction*>;
  struct DieQueues {
    Queue q[kClasses];  // FIFO keeps everything in q[0]
    uint32_t reads_since_program;  // read picks since the last host program, up to the bound
  };
  static bool fg_read_waiting(const DieQueues& d) { return !d.q[LatRead].empty() || !d.q[FgRead].empty(); }
  // The oldest foreground read waiting, or null.
  static const FlashTransaction* oldest_fg_read(const DieQueues& d);
  Class class_of(const FlashTransaction& t) const;
  Queue* choose(DieQueues& d, Tick now, Allow allow);
  void gather(DieQueues& d, Allow allow, FlashBatch& out);

  Options opt_;
  std::vector<DieQueues> dies_;
  Counter& starved_picks_;
};

}  // namespace vp::flash
