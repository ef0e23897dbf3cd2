// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the FTL and the flash subsystem exchange: geometry, cell timing,
// addresses, the spare area (OOB) and transactions. Completion comes back
// through FlashClient.
#include <cstdint>
#include <systemc>

#include "vp/core/Rng.hpp"
#include "vp/core/Units.hpp"

namespace vp {
class Config;
class ParamRegistry;
}

namespace vp::flash {

// Bits stored per cell decide how many page types a word line holds.
enum class PageType : uint8_t { LSB = 0, CSB = 1, MSB = 2 };
inline const char* page_type_name(PageType t) {
  return t == PageType::LSB ? "lsb" : t == PageType::CSB ? "csb" : "msb";
}

struct FlashGeometry {
  uint32_t channels = 16, packages_per_channel = 1, dies_per_package = 8, planes_per_die = 8;
  uint32_t blocks_per_plane = 1024, pages_per_block = 512;
  uint32_t page_size = 2048, oob_size = 64;
  uint32_t bits_per_cell = 1;  // 1 SLC / Z-NAND, 2 MLC, 3 TLC
  uint32_t endurance = 100000;  // rated program/erase cycles of a block
  // An FTL mapping units smaller than a page (sub-page mapping) addresses
  // the flash in units: page_size and pages_per_block are then the unit's
  // and the units a block holds, and each page holds this many of them.
  uint32_t units_per_page = 1;

  uint32_t dies_per_channel() const { return packages_per_channel * dies_per_package; }
  uint32_t total_dies() const { return channels * dies_per_channel(); }
  uint64_t total_planes() const { return uint64_t(total_dies()) * planes_per_die; }
  uint64_t total_blocks() const { return total_planes() * blocks_per_plane; }
  uint64_t total_pages() const { return total_blocks() * pages_per_block; }
  uint64_t raw_bytes() const { return total_pages() * page_size; }
  // Pages of a block cycle through the bits of a word line (the pairing
  // SimpleSSD and MQSim use): LSB, MSB for MLC; LSB, CSB, MSB for TLC.
  PageType page_type(uint32_t page) const {
    if (bits_per_cell == 1) return PageType::LSB;
    uint32_t k = page / units_per_page % bits_per_cell;
    return k == 0 ? PageType::LSB : k == bits_per_cell - 1 ? PageType::MSB : PageType::CSB;
  }
};

// The flash as an FTL mapping `units` units a page sees it (units 1: `g`).
inline FlashGeometry in_units(FlashGeometry g, uint32_t units) {
  g.page_size /= units;
  g.oob_size /= units;
  g.pages_per_block *= units;
  g.units_per_page *= units;
  return g;
}
// The pages themselves, of a geometry in units.
inline FlashGeometry in_pages(FlashGeometry g) {
  const uint32_t u = g.units_per_page;
  g.page_size *= u;
  g.oob_size *= u;
  g.pages_per_block /= u;
  g.units_per_page = 1;
  return g;
}

struct FlashAddress {
  uint32_t channel = 0, die = 0, plane = 0, block = 0, page = 0;  // die: index within the channel
};

// Physical page number: pages of a block are consecutive, then blocks of a
// plane, planes of a die, dies of a channel, channels. A block index is
// ppn / pages_per_block.
inline uint64_t ppn_of(const FlashGeometry& g, const FlashAddress& a) {
  uint64_t die = uint64_t(a.channel) * g.dies_per_channel() + a.die;
  return ((die * g.planes_per_die + a.plane) * g.blocks_per_plane + a.block) * g.pages_per_block + a.page;
}
inline FlashAddress address_of(const FlashGeometry& g, uint64_t ppn) {
  FlashAddress a;
  a.page = static_cast<uint32_t>(ppn % g.pages_per_block);
  ppn /= g.pages_per_block;
  a.block = static_cast<uint32_t>(ppn % g.blocks_per_plane);
  ppn /= g.blocks_per_plane;
  a.plane = static_cast<uint32_t>(ppn % g.planes_per_die);
  ppn /= g.planes_per_die;
  a.die = static_cast<uint32_t>(ppn % g.dies_per_channel());
  a.channel = static_cast<uint32_t>(ppn / g.dies_per_channel());
  return a;
}

struct FlashTiming {
  Tick t_read[3] = {3 * US, 3 * US, 3 * US};      // by PageType
  Tick t_prog[3] = {100 * US, 100 * US, 100 * US};
  Tick t_erase = 1 * MS;
  Tick t_cmd = 35 * NS;      // command + address cycles on the bus
  double bus_bytes_per_s = 800e6;
  bool cache_read = false;   // a finished read's data waits in the cache register, freeing the array
  Tick t_suspend = 20 * US, t_resume = 20 * US;  // program/erase suspend for reads (when enabled)
  Tick transfer(uint32_t bytes) const {
    return static_cast<Tick>((static_cast<double>(bytes) * 1e12) / bus_bytes_per_s + 0.5);
  }
};

enum class FlashOp : uint8_t { Read, Program, Erase, CopyBack };

// Whose work a transaction is: the firmware charges GC's and the journal's
// to their own threads (DeepFlash's BGC and LOG).
enum class FlashUse : uint8_t { Host, Gc, Journal };

// The spare area the FTL writes with each page: which logical page it holds
// and a write sequence number (journaling: the mapping can be rebuilt from
// these after a power loss).
constexpr uint32_t kNoLpn = 0xFFFFFFFFu;
struct FlashOob {
  uint32_t lpn = kNoLpn;
  uint32_t seq = 0;
};

struct FlashTransaction;
struct FlashClient {
  virtual void flash_done(FlashTransaction& t) = 0;
  virtual ~FlashClient() = default;
};

struct FlashTransaction {
  FlashOp op = FlashOp::Read;
  FlashAddress addr;         // the page read or programmed, the block erased, the copy-back source
  FlashAddress dst;          // copy-back destination (same die and plane as addr)
  uint8_t* data = nullptr;   // page_size bytes: filled by a read, source of a program; unused otherwise
  // A program's spare areas, one per unit, when the array stores several
  // units a page (null: every unit gets `oob`).
  const FlashOob* unit_oobs = nullptr;
  FlashOob oob;              // written by a program; filled by a background read and a copy-back (the
                             // page's spare area; a host read leaves it); a copy-back given a non-zero
                             // seq writes this spare area at the destination
  bool background = false;   // GC, wear leveling, journal: yields to host work under the read-first policy
  bool latency = false;      // a host read with a latency-critical workload attribute (FlashShare)
  FlashUse use = FlashUse::Host;
  FlashClient* client = nullptr;
  uint64_t tag = 0;          // the client's own reference
  Tick submitted = 0, finished = 0;
};

// What a preconditioning pass left in a block, as preload_block takes it:
// pages [0, pages) hold logical pages first_lpn + i x lpn_stride, through
// the pass's permutation when `permuted`; no pages: the block was left free.
struct BlockFill {
  uint32_t pages = 0, first_lpn = 0, lpn_stride = 0;
  bool permuted = false;
};
// Every block's fill, computed: a drive filled by rule keeps no record of a
// block until the block is used.
struct FillRule {
  virtual BlockFill fill_of(uint64_t block) const = 0;
  virtual ~FillRule() = default;
};

// The flash subsystem as the FTL sees it: timed transactions, plus the
// functional access a firmware has at boot (scan the spare areas) and that
// preconditioning needs (set up state without simulating time).
struct IFlash : virtual sc_core::sc_interface {
  virtual void submit(FlashTransaction& t) = 0;
  virtual const FlashGeometry& geometry() const = 0;
  virtual const FlashTiming& timing() const = 0;

