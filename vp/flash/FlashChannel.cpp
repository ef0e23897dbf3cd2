// SPDX-License-Identifier: BSD-3-Clause
#include "vp/flash/FlashChannel.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace vp::flash {

FlashChannel::FlashChannel(unsigned id, const FlashGeometry& g, const FlashTiming& t,
                           const FlashScheduler::Options& sched, bool suspend, EventQueue& eq, FlashDataStore& store,
                           FlashCounters& ctr, const StatGroup& stats, Waves& waves)
    : id_(id),
      geo_(g),
      tim_(t),
      suspend_(suspend),
      eq_(eq),
      store_(store),
      ctr_(ctr),
      sched_(g.dies_per_channel(), sched, ctr.starved_program_picks),
      bus_busy_ps_(stats.counter(fmt::format("ch{}.bus_busy", id), "ps", "time the channel's bus was held")),
      dies_(g.dies_per_channel()) {
  // <drive>.flash.ch<c>.bus and .die<d>.busy: a scope per channel.
  const std::string group = Waves::group_name(stats.scope());
  bus_signal_.attach(waves, Waves::signal_name(stats.scope(), fmt::format("ch{}.bus", id)), group + " channels");
  for (uint32_t d = 0; d < dies_.size(); ++d) {
    dies_[d].index = d;
    dies_[d].busy_ps = &stats.counter(fmt::format("ch{}.die{}.busy", id, d), "ps",
                                      "time the die's array or page registers were in use (closed intervals)");
    if (waves.enabled())
      waves.trace(dies_[d].busy, Waves::signal_name(stats.scope(), fmt::format("ch{}.die{}.busy", id, d)),
                  fmt::format("{} ch{} dies", group, id));
  }
}

void FlashChannel::submit(FlashTransaction& t) {
  if (t.op == FlashOp::CopyBack &&
      (t.dst.channel != t.addr.channel || t.dst.die != t.addr.die || t.dst.plane != t.addr.plane))
    throw std::logic_error(fmt::format("flash copy-back from ch{} die{} plane{} to ch{} die{} plane{}: the source and "
                                       "destination must be on the same die and plane",
                                       t.addr.channel, t.addr.die, t.addr.plane, t.dst.channel, t.dst.die,
                                       t.dst.plane));
  t.submitted = now_ps();
  sched_.push(t);
  Die& d = dies_[t.addr.die];
  if (t.op == FlashOp::Read && !t.background) maybe_suspend(d);
  schedule_kick(d);
}

// An idle die chooses when the callback that submitted to it returns, once
// everything it submits with this transaction is queued: that is what lets
// planes join and a read overtake a program submitted just before it.
// Submitted from outside a callback, it chooses after the callbacks already
// due at this instant.
void FlashChannel::schedule_kick(Die& d) {
  if (d.phase != Phase::Idle || d.kick_pending) return;
  d.kick_pending = true;
  if (Calendar::get().defer([](void* ch, uint64_t k) { static_cast<FlashChannel*>(ch)->deferred_kick(k); }, this,
                            key(d)))
    return;
  eq_.at(now_ps(), [this, k = key(d)] { deferred_kick(k); });
}

void FlashChannel::deferred_kick(uint64_t k) {
  if (Die* d = live(k)) {
    d->kick_pending = false;
    kick(*d);
  }
}

void FlashChannel::kick(Die& d) {
  if (d.phase == Phase::Idle) {
    using Allow = FlashScheduler::Allow;
    Allow allow = d.suspended ? Allow::ForegroundReads : !d.cache.empty() ? Allow::Reads : Allow::Any;
    // An idle die's batch is empty: the choice goes straight into it.
    if (d.suspended && held_enough(d)) {
      if (d.cache.empty()) resume(d);
    } else if (sched_.pick(d.index, now_ps(), allow, d.batch)) {
      start(d);
    } else if (d.suspended && d.cache.empty()) {
      resume(d);
    }
  }
  update_busy(d);
}

void FlashChannel::start(Die& d) {
  d.phase = Phase::Setup;
  if (!d.suspended) d.held_for = 0;  // a new operation (not a read run during a suspension)
  if (d.batch.n > 1) ++ctr_.multiplane_ops;
  request_bus({d.index, BusUse::Setup, 0});
}

void FlashChannel::run_array(Die& d, Tick start, Tick time) {
  d.phase = Phase::Array;
  d.array_start = start;
  d.array_end = start + time;
  eq_.at(d.array_end, [this, k = key(d)] {
    if (Die* d = live(k)) array_done(*d);
  });
}

// The slowest plane's array time.
Tick FlashChannel::array_time(const FlashBatch& b) const {
  Tick array = 0;
  for (uint8_t i = 0; i < b.n; ++i) {
    const FlashTransaction* t = b.t[i];
    int type = int(geo_.page_type(t->addr.page));
    Tick one = b.op == FlashOp::Read      ? tim_.t_read[type]
               : b.op == FlashOp::Program ? tim_.t_prog[type]
               : b.op == FlashOp::Erase   ? tim_.t_erase
                                          : tim_.t_read[type] + tim_.t_prog[int(geo_.page_type(t->dst.page))];
    array = std::max(array, one);
  }
  return array;
}

