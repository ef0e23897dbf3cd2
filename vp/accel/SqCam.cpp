// SPDX-License-Identifier: BSD-3-Clause
#include "vp/accel/SqCam.hpp"

namespace vp::accel {

SqCam::Hit SqCam::adjacent(bool write, uint64_t slba, uint32_t nlb, uint32_t oldest) const {
  const auto n = slots();
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t s = (oldest + i) % n;
    const Entry& e = e_[s];
    if (!e.valid || e.write != write) continue;
    if (e.slba + e.nlb == slba) return {static_cast<int>(s), false};
    if (slba + nlb == e.slba) return {static_cast<int>(s), true};
  }
  return {};
}

bool SqCam::overlaps(uint64_t slba, uint32_t nlb) const {
  for (const Entry& e : e_)
    if ((e.valid || e.busy) && slba < e.slba + e.nlb && e.slba < slba + nlb) return true;
  return false;
}

void SqCam::fetched(uint32_t from, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) e_[(from + i) % slots()].valid = false;
}

uint32_t SqCam::valid() const {
  uint32_t n = 0;
  for (const Entry& e : e_) n += e.valid;
  return n;
}

}  // namespace vp::accel
