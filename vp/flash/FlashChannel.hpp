#pragma once
// One ONFI channel: a shared bus and the dies behind it. A die serves one
// operation at a time; the bus is held only for command/address cycles and
// data transfers, so array time on one die overlaps bus time for another.
// Each die has a FIFO of waiting transactions (the per-channel scheduling
// policy grows in a later issue).
#include <deque>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Stats.hpp"
#include "vp/core/Waves.hpp"
#include "vp/flash/FlashDataStore.hpp"
#include "vp/flash/FlashTypes.hpp"

namespace vp::flash {

struct FlashCounters {
  Counter &reads, &programs, &erases, &bus_bytes;
};

class FlashChannel {
 public:
  FlashChannel(unsigned id, const FlashGeometry& g, const FlashTiming& t, EventQueue& eq, FlashDataStore& store,
               FlashCounters& ctr, Waves& waves);
  void submit(FlashTransaction& t);
  Tick bus_busy() const { return bus_.busy_total(); }

 private:
  struct Die {
    std::deque<FlashTransaction*> waiting;
    FlashTransaction* active = nullptr;
    uint64_t busy = 0;  // traced
  };
  void start(Die& d, FlashTransaction& t);
  void read_array_done(Die& d, FlashTransaction& t);
  void finish(Die& d, FlashTransaction& t);

  unsigned id_;
  const FlashGeometry& geo_;
  const FlashTiming& tim_;
  EventQueue& eq_;
  FlashDataStore& store_;
  FlashCounters& ctr_;
  FcfsResource bus_;
  BusySignal bus_signal_;
  std::vector<Die> dies_;
};

}  // namespace vp::flash
