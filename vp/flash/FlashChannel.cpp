#include "vp/flash/FlashChannel.hpp"

#include <fmt/format.h>

namespace vp::flash {

FlashChannel::FlashChannel(unsigned id, const FlashGeometry& g, const FlashTiming& t, EventQueue& eq,
                           FlashDataStore& store, FlashCounters& ctr, Waves& waves)
    : id_(id), geo_(g), tim_(t), eq_(eq), store_(store), ctr_(ctr), dies_(g.dies_per_channel()) {
  bus_signal_.attach(waves, fmt::format("flash_ch{}_bus", id), "flash channels");
  if (waves.enabled())
    for (size_t d = 0; d < dies_.size(); ++d)
      waves.trace(dies_[d].busy, fmt::format("flash_ch{}_die{}_busy", id, d), fmt::format("flash ch{} dies", id));
}

void FlashChannel::submit(FlashTransaction& t) {
  t.submitted = now_ps();
  Die& d = dies_[t.addr.die];
  if (d.active)
    d.waiting.push_back(&t);
  else
    start(d, t);
}

void FlashChannel::start(Die& d, FlashTransaction& t) {
  d.active = &t;
  d.busy = true;
  // A program sends its command and data in one bus tenure.
  request_bus({&t, t.op == FlashOp::Program ? BusUse::DataIn : BusUse::Command});
}

void FlashChannel::request_bus(const BusOp& op) {
  (op.use == BusUse::Command ? commands_ : transfers_).push_back(op);
  if (grant_scheduled_) return;
  if (now_ps() >= bus_free_at_) {
    grant();
  } else {
    grant_scheduled_ = true;
    eq_.at(bus_free_at_, [this] {
      grant_scheduled_ = false;
      grant();
    });
  }
}

void FlashChannel::grant() {
  auto& q = !commands_.empty() ? commands_ : transfers_;
  if (q.empty()) return;
  BusOp op = q.front();
  q.pop_front();
  Tick busy = op.use == BusUse::Command ? tim_.t_cmd
              : op.use == BusUse::DataIn ? tim_.t_cmd + tim_.transfer(geo_.page_size)
                                         : tim_.transfer(geo_.page_size);
  Tick now = now_ps(), end = now + busy;
  bus_free_at_ = end;
  bus_busy_total_ += busy;
  bus_signal_.interval(eq_, now, end);
  if (op.use != BusUse::Command) ctr_.bus_bytes += geo_.page_size;
  bus_done(op, end);
  if (!commands_.empty() || !transfers_.empty()) {
    grant_scheduled_ = true;
    eq_.at(end, [this] {
      grant_scheduled_ = false;
      grant();
    });
  }
}

// Schedules what follows the bus tenure that ends at `end`.
void FlashChannel::bus_done(const BusOp& op, Tick end) {
  // Callbacks capture no more than two words so std::function needs no heap.
  FlashTransaction* t = op.t;
  switch (op.use) {
    case BusUse::DataOut: eq_.at(end, [this, t] { finish(dies_[t->addr.die], *t); }); break;
    case BusUse::DataIn:
      eq_.at(end + tim_.t_prog[int(geo_.page_type(t->addr.page))], [this, t] { finish(dies_[t->addr.die], *t); });
      break;
    case BusUse::Command:
      if (t->op == FlashOp::Erase) {
        eq_.at(end + tim_.t_erase, [this, t] { finish(dies_[t->addr.die], *t); });
      } else if (t->op == FlashOp::CopyBack) {
        // Read into the page register, then program it back: the data never crosses the bus.
        Tick array = tim_.t_read[int(geo_.page_type(t->addr.page))] + tim_.t_cmd +
                     tim_.t_prog[int(geo_.page_type(t->dst.page))];
        eq_.at(end + array, [this, t] { finish(dies_[t->addr.die], *t); });
      } else {
        // The page register holds the data until it is clocked out.
        eq_.at(end + tim_.t_read[int(geo_.page_type(t->addr.page))],
               [this, t] { request_bus({t, BusUse::DataOut}); });
      }
      break;
  }
}

void FlashChannel::finish(Die& d, FlashTransaction& t) {
  switch (t.op) {
    case FlashOp::Read:
      store_.read(ppn_of(geo_, t.addr), t.data, &t.oob);
      ++ctr_.reads;
      break;
    case FlashOp::Program:
      store_.program(ppn_of(geo_, t.addr), t.data, t.oob);
      ++ctr_.programs;
      break;
    case FlashOp::CopyBack:
      store_.copy(ppn_of(geo_, t.addr), ppn_of(geo_, t.dst));
      store_.read(ppn_of(geo_, t.dst), nullptr, &t.oob);
      ++ctr_.reads;
      ++ctr_.programs;
      break;
    case FlashOp::Erase: {
      uint64_t block = ppn_of(geo_, t.addr) / geo_.pages_per_block;
      store_.erase(block);
      ++ctr_.erases;
      break;
    }
  }
  t.finished = now_ps();
  d.active = nullptr;
  d.busy = false;
  if (!d.waiting.empty()) {
    FlashTransaction* next = d.waiting.front();
    d.waiting.pop_front();
    start(d, *next);
  }
  t.client->flash_done(t);
}

}  // namespace vp::flash
