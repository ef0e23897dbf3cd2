#pragma once
// One ONFI channel: a shared bus and the dies behind it. A die serves one
// operation at a time; the bus is held only for command/address cycles and
// data transfers, so array time on one die overlaps bus time for another.
// When the bus frees, command cycles go before data transfers (they are short
// and start array work on an idle die); each die has a FIFO of waiting
// transactions (the per-channel scheduling policy grows in a later issue).
// A bus grant needs an event only when something is waiting for the bus.
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
  Tick bus_busy() const { return bus_busy_total_; }

 private:
  struct Die {
    std::deque<FlashTransaction*> waiting;
    FlashTransaction* active = nullptr;
    bool busy = false;  // traced
  };
  enum class BusUse : uint8_t { Command, DataIn, DataOut };
  struct BusOp {
    FlashTransaction* t;  // its die is t->addr.die
    BusUse use;
  };
  void start(Die& d, FlashTransaction& t);
  void request_bus(const BusOp& op);
  void grant();
  void bus_done(const BusOp& op, Tick end);
  void finish(Die& d, FlashTransaction& t);

  unsigned id_;
  const FlashGeometry& geo_;
  const FlashTiming& tim_;
  EventQueue& eq_;
  FlashDataStore& store_;
  FlashCounters& ctr_;
  std::deque<BusOp> commands_, transfers_;
  Tick bus_free_at_ = 0, bus_busy_total_ = 0;
  bool grant_scheduled_ = false;
  BusySignal bus_signal_;
  std::vector<Die> dies_;
};

}  // namespace vp::flash
