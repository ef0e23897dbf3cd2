// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/firmware/FcmdStage.hpp"

namespace vp::ssd {

void FcmdStage::send(FirmwareThread& to, Tick cost, std::function<void(FirmwareThread&)> done) const {
  to.post(FwWork{cost + costs_.time(Message), {}, std::move(done)});
}

void FcmdStage::submit(flash::FlashTransaction& t) {
  const auto& fcmd = roles_.fcmd;
  if (fcmd.empty()) return flash_->submit(t);  // the layered task composed it
  FirmwareThread& f = *fcmd[size_t(t.addr.channel) * fcmd.size() / channels_];
  auto compose = [this, &t, &f](FirmwareThread&) {
    send(f, costs_.time(Compose), [this, &t](FirmwareThread&) { flash_->submit(t); });
  };
  if (t.use == flash::FlashUse::Host) return compose(f);
  const auto& bg = t.use == flash::FlashUse::Gc ? roles_.bgc : roles_.log;
  FwTask step = t.use == flash::FlashUse::Gc ? Gc : Journal;
  if (bg.empty())  // no thread of its own: FCMD pays the step too
    return send(f, costs_.time({{step, 1}, {Compose, 1}}), [this, &t](FirmwareThread&) { flash_->submit(t); });
  send(*bg.front(), costs_.time(step), compose);
}

}  // namespace vp::ssd