void FlashChannel::array_done(Die& d) {
  if (d.batch.op == FlashOp::Read) {
    if (!d.cache.empty()) {
      d.phase = Phase::Parked;
      return;
    }
    to_cache(d);
    return;
  }
  FlashBatch done = d.batch;
  for (FlashTransaction* t : done) complete(*t);
  d.batch.clear();
  d.phase = Phase::Idle;
  kick(d);
  for (FlashTransaction* t : done) deliver(*t);
}

// The read's data is in the page (and cache) register: it leaves plane by plane.
void FlashChannel::to_cache(Die& d) {
  d.cache = d.batch;
  d.batch.clear();
  d.out_left = d.cache.n;
  if (tim_.cache_read) {
    d.phase = Phase::Idle;
    kick(d);  // the next read's command goes before this data
  } else {
    d.phase = Phase::Out;
  }
  for (uint8_t i = 0; i < d.cache.n; ++i) request_bus({d.index, BusUse::DataOut, i});
}

void FlashChannel::cache_freed(Die& d) {
  d.cache.clear();
  if (d.phase == Phase::Parked) {
    to_cache(d);
    return;
  }
  if (d.phase == Phase::Out) d.phase = Phase::Idle;
  kick(d);
}

void FlashChannel::maybe_suspend(Die& d) {
  if (!suspend_ || d.phase != Phase::Array || d.suspend_pending) return;
  if ((d.batch.op != FlashOp::Program && d.batch.op != FlashOp::Erase) || held_enough(d)) return;
  if (!sched_.foreground_read_waiting(d.index)) return;
  Tick at = std::max(now_ps(), d.array_start) + tim_.t_suspend;
  if (at >= d.array_end) return;  // it ends before it could be suspended
  d.suspend_pending = true;
  eq_.at(at, [this, k = key(d)] {
    if (Die* d = live(k)) suspend(*d);
  });
}

void FlashChannel::suspend(Die& d) {
  ++d.gen;  // the pending end of the array time is void (and any pending choice)
  d.suspend_pending = d.kick_pending = false;
  d.remaining = d.array_end - now_ps();
  d.held = d.batch;
  d.batch.clear();
  d.suspended = true;
  d.suspended_at = now_ps();
  d.phase = Phase::Idle;
  ++ctr_.suspends;
  kick(d);
}

void FlashChannel::resume(Die& d) {
  d.batch = d.held;
  d.held.clear();
  d.held_for += now_ps() - d.suspended_at;
  d.suspended = false;
  run_array(d, now_ps(), tim_.t_resume + d.remaining);
}

void FlashChannel::update_busy(Die& d) {
  bool b = d.phase != Phase::Idle || d.suspended;
  if (b == d.busy) return;
  Tick now = now_ps();
  if (b)
    d.busy_since = now;
  else
    *d.busy_ps += now - d.busy_since;
  d.busy = b;
}

Tick FlashChannel::die_busy(uint32_t die) const {
  const Die& d = dies_[die];
  return d.busy_ps->value + (d.busy ? now_ps() - d.busy_since : 0);
}

Tick FlashChannel::bus_busy() const { return bus_busy_ps_.value; }

void FlashChannel::complete(FlashTransaction& t) {
  // The store holds a page, or (sub-page mapping) its units, each with its
  // own spare area: `u` of them make the page.
  const uint32_t u = geo_.page_size / store_.unit_size(), unit = store_.unit_size();
  const uint64_t ppn = ppn_of(geo_, t.addr), first = ppn * u;
  auto at = [&](uint8_t* d, uint32_t k) { return d ? d + uint64_t(k) * unit : nullptr; };
  int type = int(geo_.page_type(t.addr.page));
  switch (t.op) {
    case FlashOp::Read:
      for (uint32_t k = 0; k < u; ++k) store_.read(first + k, at(t.data, k), t.background && k == 0 ? &t.oob : nullptr);
      ++ctr_.reads;
      ++*ctr_.reads_by_type[type];
      break;
    case FlashOp::Program:
      for (uint32_t k = 0; k < u; ++k)
        store_.program(first + k, at(t.data, k), t.unit_oobs ? t.unit_oobs[k] : t.oob);
      ++ctr_.programs;
      ++*ctr_.programs_by_type[type];
      break;
    case FlashOp::CopyBack: {
      uint64_t dst = ppn_of(geo_, t.dst) * u;
      // The spare area travels with the data unless the controller rewrote it
      // (copy-back with data input: a non-zero sequence number in t.oob).
      for (uint32_t k = 0; k < u; ++k) store_.copy(first + k, dst + k, t.oob.seq ? &t.oob : nullptr);
      store_.read(dst, nullptr, &t.oob);
      ++ctr_.reads;
      ++*ctr_.reads_by_type[type];
      ++ctr_.programs;
      ++*ctr_.programs_by_type[int(geo_.page_type(t.dst.page))];
      ++ctr_.copybacks;
      break;
    }
    case FlashOp::Erase:
      store_.erase(ppn / geo_.pages_per_block);
      ++ctr_.erases;
      break;
  }
  t.finished = now_ps();
}

