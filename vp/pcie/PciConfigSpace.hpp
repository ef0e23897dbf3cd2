// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The PCI configuration space of the NVMe SSD's endpoint function, as the
// host's PCI core sees it: a type 0 header (class 01:08:02, one 64-bit memory
// BAR in BAR0/BAR1, INTA) and the capabilities PCI Power Management, MSI,
// MSI-X (table and PBA in BAR0) and PCI Express. MSI and MSI-X can each be
// left out (PciFunctionShape::msi/msix): their bytes then read 0, are not
// writable and the chain skips them, so the host can only use what remains. A plain object: the device
// that owns it forwards configuration reads and writes to read()/write() and
// asks it what the host enabled (memory decode, bus mastering, interrupts).
//
// Every byte has a write mask, so read-only bits keep their value under any
// write and BAR sizing falls out of it (address bits below the BAR size are
// not writable). A few fields need more than a mask: unsupported power states
// and Multiple Message Enable / Max_Payload_Size / Max_Read_Request_Size
// values beyond what is supported are ignored or clamped, and Initiate FLR
// resets the function.
//
// Accesses: 1, 2 or 4 bytes at an offset aligned to their size, as a
// configuration request carries them (one dword and byte enables). Anything
// else, and anything at or beyond 4 KiB, is treated as the root complex
// treats an unsupported request: reads return all ones, writes are dropped.
// The extended space (0x100..0xFFF) holds no capability: it reads 0.
#include <cstdint>
#include <functional>
#include <vector>

#include "vp/core/Hook.hpp"
#include "vp/core/Config.hpp"
#include "vp/core/ParamScope.hpp"

namespace vp::pcie {

// Who the function says it is (read-only header fields).
struct PciIdentity {
  uint16_t vendor_id = 0x1b36, device_id = 0x0010;  // QEMU's NVMe ids: guests bind the nvme driver by class anyway
  uint8_t revision = 2;
  uint16_t subsystem_vendor_id = 0x1af4, subsystem_id = 0x1100;
  uint32_t class_code = 0x010802;  // base class, subclass, programming interface: NVM Express
};

// What the function implements, fixed by the hardware.
struct PciFunctionShape {
  uint64_t bar0_size = 16 * 1024;  // power of two, >= 16 B (BAR0+BAR1 form one 64-bit BAR)
  unsigned msi_vectors = 32;       // power of two, 1..32 (Multiple Message Capable)
  unsigned msix_vectors = 32;      // 1..2048 (Table Size + 1)
  uint32_t msix_table_offset = 0x2000, msix_pba_offset = 0x3000;  // in BAR0, 8-byte aligned
  unsigned max_payload_supported = 256;  // bytes, power of two, 128..4096
  unsigned link_speed = 3;               // 1..5: 2.5, 5, 8, 16, 32 GT/s
  unsigned link_width = 4;               // 1, 2, 4, 8, 12, 16 or 32 lanes
  bool msi = true, msix = true;  // implement these capabilities (without both, only INTx remains)
  bool flr_capable = false;  // advertise Function Level Reset (the device must then honour Change::FunctionLevelReset)
};

class PciConfigSpace {
 public:
  static constexpr uint32_t kSize = 4096;
  // Where the capabilities sit (dword aligned, chained in this order; an
  // absent one keeps its place empty so the others never move).
  static constexpr uint32_t kPmCap = 0x40, kMsiCap = 0x50, kMsixCap = 0x70, kPcieCap = 0x80;

  // Parameters in the function's scope (the SSD's: ssd.pci): identity, MSI
  // vectors, which interrupt capabilities exist.
  // `defaults`: the ids a device ships with (the NVMe controller's by default).
  static void declare_params(const ParamScope& r, const PciIdentity& defaults = {});
  // The configured ids over `base` (which gives the class code).
  static PciIdentity identity_from(const ScopedConfig& c, PciIdentity base = {});
  // The configured part of the shape (msi_vectors, msi, msix) laid over `base`.
  static PciFunctionShape shape_from(const ScopedConfig& c, PciFunctionShape base = {});

  // Throws std::invalid_argument for a shape no hardware could have.
  explicit PciConfigSpace(const PciIdentity& id = {}, const PciFunctionShape& shape = {});

