// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// DMA-able host memory for every driver and the page cache, handed out like
// early boot memory: a bump allocator over host DRAM (HostMemoryMap), below
// the PCI hole while a buffer fits, else above 4 GiB (a buffer never spans
// the hole). The same allocator, run dry, is how a configuration is checked
// for fitting in host.dram.size before the run: one placement rule, no
// formula beside it.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "vp/host/mm/HostMemoryMap.hpp"

namespace vp::host {

// Host DRAM is too small for what was asked; names what and how much.
struct HostMemoryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class HostMemoryAllocator {
 public:
  // The first `reserved_low` bytes are the firmware's and the kernel's
  // (real mode area, kernel image), as on a PC: nothing is placed there.
  static constexpr uint64_t kReservedLow = 1 << 20;

  explicit HostMemoryAllocator(const HostMemoryMap& map) : map_(map) {}

  // `bytes` at an `align`-aligned physical address; throws HostMemoryError.
  uint64_t alloc(const std::string& what, uint64_t bytes, uint64_t align = 4096);
  // `count` allocations of `bytes` each, as `count` calls would place them;
  // returns the first one's address (0 for none).
  uint64_t alloc_many(const std::string& what, uint64_t count, uint64_t bytes, uint64_t align = 4096);

  const HostMemoryMap& map() const { return map_; }
  // Bytes handed out, alignment padding included, below the hole and above 4 GiB.
  uint64_t used_low() const { return brk_ - kReservedLow; }
  uint64_t used_high() const { return brk_high_ > map_.low_bytes() ? brk_high_ - map_.low_bytes() : 0; }
  uint64_t allocations() const { return allocations_; }

 private:
  HostMemoryMap map_;
  uint64_t brk_ = kReservedLow, brk_high_ = 0;  // next free DRAM offset below the hole, above 4 GiB
  uint64_t allocations_ = 0;
};

}  // namespace vp::host
