// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/mm/HostMemoryAllocator.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "vp/core/Units.hpp"

namespace vp::host {

namespace {
uint64_t round_up(uint64_t a, uint64_t align) { return (a + align - 1) / align * align; }
}  // namespace

uint64_t HostMemoryAllocator::alloc(const std::string& what, uint64_t bytes, uint64_t align) {
  return alloc_many(what, 1, bytes, align);
}

uint64_t HostMemoryAllocator::alloc_many(const std::string& what, uint64_t count, uint64_t bytes, uint64_t align) {
  if (count == 0) return 0;
  const uint64_t stride = round_up(bytes, align);  // after the first, each starts `stride` after the last
  // Low memory first, as many as fit, then the rest above 4 GiB.
  uint64_t first = round_up(brk_, align), low_fit = 0;
  if (first + bytes <= map_.low_bytes()) low_fit = std::min(count, 1 + (map_.low_bytes() - first - bytes) / stride);
  uint64_t addr = low_fit ? map_.phys_of(first) : 0, brk = low_fit ? first + (low_fit - 1) * stride + bytes : brk_;
  uint64_t rest = count - low_fit, brk_high = brk_high_;
  if (rest) {  // nothing changes unless all of them fit
    uint64_t hi = round_up(std::max(brk_high_, map_.low_bytes()), align);
    if (hi + (rest - 1) * stride + bytes > map_.dram_bytes())
      throw HostMemoryError(fmt::format(
          "host memory: {} of {} for {} fit neither below the PCI hole at {:#x} ({} free) nor above 4 GiB ({} free)",
          rest == 1 ? std::string("an allocation") : fmt::format("{} allocations", rest), format_size(bytes), what,
          HostMemoryMap::kHoleBase, format_size(map_.low_bytes() - std::min(map_.low_bytes(), brk_)),
          format_size(map_.dram_bytes() - std::max(brk_high_, map_.low_bytes()))));
    if (!low_fit) addr = map_.phys_of(hi);
    brk_high = hi + (rest - 1) * stride + bytes;
  }
  brk_ = brk;
  brk_high_ = brk_high;
  allocations_ += count;
  return addr;
}

}  // namespace vp::host
