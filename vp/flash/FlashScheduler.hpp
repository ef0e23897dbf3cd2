// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The transaction scheduler of one channel (DeepFlash's FCMD): a queue per
// die, and the choice of what a die runs next when it frees. Under FIFO, the
// oldest transaction; under read-first, in this order: a program (or
// copy-back) that has waited longer than the starvation limit, foreground
// reads, foreground programs, background reads, background programs,
// erases, first come first served within each class. With multi-plane on,
// the chosen read, program or erase takes along waiting transactions of the
// same op, block and page on the die's other planes (ONFI multi-plane
// addressing), so the die runs them as one operation.
#include <cstdint>
#include <deque>
#include <vector>

#include "vp/flash/FlashBatch.hpp"
#include "vp/flash/FlashTypes.hpp"

namespace vp::flash {

class FlashScheduler {
 public:
  enum class Policy : uint8_t { Fifo, ReadFirst };
  struct Options {
    Policy policy = Policy::ReadFirst;
    Tick write_starvation = 1 * MS;
    bool multiplane = true;
  };
  // What a die can take now: anything; only reads (its cache register still
  // holds the last read's data); only foreground reads (it suspended a
  // program or erase for them).
  enum class Allow : uint8_t { Any, Reads, ForegroundReads };

  FlashScheduler(uint32_t dies, const Options& o) : opt_(o), dies_(dies) {}

  void push(FlashTransaction& t);
  // Fills `out` with what die `die` runs next; false when nothing allowed waits.
  bool pick(uint32_t die, Tick now, Allow allow, FlashBatch& out);
  bool foreground_read_waiting(uint32_t die) const;
  void clear();  // drops everything queued (power loss)
  const Options& options() const { return opt_; }

 private:
  enum Class : uint8_t { FgRead, FgWrite, BgRead, BgWrite, Erase, kClasses };
  using Queue = std::deque<FlashTransaction*>;
  struct DieQueues {
    Queue q[kClasses];  // FIFO keeps everything in q[0]
  };
  static Class class_of(const FlashTransaction& t);
  Queue* choose(DieQueues& d, Tick now, Allow allow);
  void gather(DieQueues& d, Allow allow, FlashBatch& out);

  Options opt_;
  std::vector<DieQueues> dies_;
};

}  // namespace vp::flash
