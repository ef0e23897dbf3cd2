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
  d.busy = 1;
  Tick now = now_ps();
  switch (t.op) {
    case FlashOp::Read: {
      Tick cmd_end = bus_.book(now, tim_.t_cmd);
      bus_signal_.interval(eq_, cmd_end - tim_.t_cmd, cmd_end);
      eq_.at(cmd_end + tim_.t_read, [this, &d, &t] { read_array_done(d, t); });
      break;
    }
    case FlashOp::Program: {
      Tick busy = tim_.t_cmd + tim_.transfer(geo_.page_size);
      Tick in_end = bus_.book(now, busy);
      bus_signal_.interval(eq_, in_end - busy, in_end);
      ctr_.bus_bytes += geo_.page_size;
      eq_.at(in_end + tim_.t_prog, [this, &d, &t] { finish(d, t); });
      break;
    }
    case FlashOp::Erase: {
      Tick cmd_end = bus_.book(now, tim_.t_cmd);
      bus_signal_.interval(eq_, cmd_end - tim_.t_cmd, cmd_end);
      eq_.at(cmd_end + tim_.t_erase, [this, &d, &t] { finish(d, t); });
      break;
    }
  }
}

void FlashChannel::read_array_done(Die& d, FlashTransaction& t) {
  // The page register holds the data until it is clocked out over the bus.
  Tick xfer = tim_.transfer(geo_.page_size);
  Tick out_end = bus_.book(now_ps(), xfer);
  bus_signal_.interval(eq_, out_end - xfer, out_end);
  ctr_.bus_bytes += geo_.page_size;
  eq_.at(out_end, [this, &d, &t] { finish(d, t); });
}

void FlashChannel::finish(Die& d, FlashTransaction& t) {
  switch (t.op) {
    case FlashOp::Read:
      store_.read(ppn_of(geo_, t.addr), t.data);
      ++ctr_.reads;
      break;
    case FlashOp::Program:
      store_.program(ppn_of(geo_, t.addr), t.data);
      ++ctr_.programs;
      break;
    case FlashOp::Erase: {
      FlashAddress first = t.addr;
      first.page = 0;
      store_.erase_range(ppn_of(geo_, first), geo_.pages_per_block);
      ++ctr_.erases;
      break;
    }
  }
  t.finished = now_ps();
  d.active = nullptr;
  d.busy = 0;
  if (!d.waiting.empty()) {
    FlashTransaction* next = d.waiting.front();
    d.waiting.pop_front();
    start(d, *next);
  }
  t.client->flash_done(t);
}

}  // namespace vp::flash