  static bool access_ok(uint32_t offset, unsigned size);
  uint32_t read(uint32_t offset, unsigned size) const;
  void write(uint32_t offset, uint32_t value, unsigned size);

  // A configuration write changed something the device acts on. Called after
  // the write took effect, only when the value really changed (FLR: after the
  // configuration space was reset; the device resets its own state).
  enum class Change { Command, Msi, MsiX, PowerState, FunctionLevelReset };
  void on_change(std::function<void(Change)> hook) { hook_.subscribe(std::move(hook)); }

  // Conventional reset: everything to power-on values. Function level reset:
  // the same except the link-related fields the PCIe spec keeps
  // (Max_Payload_Size and Link Control).
  enum class Reset { Conventional, FunctionLevel };
  void reset(Reset kind = Reset::Conventional);

  // What the host programmed.
  uint64_t bar0_address() const;
  uint64_t bar0_size() const { return shape_.bar0_size; }
  bool memory_enabled() const { return command() & kCmdMemory; }  // (a function in D3hot decodes nothing either)
  bool bus_master() const { return command() & kCmdMaster; }
  bool intx_disabled() const { return command() & kCmdIntxDisable; }
  unsigned power_state() const { return cfg_[kPmCap + 4] & 3; }  // 0 = D0, 3 = D3hot
  unsigned max_payload() const { return 128u << ((get16(kPcieCap + 8) >> 5) & 7); }        // bytes
  unsigned max_read_request() const { return 128u << ((get16(kPcieCap + 8) >> 12) & 7); }  // bytes

  // INTx: the device sets the level of its interrupt; Interrupt Status shows it,
  // the wire carries it unless Interrupt Disable is set.
  void set_intx_status(bool level);
  bool intx_status() const { return cfg_[0x06] & 0x08; }
  bool intx_asserted() const { return intx_status() && !intx_disabled(); }

  bool msi_enabled() const { return cfg_[kMsiCap + 2] & 1; }
  uint64_t msi_address() const { return uint64_t(get32(kMsiCap + 8)) << 32 | get32(kMsiCap + 4); }
  uint16_t msi_data() const { return get16(kMsiCap + 12); }
  unsigned msi_enabled_vectors() const { return 1u << ((cfg_[kMsiCap + 2] >> 4) & 7); }
  bool msi_vector_masked(unsigned v) const;  // vectors beyond the capable count read as masked
  void set_msi_pending(unsigned v, bool pending);  // ignored beyond the capable count
  bool msi_pending(unsigned v) const;

  bool has_msi() const { return shape_.msi; }
  bool has_msix() const { return shape_.msix; }
  bool msix_enabled() const { return cfg_[kMsixCap + 3] & 0x80; }
  bool msix_function_masked() const { return cfg_[kMsixCap + 3] & 0x40; }
  unsigned msix_vectors() const { return shape_.msix_vectors; }
  uint32_t msix_table_offset() const { return shape_.msix_table_offset; }
  uint32_t msix_pba_offset() const { return shape_.msix_pba_offset; }

 private:
  static constexpr uint16_t kCmdMemory = 1 << 1, kCmdMaster = 1 << 2, kCmdIntxDisable = 1 << 10;

  void power_on();  // builds values and write masks
  void put8(uint32_t off, uint8_t v, uint8_t wmask = 0);
  void put16(uint32_t off, uint16_t v, uint16_t wmask = 0);
  void put32(uint32_t off, uint32_t v, uint32_t wmask = 0);
  void set16(uint32_t off, uint16_t v) {  // value only, write mask kept
    cfg_[off] = uint8_t(v);
    cfg_[off + 1] = uint8_t(v >> 8);
  }
  uint16_t get16(uint32_t off) const { return uint16_t(cfg_[off] | cfg_[off + 1] << 8); }
  uint32_t get32(uint32_t off) const { return uint32_t(get16(off)) | uint32_t(get16(off + 2)) << 16; }
  uint16_t command() const { return get16(0x04); }
  void notify(Change c) {
    if (hook_) hook_(c);
  }

  PciIdentity id_;
  PciFunctionShape shape_;
  std::vector<uint8_t> cfg_, wmask_;  // kSize bytes each
  Hook<Change> hook_;
};

}  // namespace vp::pcie
