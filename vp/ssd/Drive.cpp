// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/Drive.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

#include "vp/core/Calendar.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/ssd/ftl/FtlJournal.hpp"
#include "vp/ssd/ftl/GarbageCollector.hpp"
#include "vp/ssd/ftl/precondition/Preconditioner.hpp"

namespace vp::ssd {

namespace {
flash::FlashGeometry flash_geometry(const ScopedConfig& drive) {
  return flash::FlashArray::geometry_from(drive.sub("flash"));
}
// The flash as the FTL addresses it: by mapping unit.
flash::FlashGeometry ftl_geometry(const ScopedConfig& drive) {
  return PageMappingFtl::geometry_for(drive.sub("ftl"), flash_geometry(drive));
}

// The FTL's capacity, shards and allocation on the flash it is given.
void check_ftl_on_flash(const ScopedConfig& d) {
  ScopedConfig ftl = d.sub("ftl");
  const auto pages = flash_geometry(d);
  if (uint64_t unit = ftl.get_size("map_unit")) {
    if (unit > pages.page_size || pages.page_size % unit || unit % 512)
      d.fail({"ftl.map_unit", "flash.page_size"},
             fmt::format("a mapping unit of {} B must be a multiple of 512 B that divides the {} B flash page", unit,
                         pages.page_size));
    if (unit < pages.page_size && ftl.is("gc.migration", "copyback"))
      d.fail({"ftl.gc.migration", "ftl.map_unit", "flash.page_size"},
             "copy-back moves whole pages; GC moving units smaller than a page (sub-page mapping) reads them out "
             "and programs them back: set read_program");
    if (uint64_t(pages.pages_per_block) * pages.page_size / unit > 0xFFFF)
      d.fail({"ftl.map_unit", "flash.block_size"}, "more than 65,535 mapping units in a block");
  }
  auto g = ftl_geometry(d);
  if (g.total_pages() >= 0xFFFFFFFFull)
    d.fail({"flash.channels", "flash.packages_per_channel", "flash.dies_per_package", "flash.planes_per_die",
            "flash.blocks_per_plane", "flash.block_size", "flash.page_size", "ftl.map_unit"},
           fmt::format("the device has {} mapping units; the FTL's 32-bit map addresses fewer than 2^32",
                       g.total_pages()));
  uint32_t reserved = FtlJournal::reserved_blocks(ftl);
  uint32_t data_blocks = g.blocks_per_plane - std::min(g.blocks_per_plane, reserved);
  uint64_t per_plane = PageMappingFtl::logical_pages_for(ftl, pages) / g.total_planes();
  uint64_t used = (per_plane + g.pages_per_block - 1) / g.pages_per_block;
  if (per_plane == 0) d.fail("ftl.overprovision", "leaves no logical capacity");
  uint32_t need = GarbageCollector::fg_threshold_of(ftl) + 1;
  if (used + need > data_blocks) {
    std::string why = fmt::format("leaves {} spare blocks per plane{}; garbage collection needs fg_threshold + 1 = {} "
                                  "free blocks",
                                  data_blocks - std::min<uint64_t>(used, data_blocks),
                                  reserved ? fmt::format(" besides {} for checkpoints", reserved) : "", need);
    if (reserved) d.fail({"ftl.overprovision", "flash.blocks_per_plane", "ftl.gc.fg_threshold", "ftl.checkpoint_blocks"}, why);
    d.fail({"ftl.overprovision", "flash.blocks_per_plane", "ftl.gc.fg_threshold"}, why);
  }
  if (g.oob_size < sizeof(flash::FlashOob))
    d.fail({"flash.oob_size", "ftl.map_unit"},
           "the FTL keeps 8 bytes (logical unit, sequence number) in the spare area for every mapping unit");
  if (ftl.is("shard_partition", "channel") && g.channels % PageMappingFtl::shard_map_from(ftl).shards)
    d.fail({"ftl.shards", "flash.channels", "ftl.shard_partition"}, "shards that own channels must divide the channels evenly");
  if (!ftl.is("page_alloc", "sequential") && g.bits_per_cell < 2)
    d.fail({"ftl.page_alloc", "flash.bits_per_cell"},
           "LSB-aware allocation needs a multi-level cell (bits_per_cell >= 2): every page is LSB here");
}

// The firmware organisation on the FTL's shards and the flash's channels.
void check_firmware_on_ftl(const ScopedConfig& d) {
  // ManyLayered's instances each own a shard's channels, as the FTL lays them out.
  if (d.is("fw.organisation", "manylayered") && !d.is("ftl.shard_partition", "channel"))
    d.fail({"ftl.shard_partition", "fw.organisation"},
           fmt::format("manylayered needs {} = channel (each instance owns its channels)", d.key("ftl.shard_partition")));
  // DeepFlash's FCMD threads split the flash's channels.
  if (d.is("fw.organisation", "deepflash") && d.get_int("fw.threads.fcmd") > d.get_int("flash.channels"))
    d.fail({"fw.threads.fcmd", "flash.channels", "fw.organisation"},
           "deepflash: each FCMD thread serves at least one channel");
}

// The controller's logical blocks are made of the FTL's mapping units.
void check_lba_on_pages(const ScopedConfig& d) {
  const uint64_t unit = ftl_geometry(d).page_size;
  if (d.get_size("nvme.lba_size") % unit != 0)
    d.fail({"nvme.lba_size", "flash.page_size", "ftl.map_unit"},
           fmt::format("an LBA must be a whole number of the FTL's mapping units ({} B: {}, or the flash page); "
                       "set {} to map units smaller than the page",
                       unit, d.key("ftl.map_unit"), d.key("ftl.map_unit")));
}
}  // namespace

void Drive::declare_params(const ParamScope& r) {
  NvmeController::declare_params(r.sub("nvme"));
  pcie::PciConfigSpace::declare_params(r.sub("pci"));
  Firmware::declare_params(r.sub("fw"));
  CacheLayer::declare_params(r.sub("cache"));
  PageMappingFtl::declare_params(r.sub("ftl"));
  Preconditioner::declare_params(r.sub("precondition"));
  SsdDram::declare_params(r.sub("dram"));
  PowerLossProtection::declare_params(r.sub("plp"));
  flash::FlashArray::declare_params(r.sub("flash"));
  SsdImage::declare_params(r);
  r.time("power_loss_at", "0ns",
         "the power fails at this simulated time (the drive idles until then if the jobs end first): with "
         "the drive's plp.enabled it drains its buffers on hold-up power, then its power is cut, the FTL is rebuilt "
         "from flash and every block verify=1 jobs acknowledged on this drive is checked against what NVMe promised (durable "
         "blocks must read back); the run ends there (0: never)");
  r.boolean("power_loss_in_recovery", false,
            "with the drive's power_loss_at: the power fails a second time while the FTL rebuilds, once the rebuild's state "
            "in DRAM is complete (it writes nothing to flash before it ends), and the FTL rebuilds again");
  // Not in the papers: the DRAM that holds written pages on their way to
  // flash until their programs succeed. Two pages per plane keep every
  // plane programming while the next page waits (fewer starve multi-plane
  // programs on a large drive), and drain in two program times, inside
  // ssd.plp's 20 ms hold-up for every cell in vp/flash/cells; 1 MiB at
  // least (512 pages of 2 KiB drain in 6.6 ms on the quick preset's 8 dies).
  r.size("write_buffer.size", "0",
         "the drive's write buffer, with a write-back cache (ssd.cache.organisation uni, uni-dyn, split): SSD DRAM "
         "holding replaced and written-back pages until their programs are on flash; a host write that would "
         "overfill it waits (0: two pages for every plane of every die, at least 1 MiB)");
  r.rule([](const ScopedConfig& c) {
    uint64_t b = c.get_size("write_buffer.size");
    if (b != 0 && b < 512) c.fail("write_buffer.size", "must be 0 (from the geometry) or at least 512 B");
  });
  // FlashShare's workload attribute inside the drive.
  r.boolean("priority.firmware", false,
            "the firmware threads' queues serve the work of commands with a latency-critical workload attribute "
            "(CDW2) before other commands' work");
  r.boolean("priority.flash", false,
            "the dies' queues serve host reads with a latency-critical workload attribute (CDW2) before other "
            "foreground reads");
  r.boolean("priority.dma", false,
            "the controller's DMA engine moves the data of commands with a latency-critical workload attribute "
            "(CDW2) before other commands' (ssd.nvme.dma_engines transfers on the link at once)");
  r.rule(check_ftl_on_flash);
  r.rule(check_firmware_on_ftl);
  r.rule(check_lba_on_pages);
}

uint64_t Drive::write_buffer_bytes(const ScopedConfig& d) {
  if (uint64_t b = d.get_size("write_buffer.size")) return b;
  auto g = flash_geometry(d);
  return std::max<uint64_t>(uint64_t(1) << 20, 2 * g.total_planes() * g.page_size);
}

uint64_t Drive::stripe_pages(const ScopedConfig& d) {
  const auto g = ftl_geometry(d);
  return g.total_planes() * g.units_per_page;  // a page on every plane, in mapping units
}

uint64_t Drive::capacity_bytes(const Config& cfg, const std::string& scope) {
  ScopedConfig d(cfg, scope);
  uint64_t bytes = PageMappingFtl::logical_pages_for(d.sub("ftl"), flash_geometry(d)) * ftl_geometry(d).page_size;
  return bytes / d.get_size("nvme.lba_size") * d.get_size("nvme.lba_size");
}

Drive::Drive(sc_core::sc_module_name name, Services& svc, const pcie::LinkTiming& link, IFirmware* firmware,
             const std::string& scope)
    : sc_module(name),
      nvme("nvme", svc, link, scoped_key(scope, "nvme"), scoped_key(scope, "pci")),
      // the firmware routes pages as the FTL shards them
      fw("fw", svc, PageMappingFtl::shard_map_from(ScopedConfig(svc.cfg, scoped_key(scope, "ftl"))),
         scoped_key(scope, "fw")),
      // a line per mapping unit of the FTL
      cache("cache", svc, ftl_geometry(ScopedConfig(svc.cfg, scope)).page_size,
            write_buffer_bytes(ScopedConfig(svc.cfg, scope)), stripe_pages(ScopedConfig(svc.cfg, scope)),
            scoped_key(scope, "cache")),
      ftl("ftl", svc, flash_geometry(ScopedConfig(svc.cfg, scope)), scoped_key(scope, "ftl"),
          scoped_key(scope, "precondition")),
      dram("dram_ssd", svc, scoped_key(scope, "dram")),
      plp("plp", svc, scoped_key(scope, "plp")),
      flash("flash", svc, scoped_key(scope, "flash"), ftl_geometry(ScopedConfig(svc.cfg, scope)).units_per_page),
      image(ScopedConfig(svc.cfg, scope), ftl, capacity_bytes(svc.cfg, scope)),
      scope_(scope),
      lba_size_(static_cast<uint32_t>(ScopedConfig(svc.cfg, scope).get_size("nvme.lba_size"))),
      power_loss_at_(ScopedConfig(svc.cfg, scope).get_time("power_loss_at")),
      power_loss_in_recovery_(ScopedConfig(svc.cfg, scope).get_bool("power_loss_in_recovery")) {
  StatGroup(svc.stats, scope).section("image", "the image file: pages loaded at the start and saved at the end, and the wall time of each", [this] {
    return image.enabled() ? image.summary() : nlohmann::json();
  });
  flash.set_latency_first(ScopedConfig(svc.cfg, scope).get_bool("priority.flash"));
  fw.set_latency_first(ScopedConfig(svc.cfg, scope).get_bool("priority.firmware"));
  nvme.set_latency_first_dma(ScopedConfig(svc.cfg, scope).get_bool("priority.dma"));
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
  auto key = [&](const char* rel) { return scoped_key(scope, rel); };
  nvme.dram.bind(dram.target);
  nvme.set_staging_base(dram.reserve(nvme.staging_bytes(), "nvme data staging", {key("nvme.max_outstanding"), key("nvme.mdts")}));
  ftl.dram.bind(dram.target);
  ftl.set_map_base(dram.reserve(ftl.map_dram_bytes(), "ftl mapping table", {key("ftl.map_cache")}));
  cache.dram.bind(dram.target);
  cache.set_base(dram.reserve(cache.dram_bytes(), "the cache", {key("cache.size")}));
  if (uint64_t b = cache.write_buffer_dram_bytes()) dram.reserve(b, "the write buffer", {key("write_buffer.size")});
}

void Drive::on_persisted(std::function<void(uint64_t, const uint8_t*, uint32_t)> fn) {
  cache.on_persisted.subscribe([fn = std::move(fn), page = ftl.page_size()](uint64_t lpn, const uint8_t* data) {
    fn(lpn * page, data, page);
  });
}

Drive::PowerLoss Drive::lose_power(const std::function<void()>& host_gone) {
  PowerLoss r;
  nlohmann::json& j = r.report;
  j["at_s"] = double(now_ps()) / 1e12;
  if (host_gone) host_gone();
  if (plp.enabled()) {
    plp.power_fail();
    while (!plp.done() && sc_core::sc_get_status() != sc_core::SC_STOPPED)
      Calendar::get().run_for(plp.deadline() - now_ps());
    r.lost_pages = plp.cut();
    j["plp"] = plp.summary();
  }
  const PageMappingFtl::InFlight f = ftl.in_flight();
  j["during"] = {{"gc_jobs", f.gc_jobs}, {"checkpoint", f.checkpoint}, {"host_programs", f.host_programs}};
  ftl.power_loss();
  auto wall0 = std::chrono::steady_clock::now();
  ftl.recover();
  if (power_loss_in_recovery_) {
    // The rebuild writes nothing to flash before it ends, so a second cut
    // during it loses only its DRAM state, at most all of it: cut there,
    // then boot again.
    ftl.power_loss();
    ftl.recover();
  }
  j["rebuild_wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

bool Drive::PowerLoss::undrained(uint64_t lba, uint32_t lba_size, uint32_t page) const {
  auto first = std::lower_bound(lost_pages.begin(), lost_pages.end(), lba * lba_size / page);
  return first != lost_pages.end() && *first < (lba + 1) * lba_size / page;
}

void Drive::read_lba(uint64_t lba, uint8_t* buf) {
  const uint32_t page = ftl.page_size();
  for (uint64_t off = 0; off < lba_size_; off += page) ftl.debug_read((lba * lba_size_ + off) / page, buf + off);
}

uint64_t Drive::events() const {
  return nvme.events() + fw.events() + cache.events() + flash.events() + dram.events();
}

}  // namespace vp::ssd
