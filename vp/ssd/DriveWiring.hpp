// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The inside of the drive as every platform wires it: firmware -> cache
// layer -> FTL -> the firmware's FCMD stage -> flash, and the regions of the SSD DRAM that the
// controller's staging, the FTL's map and the cache take (in that order).
// Power-loss protection drains the cache, which then holds no volatile
// data. The controller's firmware port is the platform's to bind.
#include "vp/flash/FlashArray.hpp"
#include "vp/ssd/CacheLayer.hpp"
#include "vp/ssd/Firmware.hpp"
#include "vp/ssd/NvmeController.hpp"
#include "vp/ssd/PageMappingFtl.hpp"
#include "vp/ssd/PowerLossProtection.hpp"
#include "vp/ssd/SsdDram.hpp"

namespace vp::ssd {

inline void wire_drive(NvmeController& nvme, Firmware& fw, CacheLayer& cache, PageMappingFtl& ftl,
                       flash::FlashArray& flash, SsdDram& dram, PowerLossProtection& plp) {
  plp.buffers.bind(cache.power);
  cache.set_power_protected(plp.enabled());
  fw.ftl.bind(cache.target);
  cache.ftl.bind(ftl.target);
  ftl.flash.bind(fw.fcmd);
  fw.flash.bind(flash.target);
  nvme.dram.bind(dram.target);
  nvme.set_staging_base(dram.reserve(nvme.staging_bytes(), "nvme data staging", {"ssd.nvme.max_inflight", "ssd.nvme.mdts"}));
  ftl.dram.bind(dram.target);
  ftl.set_map_base(dram.reserve(ftl.map_dram_bytes(), "ftl mapping table", {"ssd.ftl.map_cache"}));
  cache.dram.bind(dram.target);
  cache.set_base(dram.reserve(cache.dram_bytes(), "the cache", {"ssd.cache.size"}));
}

}  // namespace vp::ssd
