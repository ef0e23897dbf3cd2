// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The SSD as one PCIe endpoint: NVMe controller, firmware, DRAM cache layer,
// FTL, SSD DRAM, power-loss protection and flash, wired inside. A platform attaches it with its configuration, BAR0 and
// DMA sockets and tells it where INTx messages go; the server platform, the
// QEMU platform and drive-only uses instantiate this one module.
#include <cstdint>
#include <systemc>

#include "vp/core/Param.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/flash/FlashArray.hpp"
#include "vp/ssd/cache/CacheLayer.hpp"
#include "vp/ssd/firmware/Firmware.hpp"
#include "vp/ssd/nvme/NvmeController.hpp"
#include "vp/ssd/ftl/PageMappingFtl.hpp"
#include "vp/ssd/PowerLossProtection.hpp"
#include "vp/ssd/SsdDram.hpp"

namespace vp::ssd {

class Drive : public sc_core::sc_module {
 public:
  static constexpr const char* kScope = "ssd";
  // Every parameter of the drive's components, each in its own scope under
  // the drive's ("ssd.nvme", "ssd.flash", ...), and the rules joining them.
  static void declare_params(const ParamScope& reg);
  // Logical capacity the drive in `scope` will expose, from the configuration alone.
  static uint64_t capacity_bytes(const Config& cfg, const std::string& scope = kScope);
  // ssd.write_buffer.size, or from the geometry when 0 (the drive's scope).
  static uint64_t write_buffer_bytes(const ScopedConfig& drive);
  // One page for every plane of every die: a conventional buffer's bulk flush.
  static uint64_t stripe_pages(const ScopedConfig& drive);

  // `firmware`: what the controller talks to instead of the drive's own
  // (tests use firmware that reports other capabilities, e.g. a volatile
  // write cache); the drive's firmware, FTL and flash then sit idle.
  // `link`: what the link the platform attaches the drive to supports;
  // `scope`: where its components' keys and statistics are ("ssd").
  Drive(sc_core::sc_module_name name, Services& svc, const pcie::LinkTiming& link, IFirmware* firmware = nullptr,
        const std::string& scope = kScope);

  // The endpoint's sockets: configuration requests and MMIO in, DMA and
  // interrupt messages out.
  tlm_utils::simple_target_socket<pcie::PciFunction>& config() { return nvme.config; }
  tlm_utils::simple_target_socket<pcie::PciFunction>& bar0() { return nvme.bar0; }
  tlm_utils::simple_initiator_socket<pcie::PciFunction>& dma() { return nvme.dma; }
  // Where the function writes INTx assert/deassert messages.
  void set_intx_address(uint64_t a) { nvme.set_intx_address(a); }
  // Kernel events of the drive's event queues (the simulator's work).
  uint64_t events() const;

  NvmeController nvme;
  Firmware fw;
  CacheLayer cache;
  PageMappingFtl ftl;
  SsdDram dram;
  PowerLossProtection plp;
  flash::FlashArray flash;
};

}  // namespace vp::ssd
