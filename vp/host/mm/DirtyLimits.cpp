// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/mm/DirtyLimits.hpp"

#include <algorithm>
#include <cmath>

namespace vp::host {

namespace {
constexpr uint64_t kPage = 4096;
constexpr uint64_t kDmaBytes = 16ull << 20;
constexpr uint64_t kReserveRatio = 256;  // sysctl_lowmem_reserve_ratio of DMA and DMA32
constexpr uint64_t kScaleFactor = 10;    // watermark_scale_factor, parts of 10,000

uint64_t isqrt(uint64_t v) {
  auto r = static_cast<uint64_t>(std::sqrt(double(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}
}  // namespace

uint64_t DirtyLimits::reserve_pages(uint64_t low_bytes, uint64_t high_bytes) {
  uint64_t dma = std::min(low_bytes, kDmaBytes) / kPage;
  uint64_t zones[3] = {dma, low_bytes / kPage - dma, high_bytes / kPage};
  uint64_t total = zones[0] + zones[1] + zones[2];
  if (total == 0) return 0;
  uint64_t min_kib = std::clamp<uint64_t>(isqrt(total * (kPage / 1024) * 16), 128, 65536);
  uint64_t min_pages = min_kib / (kPage / 1024);
  uint64_t reserve = 0;
  for (int z = 0; z < 3; ++z) {
    if (zones[z] == 0) continue;
    uint64_t wmin = min_pages * zones[z] / total;
    uint64_t step = std::max(wmin / 4, zones[z] * kScaleFactor / 10000);
    uint64_t high = wmin + 2 * step;
    // What the zones above it may not take from it.
    uint64_t above = 0;
    for (int a = z + 1; a < 3; ++a) above += zones[a];
    uint64_t lowmem = z < 2 ? above / kReserveRatio : 0;
    reserve += std::min(zones[z], high + lowmem);
  }
  return reserve;
}

DirtyLimits::DirtyLimits(uint64_t dirtyable, unsigned background_ratio, unsigned ratio) {
  uint64_t r = ratio * kPage / 100, bg_r = background_ratio * kPage / 100;
  hard_ = std::max<uint64_t>(1, r * dirtyable / kPage);
  bg_ = bg_r * dirtyable / kPage;
  if (bg_ >= hard_) bg_ = hard_ / 2;
}

}  // namespace vp::host
