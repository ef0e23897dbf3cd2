#include "vp/ssd/PageMappingFtl.hpp"

#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "vp/core/SimControl.hpp"
#include "vp/flash/FlashArray.hpp"

namespace vp::ssd {

using flash::FlashAddress;
using flash::FlashOp;

void PageMappingFtl::declare_params(ParamRegistry& r) {
  r.real("ssd.ftl.overprovision", 0.27,
         "fraction of raw flash hidden from the host (spare for out-of-place writes)")
      .range(0.0, 0.9);
  r.boolean("ssd.ftl.precondition", true,
            "start with every logical page mapped (reads hit flash, as on a used drive); "
            "false: unwritten pages read as zeros without touching flash");
  r.rule([](const Config& c) {
    auto g = flash::FlashArray::geometry_from(c);
    double op = c.get_real("ssd.ftl.overprovision");
    uint64_t per_unit = logical_pages_for(g, op) / g.total_planes();
    uint64_t used_blocks = (per_unit + g.pages_per_block - 1) / g.pages_per_block;
    if (per_unit == 0) c.fail("ssd.ftl.overprovision", "leaves no logical capacity");
    if (used_blocks >= g.blocks_per_plane)
      c.fail("ssd.ftl.overprovision",
             fmt::format("leaves no free block per plane for writes (ssd.flash.blocks_per_plane = {})",
                         g.blocks_per_plane));
  });
}

uint64_t PageMappingFtl::logical_pages_for(const flash::FlashGeometry& g, double op) {
  uint64_t per_unit = uint64_t(g.blocks_per_plane) * g.pages_per_block;
  return static_cast<uint64_t>(std::floor(double(per_unit) * (1.0 - op))) * g.total_planes();
}

PageMappingFtl::PageMappingFtl(sc_core::sc_module_name name, Services& svc)
    : sc_module(name),
      target("target"),
      flash("flash"),
      geo_(flash::FlashArray::geometry_from(svc.cfg)),
      overprovision_(svc.cfg.get_real("ssd.ftl.overprovision")),
      precondition_(svc.cfg.get_bool("ssd.ftl.precondition")),
      host_reads_(svc.stats.counter("ssd.ftl.page_reads", "pages", "logical pages read by the host")),
      host_writes_(svc.stats.counter("ssd.ftl.page_writes", "pages", "logical pages written by the host")),
      unmapped_reads_(svc.stats.counter("ssd.ftl.unmapped_reads", "pages", "reads of never-written pages (zeros)")),
      map_bytes_(svc.stats.counter("ssd.ftl.map_table_bytes", "bytes",
                                   "DRAM a full page-level map would occupy (4 bytes per logical page)")) {
  target.bind(*this);
  units_ = geo_.total_planes();
  logical_pages_ = logical_pages_for(geo_, overprovision_);
  map_bytes_.value = logical_pages_ * 4;
  valid_.assign(geo_.total_blocks(), 0);
  unit_state_.resize(units_);
  uint64_t per_unit = logical_pages_ / units_;
  uint32_t static_blocks =
      precondition_ ? static_cast<uint32_t>((per_unit + geo_.pages_per_block - 1) / geo_.pages_per_block) : 0;
  for (uint64_t u = 0; u < units_; ++u) {
    FlashAddress a = unit_address(u);
    for (uint32_t b = 0; b < geo_.blocks_per_plane; ++b) {
      a.block = b;
      a.page = 0;
      uint64_t blk = flash::ppn_of(geo_, a) / geo_.pages_per_block;
      if (b < static_blocks) {
        uint64_t before = uint64_t(b) * geo_.pages_per_block;
        valid_[blk] = static_cast<uint32_t>(std::min<uint64_t>(geo_.pages_per_block, per_unit - before));
      } else {
        unit_state_[u].free_blocks.push_back(b);
      }
    }
  }
}

void PageMappingFtl::end_of_elaboration() {
  const auto& fg = flash->geometry();
  if (fg.total_pages() != geo_.total_pages() || fg.page_size != geo_.page_size)
    throw std::logic_error("FTL and flash array disagree on geometry");
}

FlashAddress PageMappingFtl::unit_address(uint64_t u) const {
  // Channel first, then die, then plane: consecutive pages land on different buses.
  FlashAddress a;
  a.channel = static_cast<uint32_t>(u % geo_.channels);
  u /= geo_.channels;
  a.die = static_cast<uint32_t>(u % geo_.dies_per_channel());
  a.plane = static_cast<uint32_t>(u / geo_.dies_per_channel());
  return a;
}

bool PageMappingFtl::lookup(uint64_t lpn, uint64_t& ppn) const {
  auto it = map_.find(lpn);
  if (it != map_.end()) {
    ppn = it->second;
    return true;
  }
  if (!precondition_) return false;
  FlashAddress a = unit_address(lpn % units_);
  uint64_t idx = lpn / units_;
  a.block = static_cast<uint32_t>(idx / geo_.pages_per_block);
  a.page = static_cast<uint32_t>(idx % geo_.pages_per_block);
  ppn = flash::ppn_of(geo_, a);
  return true;
}

bool PageMappingFtl::allocate(uint64_t& ppn) {
  uint64_t u = write_unit_;
  write_unit_ = (write_unit_ + 1) % units_;
  Unit& st = unit_state_[u];
  if (st.active < 0 || st.next_page == geo_.pages_per_block) {
    if (st.free_blocks.empty()) {
      FlashAddress a = unit_address(u);
      sim_abort(fmt::format(
          "FTL: no free block left on channel {} die {} plane {} after {} page writes; garbage collection is "
          "not modelled yet, so a run may not write more than the over-provisioned space "
          "(raise ssd.ftl.overprovision or write less)",
          a.channel, a.die, a.plane, host_writes_.value));
      return false;
    }
    st.active = st.free_blocks.front();
    st.free_blocks.pop_front();
    st.next_page = 0;
  }
  FlashAddress a = unit_address(u);
  a.block = static_cast<uint32_t>(st.active);
  a.page = st.next_page++;
  ppn = flash::ppn_of(geo_, a);
  return true;
}

void PageMappingFtl::invalidate(uint64_t ppn) {
  uint32_t& v = valid_[ppn / geo_.pages_per_block];
  if (v > 0) --v;
}

void PageMappingFtl::submit(FtlRequest& r) {
  r.txns.resize(r.pages);
  r.outstanding = 0;
  if (r.op == IoOp::Flush) {  // no volatile write cache yet: nothing to flush
    r.client->ftl_done(r);
    return;
  }
  // Build every transaction first: completions may arrive re-entrantly only
  // through events, but `outstanding` must be final before any can.
  for (uint32_t i = 0; i < r.pages; ++i) {
    uint64_t lpn = r.lpn + i;
    uint8_t* data = r.data + uint64_t(i) * geo_.page_size;
    flash::FlashTransaction& t = r.txns[i];
    t.client = this;
    t.tag = reinterpret_cast<uint64_t>(&r);
    t.data = data;
    uint64_t ppn = 0;
    if (r.op == IoOp::Read) {
      ++host_reads_;
      if (!lookup(lpn, ppn)) {
        ++unmapped_reads_;
        std::memset(data, 0, geo_.page_size);
        t.client = nullptr;  // served without flash
        continue;
      }
      t.op = FlashOp::Read;
    } else {
      ++host_writes_;
      uint64_t old;
      if (!allocate(ppn)) return;  // run is stopping
      if (lookup(lpn, old)) invalidate(old);
      map_[lpn] = ppn;
      ++valid_[ppn / geo_.pages_per_block];
      t.op = FlashOp::Program;
    }
    t.addr = flash::address_of(geo_, ppn);
    ++r.outstanding;
  }
  if (r.outstanding == 0) {
    r.client->ftl_done(r);
    return;
  }
  for (auto& t : r.txns)
    if (t.client) flash->submit(t);
}

void PageMappingFtl::flash_done(flash::FlashTransaction& t) {
  auto& r = *reinterpret_cast<FtlRequest*>(t.tag);
  if (--r.outstanding == 0) r.client->ftl_done(r);
}

}  // namespace vp::ssd
