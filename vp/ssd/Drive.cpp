// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/Drive.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "vp/ssd/FtlJournal.hpp"
#include "vp/ssd/GarbageCollector.hpp"
#include "vp/ssd/Preconditioner.hpp"
#include "vp/ssd/SsdImage.hpp"

namespace vp::ssd {

namespace {
constexpr const char* kFlash = flash::FlashArray::kScope;
constexpr const char* kFtl = PageMappingFtl::kScope;

flash::FlashGeometry flash_geometry(const Config& c) { return flash::FlashArray::geometry_from(ScopedConfig(c, kFlash)); }

// The FTL's capacity, shards and allocation on the flash it is given.
void check_ftl_on_flash(const Config& c) {
  ScopedConfig ftl(c, kFtl);
  auto g = flash_geometry(c);
  if (g.total_pages() >= 0xFFFFFFFFull)
    c.fail({"ssd.flash.channels", "ssd.flash.packages_per_channel", "ssd.flash.dies_per_package",
            "ssd.flash.planes_per_die", "ssd.flash.blocks_per_plane", "ssd.flash.block_size", "ssd.flash.page_size"},
           fmt::format("the device has {} pages; the FTL's 32-bit map addresses fewer than 2^32", g.total_pages()));
  uint32_t reserved = FtlJournal::reserved_blocks(ftl);
  uint32_t data_blocks = g.blocks_per_plane - std::min(g.blocks_per_plane, reserved);
  uint64_t per_plane = PageMappingFtl::logical_pages_for(ftl, g) / g.total_planes();
  uint64_t used = (per_plane + g.pages_per_block - 1) / g.pages_per_block;
  if (per_plane == 0) c.fail("ssd.ftl.overprovision", "leaves no logical capacity");
  uint32_t need = GarbageCollector::fg_threshold_of(ftl) + 1;
  if (used + need > data_blocks) {
    std::vector<std::string> keys = {"ssd.ftl.overprovision", "ssd.flash.blocks_per_plane", "ssd.ftl.gc.fg_threshold"};
    if (reserved) keys.push_back("ssd.ftl.checkpoint_blocks");
    c.fail(keys, fmt::format("leaves {} spare blocks per plane{}; garbage collection needs fg_threshold + 1 = {} "
                             "free blocks",
                             data_blocks - std::min<uint64_t>(used, data_blocks),
                             reserved ? fmt::format(" besides {} for checkpoints", reserved) : "", need));
  }
  if (g.oob_size < sizeof(flash::FlashOob))
    c.fail("ssd.flash.oob_size", "the FTL keeps 8 bytes (logical page, sequence number) in every spare area");
  if (ftl.is("shard_partition", "channel") && g.channels % PageMappingFtl::shard_map_from(ftl).shards)
    c.fail({"ssd.ftl.shards", "ssd.flash.channels", "ssd.ftl.shard_partition"},
           "shards that own channels must divide the channels evenly");
  if (!ftl.is("page_alloc", "sequential") && g.bits_per_cell < 2)
    c.fail({"ssd.ftl.page_alloc", "ssd.flash.bits_per_cell"},
           "LSB-aware allocation needs a multi-level cell (bits_per_cell >= 2): every page is LSB here");
}
}  // namespace

void Drive::declare_params(ParamRegistry& r) {
  NvmeController::declare_params(ParamScope(r, "ssd.nvme"));
  pcie::PciConfigSpace::declare_params(ParamScope(r, "ssd.pci"));
  Firmware::declare_params(ParamScope(r, Firmware::kScope));
  CacheLayer::declare_params(ParamScope(r, CacheLayer::kScope));
  PageMappingFtl::declare_params(ParamScope(r, kFtl));
  Preconditioner::declare_params(ParamScope(r, PageMappingFtl::kPreconditionScope));
  SsdDram::declare_params(ParamScope(r, SsdDram::kScope));
  SsdImage::declare_params(r);
  PowerLossProtection::declare_params(ParamScope(r, PowerLossProtection::kScope));
  flash::FlashArray::declare_params(ParamScope(r, kFlash));
  r.rule(check_ftl_on_flash);
  // ManyLayered's instances each own a shard's channels, as the FTL lays them out.
  r.rule([](const Config& c) {
    if (c.is("ssd.fw.organisation", "manylayered") && !c.is("ssd.ftl.shard_partition", "channel"))
      c.fail({"ssd.ftl.shard_partition", "ssd.fw.organisation"},
             "manylayered needs ssd.ftl.shard_partition = channel (each instance owns its channels)");
  });
  // DeepFlash's FCMD threads split the flash's channels.
  r.rule([](const Config& c) {
    if (!c.is("ssd.fw.organisation", "deepflash")) return;
    int64_t channels = c.get_int("ssd.flash.channels");
    if (c.get_int("ssd.fw.threads.fcmd") > channels)
      c.fail({"ssd.fw.threads.fcmd", "ssd.flash.channels", "ssd.fw.organisation"},
             "deepflash: each FCMD thread serves at least one channel");
  });
  // The controller's logical blocks are made of the FTL's mapping units.
  r.rule([](const Config& c) {
    if (c.get_size("ssd.nvme.lba_size") % c.get_size("ssd.flash.page_size") != 0)
      c.fail({"ssd.nvme.lba_size", "ssd.flash.page_size"}, "an LBA must be a whole number of flash pages (the FTL's "
                                                           "mapping unit)");
  });
}

uint64_t Drive::capacity_bytes(const Config& cfg) {
  auto g = flash_geometry(cfg);
  uint64_t bytes = PageMappingFtl::logical_pages_for(ScopedConfig(cfg, kFtl), g) * g.page_size;
  return bytes / cfg.get_size("ssd.nvme.lba_size") * cfg.get_size("ssd.nvme.lba_size");
}

Drive::Drive(sc_core::sc_module_name name, Services& svc, const pcie::LinkTiming& link, IFirmware* firmware)
    : sc_module(name),
      nvme("nvme", svc, link, "ssd.nvme", "ssd.pci"),
      fw("fw", svc, PageMappingFtl::shard_map_from(ScopedConfig(svc.cfg, kFtl))),  // the firmware routes pages as the FTL shards them
      cache("cache", svc, flash_geometry(svc.cfg).page_size),  // a line per mapping unit of the FTL
      ftl("ftl", svc, flash_geometry(svc.cfg)),
      dram("dram_ssd", svc),
      plp("plp", svc),
      flash("flash", svc) {
  if (firmware)
    nvme.fw.bind(*firmware);
  else
    nvme.fw.bind(fw.target);
  // firmware -> cache layer -> FTL -> the firmware's FCMD stage -> flash.
  // Power-loss protection drains the cache, which then holds no volatile data.
  plp.buffers.bind(cache.power);
  cache.set_power_protected(plp.enabled());
  fw.ftl.bind(cache.target);
  cache.ftl.bind(ftl.target);
  ftl.flash.bind(fw.fcmd);
  fw.flash.bind(flash.target);
  // The SSD DRAM's regions, in this order: the controller's data staging,
  // the FTL's map, the cache (a region that does not fit names its keys).
  nvme.dram.bind(dram.target);
  nvme.set_staging_base(dram.reserve(nvme.staging_bytes(), "nvme data staging", {"ssd.nvme.max_inflight", "ssd.nvme.mdts"}));
  ftl.dram.bind(dram.target);
  ftl.set_map_base(dram.reserve(ftl.map_dram_bytes(), "ftl mapping table", {"ssd.ftl.map_cache"}));
  cache.dram.bind(dram.target);
  cache.set_base(dram.reserve(cache.dram_bytes(), "the cache", {"ssd.cache.size"}));
}

uint64_t Drive::events() const {
  return nvme.events() + fw.events() + cache.events() + flash.events() + dram.events();
}

}  // namespace vp::ssd
