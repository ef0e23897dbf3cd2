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
#include "vp/ssd/BlockManager.hpp"
#include "vp/ssd/MappingTable.hpp"

namespace vp::ssd {

class SequentialLayout;

struct FtlState {
  FtlState(const flash::FlashGeometry& g, uint64_t host_pages, uint64_t translation_pages, bool wear_aware,
           sc_core::sc_port<flash::IFlash>& flash_port, EventQueue& queue)
      : geo(g),
        planes(g.total_planes()),
        logical_pages(host_pages),
        map_pages(translation_pages),
        map(host_pages + translation_pages),
        blocks(g, wear_aware),
        unsaved((host_pages + translation_pages + MappingTable::kChunk - 1) / MappingTable::kChunk, false),
        flash(flash_port),
        eq(queue) {}

  const flash::FlashGeometry geo;
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
  const SequentialLayout* fill = nullptr;
  uint32_t fill_seq = 0;
  uint32_t seq = 0;          // the newest write sequence number (spare areas)
  uint64_t epoch = 0;        // power cycles: work scheduled before a power loss is dropped
  bool powered = true;
  uint64_t outstanding = 0;  // host requests at the FTL
  sc_core::sc_port<flash::IFlash>& flash;
  EventQueue& eq;

  uint32_t next_seq() { return ++seq; }
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
