// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the parts of the page-mapping FTL share, as MQSim's FTL units share
// their FTL object: the geometry and capacity, the map and the blocks, the
// write sequence, the flash, and the power cycle. PageMappingFtl owns it;
// the allocator, the garbage collector, the mapping, the journal and
// preconditioning each keep a reference.
#include <cstdint>
#include <systemc>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/flash/FlashTypes.hpp"
#include "vp/ssd/ftl/BlockManager.hpp"
#include "vp/ssd/ftl/MappingTable.hpp"

namespace vp::ssd {

class FillLayout;

// The flash as the FTL's parts address it: set once the platform has bound
// the FTL's port (end of elaboration).
struct FlashHandle {
  flash::IFlash* to = nullptr;
  flash::IFlash* operator->() const { return to; }
};

struct FtlState {
  FtlState(const flash::FlashGeometry& g, uint64_t host_pages, uint64_t translation_pages, bool wear_aware,
           EventQueue& queue)
      : geo(g),
        page_geo(flash::in_pages(g)),
        planes(g.total_planes()),
        logical_pages(host_pages),
        map_pages(translation_pages),
        map(host_pages + translation_pages),
        blocks(g, wear_aware),
        unsaved((host_pages + translation_pages + MappingTable::kChunk - 1) / MappingTable::kChunk, false),
        gc_first_seq(g.total_planes(), 0),
        eq(queue) {}

  // In the FTL's mapping units (a page each, but with sub-page mapping), and in pages.
  const flash::FlashGeometry geo, page_geo;
  const uint64_t planes;
  const uint64_t logical_pages;  // the host's
  const uint64_t map_pages;      // a cached map's translation pages, logical pages past the host's
  MappingTable map;
  BlockManager blocks;
  std::vector<bool> unsaved;  // map chunks changed since the last checkpoint
  // The layout a sequential preconditioning left (it outlives the map's use
  // of it), and whether the map's untouched entries follow it now.
  const MapRule* layout = nullptr;
  bool follows_layout = false;
  // The fill's layout as blocks (null without a fill by rule) and its
  // pages' write sequence number: a power loss's recovery reads the blocks
  // the flash still holds as filled by this rule, not page by page.
  const FillLayout* fill = nullptr;
  uint32_t fill_seq = 0;
  uint32_t seq = 0;          // the newest write sequence number (spare areas)
  uint64_t epoch = 0;        // power cycles: work scheduled before a power loss is dropped
  bool powered = true;
  uint64_t outstanding = 0;  // host requests at the FTL
  // What a checkpoint must wait for or replay: host programs whose map entry
  // already names their page (set when issued) and are not yet on flash, and
  // per plane the first sequence number of a GC job whose copies are not all
  // mapped yet (0: none; a copy is mapped when written).
  uint64_t host_programs = 0;
  std::vector<uint32_t> gc_first_seq;
  FlashHandle flash;  // by mapping unit (geo)
  FlashHandle pages;  // by page (page_geo); the same as `flash` without sub-page mapping
  EventQueue& eq;

  uint32_t next_seq() { return ++seq; }
  uint32_t units_per_page() const { return geo.units_per_page; }
  // Whether `ppn` is the last unit of its page (always, without sub-page mapping).
  bool page_ends_at(uint64_t ppn) const { return (ppn + 1) % geo.units_per_page == 0; }
  uint32_t to_ppn(uint64_t block, uint32_t page) const {
    return static_cast<uint32_t>(block * geo.pages_per_block + page);
  }
  uint64_t block_of(uint64_t ppn) const { return ppn / geo.pages_per_block; }
  uint64_t plane_of_ppn(uint64_t ppn) const { return ppn / geo.pages_per_block / geo.blocks_per_plane; }
  // The logical page in a physical page's spare area: what GC reads with the page.
  uint32_t lpn_at(uint64_t ppn) const {
    flash::FlashOob o;
    flash->peek(ppn, nullptr, &o);
    return o.lpn;
  }
  void map_set(uint64_t lpn, uint32_t ppn) {
    map.set(lpn, ppn);
    unsaved[lpn / MappingTable::kChunk] = true;
  }
  // A host write or trim: the old copy becomes invalid.
  void remap(uint64_t lpn, uint32_t ppn) {
    uint32_t old = map.get(lpn);
    if (old != MappingTable::kUnmapped) blocks.invalidate(block_of(old), old % geo.pages_per_block);
    map_set(lpn, ppn);
  }
};

}  // namespace vp::ssd
