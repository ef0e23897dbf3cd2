// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host's physical address map, laid out as PC firmware does: DRAM from
// 0 up to the PCI hole, the hole (the ECAM window, the BARs' MMIO window and
// the MSI/interrupt window, all below 4 GiB), and the rest of DRAM above
// 4 GiB. DRAM itself is one array of `dram_bytes`; an offset into it is not
// a physical address once the DRAM is larger than the memory below the hole.
#include <cstdint>

namespace vp::host {

class HostMemoryMap {
 public:
  // The PCI hole: from the ECAM window (bus 0 of the SSD's function) to 4 GiB.
  static constexpr uint64_t kHoleBase = 0xB0000000ull, kHighBase = 1ull << 32;
  static constexpr uint64_t kPcieConfigBase = kHoleBase, kPcieMmioBase = 0xE0000000ull;

  // ECAM: each PCI function's 4 KiB configuration space at bus << 20 |
  // device << 15 | function << 12 in the window (PCIe base spec 7.2.2); the
  // SSD is bus 0 device 0 function 0, another endpoint takes its own slot.
  static constexpr uint64_t config_address(unsigned bus, unsigned device, unsigned function) {
    return kPcieConfigBase + (uint64_t(bus) << 20 | uint64_t(device & 0x1F) << 15 | uint64_t(function & 7) << 12);
  }

  explicit HostMemoryMap(uint64_t dram_bytes)
      : low_(dram_bytes < kHoleBase ? dram_bytes : kHoleBase), high_(dram_bytes - low_) {}

  uint64_t dram_bytes() const { return low_ + high_; }
  uint64_t low_bytes() const { return low_; }    // DRAM at [0, low)
  uint64_t high_bytes() const { return high_; }  // DRAM at [4 GiB, 4 GiB + high)
  uint64_t phys_of(uint64_t offset) const { return offset < low_ ? offset : offset - low_ + kHighBase; }
  // The DRAM offset of physical address `phys` (which must be DRAM).
  uint64_t offset_of(uint64_t phys) const { return phys < kHighBase ? phys : phys - kHighBase + low_; }
  bool is_dram(uint64_t phys, uint64_t bytes) const {
    if (phys < kHighBase) return phys + bytes <= low_;
    return phys - kHighBase + bytes <= high_;
  }
  // The largest buffer one region can hold (a buffer never spans the hole).
  uint64_t largest_region() const { return low_ > high_ ? low_ : high_; }

 private:
  uint64_t low_, high_;
};

}  // namespace vp::host
