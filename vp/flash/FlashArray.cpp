#include "vp/flash/FlashArray.hpp"

#include <fmt/format.h>

namespace vp::flash {

void FlashArray::declare_params(ParamRegistry& r) {
  // Defaults: the Z-NAND device of FlashShare Table 2 (16 channels, 1 package
  // per channel, 8 dies, 8 planes, 2 KB pages, 3us/100us/1ms, 800 MHz DMA);
  // 1024 blocks of 512 pages per plane make a 64 Gb die.
  r.integer("ssd.flash.channels", 16, "flash channels (ONFI buses)").range(1, 1024);
  r.integer("ssd.flash.packages_per_channel", 1, "packages sharing one channel").range(1, 64);
  r.integer("ssd.flash.dies_per_package", 8, "dies per package").range(1, 64);
  r.integer("ssd.flash.planes_per_die", 8, "planes per die").range(1, 16);
  r.integer("ssd.flash.blocks_per_plane", 1024, "erase blocks per plane").range(1, 1 << 20);
  r.size("ssd.flash.block_size", "1MiB", "bytes of data per erase block (page_size x pages per block)").at_least(512);
  r.size("ssd.flash.page_size", "2KiB", "bytes of data per flash page").range(512, 65536);
  r.size("ssd.flash.oob_size", "64B", "spare (OOB) bytes per page").range(0, 8192);
  r.time("ssd.flash.t_read", "3us", "array read time tR");
  r.time("ssd.flash.t_prog", "100us", "page program time tPROG");
  r.time("ssd.flash.t_erase", "1ms", "block erase time tBERS");
  r.time("ssd.flash.t_cmd", "35ns", "bus time of the command and address cycles of one operation");
  r.rate("ssd.flash.bus_rate", "800MT/s", "ONFI data transfer rate per bus lane");
  r.integer("ssd.flash.bus_width", 8, "ONFI bus width in bits").range(8, 16);
  r.rule([](const Config& c) {
    uint64_t page = c.get_size("ssd.flash.page_size"), block = c.get_size("ssd.flash.block_size");
    if (block % page != 0)
      c.fail("ssd.flash.block_size",
             fmt::format("must be a whole number of pages (ssd.flash.page_size = {})", format_size(page)));
    if (c.get_int("ssd.flash.bus_width") % 8 != 0) c.fail("ssd.flash.bus_width", "must be 8 or 16");
  });
}

FlashGeometry FlashArray::geometry_from(const Config& c) {
  FlashGeometry g;
  g.channels = static_cast<uint32_t>(c.get_int("ssd.flash.channels"));
  g.packages_per_channel = static_cast<uint32_t>(c.get_int("ssd.flash.packages_per_channel"));
  g.dies_per_package = static_cast<uint32_t>(c.get_int("ssd.flash.dies_per_package"));
  g.planes_per_die = static_cast<uint32_t>(c.get_int("ssd.flash.planes_per_die"));
  g.blocks_per_plane = static_cast<uint32_t>(c.get_int("ssd.flash.blocks_per_plane"));
  g.page_size = static_cast<uint32_t>(c.get_size("ssd.flash.page_size"));
  g.pages_per_block = static_cast<uint32_t>(c.get_size("ssd.flash.block_size") / g.page_size);
  g.oob_size = static_cast<uint32_t>(c.get_size("ssd.flash.oob_size"));
  return g;
}

FlashTiming FlashArray::timing_from(const Config& c) {
  FlashTiming t;
  for (int i = 0; i < 3; ++i) {
    t.t_read[i] = c.get_time("ssd.flash.t_read");
    t.t_prog[i] = c.get_time("ssd.flash.t_prog");
  }
  t.t_erase = c.get_time("ssd.flash.t_erase");
  t.t_cmd = c.get_time("ssd.flash.t_cmd");
  t.bus_bytes_per_s = c.get_rate("ssd.flash.bus_rate") * static_cast<double>(c.get_int("ssd.flash.bus_width")) / 8.0;
  return t;
}

FlashArray::FlashArray(sc_core::sc_module_name name, Services& svc)
    : sc_module(name),
      target("target"),
      geo_(geometry_from(svc.cfg)),
      tim_(timing_from(svc.cfg)),
      eq_("eq"),
      store_(geo_.page_size, geo_.pages_per_block, geo_.total_blocks()),
      ctr_{svc.stats.counter("ssd.flash.reads", "pages", "flash page reads"),
           svc.stats.counter("ssd.flash.programs", "pages", "flash page programs"),
           svc.stats.counter("ssd.flash.erases", "blocks", "flash block erases"),
           svc.stats.counter("ssd.flash.bus_bytes", "bytes", "bytes moved over the ONFI buses")} {
  target.bind(*this);
  for (uint32_t c = 0; c < geo_.channels; ++c)
    channels_.push_back(std::make_unique<FlashChannel>(c, geo_, tim_, eq_, store_, ctr_, svc.waves));
}

void FlashArray::power_loss() {
  throw std::logic_error("FlashArray::power_loss: not implemented yet");
}

}  // namespace vp::flash
