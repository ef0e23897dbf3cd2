// SPDX-License-Identifier: BSD-3-Clause
#include "vp/flash/FlashScheduler.hpp"

#include <algorithm>

namespace vp::flash {

namespace {
bool is_read(const FlashTransaction* t) { return t->op == FlashOp::Read; }
bool is_fg_read(const FlashTransaction* t) { return t->op == FlashOp::Read && !t->background; }
// GC work that does not yield (ssd.ftl.gc.preemptible off) keeps its place in arrival order.
bool keeps_place(const FlashTransaction* t) { return t->use == FlashUse::Gc && !t->background; }
}  // namespace

FlashScheduler::Class FlashScheduler::class_of(const FlashTransaction& t) const {
  switch (t.op) {
    case FlashOp::Read: return t.background ? BgRead : t.latency && opt_.latency_first ? LatRead : FgRead;
    case FlashOp::Program:
    case FlashOp::CopyBack: return t.background ? BgWrite : FgWrite;
    case FlashOp::Erase: break;
  }
  return Erase;
}

void FlashScheduler::push(FlashTransaction& t) {
  DieQueues& d = dies_[t.addr.die];
  d.q[opt_.policy == Policy::Fifo ? 0 : class_of(t)].push_back(&t);
}

bool FlashScheduler::foreground_read_waiting(uint32_t die) const {
  const DieQueues& d = dies_[die];
  if (opt_.policy == Policy::ReadFirst) return fg_read_waiting(d);
  return std::any_of(d.q[0].begin(), d.q[0].end(), is_fg_read);
}

void FlashScheduler::clear() {
  for (auto& d : dies_)
    for (auto& q : d.q) q.clear();
}

const FlashTransaction* FlashScheduler::oldest_fg_read(const DieQueues& d) {
  const FlashTransaction* a = d.q[LatRead].empty() ? nullptr : d.q[LatRead].front();
  const FlashTransaction* b = d.q[FgRead].empty() ? nullptr : d.q[FgRead].front();
  if (!a || !b) return a ? a : b;
  return a->submitted <= b->submitted ? a : b;
}

// The queue whose front runs next, or null.
FlashScheduler::Queue* FlashScheduler::choose(DieQueues& d, Tick now, Allow allow) {
  if (opt_.policy == Policy::Fifo) {
    Queue& q = d.q[0];
    if (q.empty()) return nullptr;
    if (allow == Allow::Any) return &q;
    if (allow == Allow::Reads) return is_read(q.front()) ? &q : nullptr;
    // A suspended die serves foreground reads whatever their place: bring
    // the first one to the front.
    auto it = std::find_if(q.begin(), q.end(), is_fg_read);
    if (it == q.end()) return nullptr;
    FlashTransaction* t = *it;
    q.erase(it);
    q.push_front(t);
    return &q;
  }
  if (allow == Allow::ForegroundReads)
    return !d.q[LatRead].empty() ? &d.q[LatRead] : d.q[FgRead].empty() ? nullptr : &d.q[FgRead];
  Queue* pick = nullptr;
  // A host program waiting past the limit goes first once the readers have
  // had their picks. Background work (GC) has no such claim: it yields to
  // host work for as long as there is some, which is what preemptible GC means.
  Queue& starving = d.q[FgWrite];
  bool starved = !starving.empty() && now - starving.front()->submitted > opt_.write_starvation;
  if (starved && d.reads_since_program >= opt_.reads_per_starved_program) pick = &starving;
  // Reads that came after non-preemptible GC work do not overtake it.
  if (!pick && !starving.empty() && keeps_place(starving.front())) {
    const FlashTransaction* read = oldest_fg_read(d);
    if (!read || starving.front()->submitted <= read->submitted) pick = &starving;
  }
  if (!pick)
    for (auto& q : d.q)
      if (!q.empty()) {
        pick = &q;
        break;
      }
  if (!pick || (allow == Allow::Reads && !is_read(pick->front()))) return nullptr;
  if (pick == &starving) {
    if (starved && (fg_read_waiting(d) || !d.q[BgRead].empty())) ++starved_picks_;
    d.reads_since_program = 0;
  } else if (is_read(pick->front()) && d.reads_since_program < opt_.reads_per_starved_program) {
    ++d.reads_since_program;
  }
  return pick;
}

bool FlashScheduler::pick(uint32_t die, Tick now, Allow allow, FlashBatch& out) {
  DieQueues& d = dies_[die];
  Queue* q = choose(d, now, allow);
  out.clear();
  if (!q) return false;
  FlashTransaction* lead = q->front();
  q->pop_front();
  out.op = lead->op;
  out.add(lead);
  if (opt_.multiplane && lead->op != FlashOp::CopyBack) gather(d, allow, out);
  return true;
}

void FlashScheduler::gather(DieQueues& d, Allow allow, FlashBatch& out) {
  const FlashAddress& a = out.t[0]->addr;
  uint32_t planes = 1u << a.plane;
  for (auto& q : d.q)
    for (auto it = q.begin(); it != q.end();) {
      FlashTransaction* t = *it;
      bool same = t->op == out.op && t->addr.block == a.block &&
                  (out.op == FlashOp::Erase || t->addr.page == a.page) && !(planes & (1u << t->addr.plane)) &&
                  !(allow == Allow::ForegroundReads && t->background);
      if (!same) {
        ++it;
        continue;
      }
      planes |= 1u << t->addr.plane;
      out.add(t);
      it = q.erase(it);
    }
}

}  // namespace vp::flash
