#pragma once
// What the FTL and the flash subsystem exchange: geometry, addresses and
// transactions. Completion comes back through FlashClient.
#include <cstdint>
#include <systemc>

#include "vp/core/Units.hpp"

namespace vp {
class Config;
class ParamRegistry;
}

namespace vp::flash {

struct FlashGeometry {
  uint32_t channels = 16, packages_per_channel = 1, dies_per_package = 8, planes_per_die = 8;
  uint32_t blocks_per_plane = 1024, pages_per_block = 512;
  uint32_t page_size = 2048, oob_size = 64;

  uint32_t dies_per_channel() const { return packages_per_channel * dies_per_package; }
  uint32_t total_dies() const { return channels * dies_per_channel(); }
  uint64_t total_planes() const { return uint64_t(total_dies()) * planes_per_die; }
  uint64_t total_blocks() const { return total_planes() * blocks_per_plane; }
  uint64_t total_pages() const { return total_blocks() * pages_per_block; }
  uint64_t raw_bytes() const { return total_pages() * page_size; }
};

struct FlashAddress {
  uint32_t channel = 0, die = 0, plane = 0, block = 0, page = 0;  // die: index within the channel
};

// Physical page number: pages of a block are consecutive, then blocks of a
// plane, planes of a die, dies of a channel, channels.
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
  Tick t_read = 3 * US, t_prog = 100 * US, t_erase = 1 * MS;
  Tick t_cmd = 35 * NS;      // command + address cycles on the bus
  double bus_bytes_per_s = 800e6;
  Tick transfer(uint32_t bytes) const {
    return static_cast<Tick>((static_cast<double>(bytes) * 1e12) / bus_bytes_per_s + 0.5);
  }
};

enum class FlashOp : uint8_t { Read, Program, Erase };

struct FlashTransaction;
struct FlashClient {
  virtual void flash_done(FlashTransaction& t) = 0;
  virtual ~FlashClient() = default;
};

struct FlashTransaction {
  FlashOp op = FlashOp::Read;
  FlashAddress addr;
  uint8_t* data = nullptr;   // page_size bytes: filled by a read, source of a program
  FlashClient* client = nullptr;
  uint64_t tag = 0;          // the client's own reference
  Tick submitted = 0, finished = 0;
};

// The flash subsystem as the FTL sees it.
struct IFlash : virtual sc_core::sc_interface {
  virtual void submit(FlashTransaction& t) = 0;
  virtual const FlashGeometry& geometry() const = 0;
};

}  // namespace vp::flash