Tick FlashChannel::bus_time(const BusOp& op) const {
  if (op.use == BusUse::DataOut) return tim_.transfer(geo_.page_size);
  const FlashBatch& b = dies_[op.die].batch;
  switch (b.op) {
    case FlashOp::Program: return b.n * (tim_.t_cmd + tim_.transfer(geo_.page_size));
    case FlashOp::CopyBack: return 2 * tim_.t_cmd;  // read-for-copy-back, then program-from-register
    default: return b.n * tim_.t_cmd;
  }
}

void FlashChannel::request_bus(const BusOp& op) {
  bool command = op.use == BusUse::Setup && dies_[op.die].batch.op != FlashOp::Program;
  (command ? commands_ : transfers_).push_back(op);
  if (grant_scheduled_) return;
  if (now_ps() >= bus_free_at_)
    grant();
  else
    schedule_grant();
}

void FlashChannel::schedule_grant() {
  grant_scheduled_ = true;
  eq_.at(bus_free_at_, [this, e = bus_epoch_] {
    if (e != bus_epoch_) return;
    grant_scheduled_ = false;
    grant();
  });
}

// Requests made at the instant a tenure ends (a die that freed, data that
// left) queue behind those already waiting, and the scheduled grant picks
// the best of them: it was booked after the tenure's own completion.
void FlashChannel::grant() {
  auto& q = !commands_.empty() ? commands_ : transfers_;
  if (q.empty()) return;
  BusOp op = q.front();
  q.pop_front();
  Tick busy = bus_time(op), now = now_ps();
  bus_free_at_ = now + busy;
  bus_busy_ps_ += busy;
  bus_signal_.interval(eq_, now, bus_free_at_);
  Die& d = dies_[op.die];
  if (op.use == BusUse::Setup) {
    if (d.batch.op == FlashOp::Program) ctr_.bus_bytes += uint64_t(d.batch.n) * geo_.page_size;
    run_array(d, bus_free_at_, array_time(d.batch));
    maybe_suspend(d);  // a read may have arrived while the command waited
  } else {
    ctr_.bus_bytes += geo_.page_size;
    // The transfer's end grants the bus next if anything waits for it then:
    // one callback for both.
    const bool more = !commands_.empty() || !transfers_.empty();
    grant_scheduled_ = more;
    // Epoch, die, slot and whether to grant in one word.
    uint64_t k = uint64_t(bus_epoch_) << 32 | uint64_t(more) << 31 | uint64_t(op.die) << 8 | op.slot;
    eq_.at(bus_free_at_, [this, k] {
      if (static_cast<uint32_t>(k >> 32) != bus_epoch_) return;
      out_done(dies_[(k >> 8) & 0x7FFFFF], k & 0xFF);
      if (k >> 31 & 1) {
        grant_scheduled_ = false;
        grant();
      }
    });
    return;
  }
  if (!commands_.empty() || !transfers_.empty()) schedule_grant();
}

void FlashChannel::out_done(Die& d, uint8_t slot) {
  FlashTransaction& t = *d.cache.t[slot];
  complete(t);
  if (--d.out_left == 0) cache_freed(d);
  update_busy(d);
  deliver(t);
}

void FlashChannel::power_loss() {
  Tick now = now_ps();
  ++bus_epoch_;
  if (bus_free_at_ > now) {
    bus_busy_ps_.value -= bus_free_at_ - now;  // the cut tenure ends now
    bus_free_at_ = now;
  }
  grant_scheduled_ = false;
  commands_.clear();
  transfers_.clear();
  sched_.clear();
  for (Die& d : dies_) {
    // An erase pulse that had begun leaves the block erased; nothing else
    // reaches the array (a page whose program did not finish stays unprogrammed).
    for (FlashBatch* b : {&d.batch, &d.held}) {
      bool erasing = b->op == FlashOp::Erase && (b == &d.held || (d.phase == Phase::Array && now >= d.array_start));
      if (erasing)
        for (FlashTransaction* t : *b) store_.erase(ppn_of(geo_, t->addr) / geo_.pages_per_block);
      b->clear();
    }
    d.cache.clear();
    ++d.gen;
    d.phase = Phase::Idle;
    d.out_left = 0;
    d.suspended = d.suspend_pending = d.kick_pending = false;
    update_busy(d);
  }
}

}  // namespace vp::flash