  // Functional (zero-time) access, by the array's storage unit: a page, or
  // a mapping unit when the array keeps a spare area per unit (`ppn` is
  // then page x units + unit, `pages` a count of units).
  virtual bool peek(uint64_t ppn, uint8_t* data, FlashOob* oob) const = 0;  // false: page not programmed
  // A hint that `ppn`'s block will be programmed or read soon: its record is
  // brought into the CPU cache (no simulated effect).
  virtual void prefetch(uint64_t ppn) const = 0;
  // Programmed with `data` (page_size bytes; null: all zeros).
  virtual void preload_page(uint64_t ppn, const FlashOob& oob, const uint8_t* data = nullptr) = 0;
  // `dst` programmed with the data of `src` and spare area `oob` (a functional copy-back).
  virtual void preload_copy(uint64_t src, uint64_t dst, const FlashOob& oob) = 0;
  // Pages [0, pages) of block `block` programmed with lpn = first_lpn + i * lpn_stride, seq `seq`,
  // data all zeros; costs no memory per page. With `order`, page i holds
  // order(first_lpn + i * lpn_stride) instead (a random fill's or ageing's
  // write index through its permutation); `order` outlives the flash's use of it.
  virtual void preload_block(uint64_t block, uint32_t pages, uint32_t first_lpn, uint32_t lpn_stride, uint32_t seq,
                             const RandomPermutation* order = nullptr) = 0;
  // preload_block(b, fill.pages, fill.first_lpn, fill.lpn_stride, seq, fill.permuted ? order : nullptr)
  // for every block b of `rule` with pages, each done when the block is first
  // read or changed; `rule` and `order` outlive the flash's use of them.
  virtual void preload_rule(const FillRule* rule, uint32_t seq, const RandomPermutation* order) = 0;
  // The block holds just what preload_block or that rule put there (nothing,
  // for a block the rule left free), neither erased nor programmed since
  // (erases by preload_erase before preload_block count as the layout's);
  // false for a block neither set up.
  virtual bool as_filled(uint64_t block) const = 0;
  // Some page of the block is programmed (since its last erase): what a
  // boot scan learns from the block's first pages, without reading them all.
  virtual bool holds_pages(uint64_t block) const = 0;
  virtual void preload_erase(uint64_t block) = 0;  // erased; its P/E count grows by one
  virtual uint32_t erase_count(uint64_t block) const = 0;
  // Power is cut: operations in flight are lost (a page being programmed
  // stays unprogrammed, a block being erased is erased), queued ones are
  // dropped and no completion is delivered for any of them.
  virtual void power_loss() = 0;
};

}  // namespace vp::flash
