// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/ftl/SubPageFlash.hpp"

#include <cstring>
#include <stdexcept>

namespace vp::ssd {

using flash::FlashOp;
using flash::FlashTransaction;

SubPageFlash::SubPageFlash(const flash::FlashGeometry& units, flash::IFlash& pages)
    : units_(units), geo_(flash::in_pages(units)), pages_(pages) {}

SubPageFlash::Page& SubPageFlash::page_for(std::unordered_map<uint64_t, std::unique_ptr<Page>>& pages, uint64_t ppn,
                                           const FlashTransaction& first, FlashOp op) {
  auto& p = pages[ppn];
  if (p) return *p;
  p = std::make_unique<Page>();
  const uint32_t n = units_.units_per_page;
  p->data.assign(uint64_t(n) * units_.page_size, 0);
  p->t.op = op;
  p->t.addr = flash::address_of(geo_, ppn);
  p->t.data = p->data.data();
  p->t.background = first.background;
  p->t.latency = first.latency;
  p->t.use = first.use;
  p->t.client = this;
  p->t.tag = ppn;
  if (op == FlashOp::Program) {
    p->oobs.resize(n);
    p->t.unit_oobs = p->oobs.data();
  }
  return *p;
}

void SubPageFlash::submit(FlashTransaction& t) {
  const uint32_t n = units_.units_per_page;
  const uint64_t unit = flash::ppn_of(units_, t.addr), ppn = unit / n;
  const uint32_t slot = static_cast<uint32_t>(unit % n);
  switch (t.op) {
    case FlashOp::Erase: {
      t.addr.page = 0;  // the block's address is the same in units and pages
      return pages_.submit(t);
    }
    case FlashOp::Read: {
      // A read joining one in flight keeps that read's priority (the flash has it queued already).
      const bool issue = !reads_.count(ppn);
      Page& p = page_for(reads_, ppn, t, FlashOp::Read);
      p.units.push_back(&t);
      if (issue) pages_.submit(p.t);
      return;
    }
    case FlashOp::Program: {
      Page& p = page_for(packs_, ppn, t, FlashOp::Program);
      if (t.data) std::memcpy(p.data.data() + uint64_t(slot) * units_.page_size, t.data, units_.page_size);
      p.oobs[slot] = t.client ? t.oob : flash::FlashOob{};
      if (t.client) p.units.push_back(&t);
      if (++p.filled == n) pages_.submit(p.t);
      return;
    }
    case FlashOp::CopyBack: break;
  }
  throw std::logic_error("sub-page mapping: copy-back moves whole pages, not units");
}

void SubPageFlash::flash_done(FlashTransaction& pt) {
  auto& pages = pt.op == FlashOp::Read ? reads_ : packs_;
  auto it = pages.find(pt.tag);
  std::unique_ptr<Page> p = std::move(it->second);
  pages.erase(it);  // a unit's client may read the page again from its callback
  const uint32_t n = units_.units_per_page;
  for (FlashTransaction* t : p->units) {
    if (pt.op == FlashOp::Read) {
      const uint64_t unit = flash::ppn_of(units_, t->addr);
      if (t->data)
        std::memcpy(t->data, p->data.data() + unit % n * units_.page_size, units_.page_size);
      if (t->background) pages_.peek(unit, nullptr, &t->oob);
    }
    t->submitted = pt.submitted;
    t->finished = pt.finished;
    t->client->flash_done(*t);
  }
}

void SubPageFlash::power_loss() {
  packs_.clear();
  reads_.clear();
  pages_.power_loss();
}

}  // namespace vp::ssd
