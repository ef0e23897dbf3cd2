// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/Drive.hpp"

#include "vp/ssd/SsdImage.hpp"

namespace vp::ssd {

void Drive::declare_params(ParamRegistry& r) {
  NvmeController::declare_params(ParamScope(r, "ssd.nvme"));
  pcie::PciConfigSpace::declare_params(ParamScope(r, "ssd.pci"));
  Firmware::declare_params(r);
  CacheLayer::declare_params(r);
  PageMappingFtl::declare_params(r);
  SsdDram::declare_params(r);
  SsdImage::declare_params(r);
  PowerLossProtection::declare_params(r);
  flash::FlashArray::declare_params(r);
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
  auto g = flash::FlashArray::geometry_from(cfg);
  uint64_t bytes = PageMappingFtl::logical_pages_for(cfg) * g.page_size;
  return bytes / cfg.get_size("ssd.nvme.lba_size") * cfg.get_size("ssd.nvme.lba_size");
}

Drive::Drive(sc_core::sc_module_name name, Services& svc, const pcie::LinkTiming& link, IFirmware* firmware)
    : sc_module(name),
      nvme("nvme", svc, link, "ssd.nvme", "ssd.pci"),
      fw("fw", svc, PageMappingFtl::shard_map_from(svc.cfg)),  // the firmware routes pages as the FTL shards them
      cache("cache", svc),
      ftl("ftl", svc),
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
