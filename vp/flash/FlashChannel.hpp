// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One ONFI channel: a shared bus and the dies behind it. The bus is held only
// for command/address cycles and data transfers, a die's array only for its
// array time, so array time on one die overlaps bus time for another. When
// the bus frees, command cycles go before data transfers (they are short and
// start array work on an idle die). What a die runs next is the
// FlashScheduler's choice.
//
// A die's operation: setup on the bus (each plane's command cycles, and for
// a program each plane's data in), array time (the slowest plane's), then for
// a read each plane's data out. With cache read the data of a finished read
// moves to the cache register and the die takes the next read while it
// leaves; a read finishing while the cache register is still full waits for
// it. With suspend, a foreground read arriving during a program's or erase's
// array time suspends it after t_suspend; the die serves its foreground
// reads, then resumes with the array time left plus t_resume. Reads may hold
// one operation suspended for write_starvation in all: then it resumes
// before more reads and is not suspended again, so a stream of reads cannot
// hold a program back for ever.
//
// EventQueue has no cancel: callbacks carry the die's generation (bumped by
// suspend and power loss) or the bus epoch, and a stale one does nothing.
// The end of a tenure needs an event only when data left (its transaction
// completes) or something waits for the bus; array time is booked from the
// end of the command cycles when they are granted.
#include <deque>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Stats.hpp"
#include "vp/core/Waves.hpp"
#include "vp/flash/FlashBatch.hpp"
#include "vp/flash/FlashCounters.hpp"
#include "vp/flash/FlashDataStore.hpp"
#include "vp/flash/FlashScheduler.hpp"
#include "vp/flash/FlashTypes.hpp"

namespace vp::flash {

class FlashChannel {
 public:
  FlashChannel(unsigned id, const FlashGeometry& g, const FlashTiming& t, const FlashScheduler::Options& sched,
               bool suspend, EventQueue& eq, FlashDataStore& store, FlashCounters& ctr, const StatGroup& stats,
               Waves& waves);
  void submit(FlashTransaction& t);
  // Drops everything queued and in flight without completions; an erase
  // whose array time had begun leaves its block erased.
  void power_loss();
  Tick bus_busy() const;
  Tick die_busy(uint32_t die) const;
  void set_latency_first(bool on) { sched_.set_latency_first(on); }

 private:
  enum class Phase : uint8_t {
    Idle,
    Setup,   // waiting for or using the bus for command cycles / data in
    Array,   // array time
    Parked,  // read done, waiting for the cache register
    Out,     // (no cache read) the read's data is leaving; the die waits
  };
  struct Die {
    uint32_t index = 0;
    Phase phase = Phase::Idle;
    FlashBatch batch;  // the operation holding the array
    FlashBatch cache;  // reads whose data is leaving over the bus
    FlashBatch held;   // the program or erase suspended for reads
    uint8_t out_left = 0;  // data-out transfers of `cache` still to end
    bool suspended = false, suspend_pending = false, kick_pending = false;
    bool busy = false;  // traced: array or registers in use
    uint32_t gen = 0;
    Tick array_start = 0, array_end = 0, remaining = 0, busy_since = 0;
    Tick suspended_at = 0, held_for = 0;  // the running operation's time suspended so far
    Counter* busy_ps = nullptr;
  };
  enum class BusUse : uint8_t { Setup, DataOut };
  struct BusOp {
    uint32_t die;
    BusUse use;
    uint8_t slot;  // DataOut: which transaction of the die's cache batch
  };

  // A die callback's identity: index and generation in one word, so the
  // std::function holding [this, key] needs no heap.
  uint64_t key(const Die& d) const { return uint64_t(d.index) << 32 | d.gen; }
  Die* live(uint64_t k) {
    Die& d = dies_[k >> 32];
    return d.gen == static_cast<uint32_t>(k) ? &d : nullptr;
  }
  void schedule_kick(Die& d);
  void deferred_kick(uint64_t key);
  void kick(Die& d);
  void start(Die& d);  // runs the batch the scheduler put in d.batch
  void array_done(Die& d);
  void to_cache(Die& d);
  void cache_freed(Die& d);
  void maybe_suspend(Die& d);
  void suspend(Die& d);
  void resume(Die& d);
  bool held_enough(const Die& d) const {
    Tick held = d.held_for + (d.suspended ? now_ps() - d.suspended_at : 0);
    return held >= sched_.options().write_starvation;
  }
  void run_array(Die& d, Tick start, Tick time);
  Tick array_time(const FlashBatch& b) const;
  void out_done(Die& d, uint8_t slot);
  void update_busy(Die& d);
  void complete(FlashTransaction& t);
  static void deliver(FlashTransaction& t) {
    if (t.client) t.client->flash_done(t);
  }

  void request_bus(const BusOp& op);
  void schedule_grant();
  void grant();
  Tick bus_time(const BusOp& op) const;

  unsigned id_;
  const FlashGeometry& geo_;
  const FlashTiming& tim_;
  const bool suspend_;
  EventQueue& eq_;
  FlashDataStore& store_;
  FlashCounters& ctr_;
  FlashScheduler sched_;
  std::deque<BusOp> commands_, transfers_;
  bool grant_scheduled_ = false;
  uint32_t bus_epoch_ = 0;
  Tick bus_free_at_ = 0;
  Counter& bus_busy_ps_;
  BusySignal bus_signal_;
  std::vector<Die> dies_;
};

}  // namespace vp::flash
