// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The SSD as one PCIe endpoint: NVMe controller, firmware, DRAM cache layer,
// FTL, SSD DRAM, power-loss protection and flash, wired inside. A platform attaches it with its configuration, BAR0 and
// DMA sockets and tells it where INTx messages go; the server platform, the
// QEMU platform and drive-only uses instantiate this one module.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <systemc>
#include <vector>

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
#include "vp/ssd/SsdImage.hpp"

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

  uint32_t lba_size() const { return lba_size_; }
  // Where its keys and statistics are ("ssd", "ssd1").
  const std::string& scope() const { return scope_; }
  // When the drive's power fails (<drive>.power_loss_at; 0: never).
  Tick power_loss_at() const { return power_loss_at_; }
  // What the drive puts on flash, as it lands: `fn(byte, data, bytes)` with
  // the namespace offset of a mapping unit's data.
  void on_persisted(std::function<void(uint64_t byte, const uint8_t* data, uint32_t bytes)> fn);

  // The drive's power fails now. With power-loss protection it first
  // drains its buffers on hold-up power; then its power is cut, its FTL
  // boots again from flash alone (twice with <drive>.power_loss_in_recovery).
  // `host_gone` runs first: the host and the link lose power with it.
  struct PowerLoss {
    nlohmann::json report;              // summary.json's power_loss, less the host's verdict
    std::vector<uint64_t> lost_pages;   // logical pages the hold-up time did not save, sorted
    // Whether LBA `lba` holds a page the hold-up time did not save.
    bool undrained(uint64_t lba, uint32_t lba_size, uint32_t page) const;
  };
  PowerLoss lose_power(const std::function<void()>& host_gone);
  // One LBA as a host read would return it (debug access, no time).
  void read_lba(uint64_t lba, uint8_t* buf);

  NvmeController nvme;
  Firmware fw;
  CacheLayer cache;
  PageMappingFtl ftl;
  SsdDram dram;
  PowerLossProtection plp;
  flash::FlashArray flash;
  SsdImage image;  // <drive>.image

 private:
  std::string scope_;
  uint32_t lba_size_;
  Tick power_loss_at_;
  bool power_loss_in_recovery_;
};

}  // namespace vp::ssd
