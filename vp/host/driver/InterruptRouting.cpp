// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/driver/InterruptRouting.hpp"

#include <stdexcept>

namespace vp::host {

uint32_t InterruptRouting::allocate(uint32_t count, uint32_t align, IrqHandler& handler, const std::string& owner) {
  if (count == 0 || align == 0 || (align & (align - 1)))
    throw std::logic_error(owner + ": interrupt vectors need a count and a power-of-two alignment");
  uint32_t base = (next_ + align - 1) / align * align;
  if (uint64_t(base) + count > kIntxVector) throw std::logic_error(owner + ": out of interrupt vectors");
  blocks_.push_back({base, count, &handler, owner});
  next_ = base + count;
  return base;
}

void InterruptRouting::share_intx(IrqHandler& handler, const std::string& owner) {
  intx_.push_back({kIntxVector, 1, &handler, owner});
}

void InterruptRouting::dispatch(uint32_t vector, std::vector<IoRequest*>& done) {
  if (vector == kIntxVector) {
    for (const Block& b : intx_) b.handler->handle_irq(0, done);
    if (intx_.empty()) ++spurious_;
    return;
  }
  for (const Block& b : blocks_)
    if (vector - b.base < b.count) {
      b.handler->handle_irq(vector - b.base, done);
      return;
    }
  ++spurious_;
}

std::string InterruptRouting::owner_of(uint32_t vector) const {
  if (vector == kIntxVector) {
    std::string s;
    for (const Block& b : intx_) s += (s.empty() ? "" : ", ") + b.owner;
    return s;
  }
  for (const Block& b : blocks_)
    if (vector - b.base < b.count) return b.owner;
  return "";
}

}  // namespace vp::host
