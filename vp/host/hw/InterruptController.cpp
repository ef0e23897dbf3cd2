// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/hw/InterruptController.hpp"

#include <cstring>

namespace vp::host {

InterruptController::InterruptController(sc_core::sc_module_name name, Services& svc, const std::string& scope)
    : sc_module(name),
      socket("socket"),
      cpu("cpu"),
      eq_("eq"),
      delivered_(StatGroup(svc.stats, scope).counter("delivered", "interrupts", "interrupts delivered to cores (MSI/MSI-X messages and INTx)")),
      intx_asserts_(StatGroup(svc.stats, scope).counter("intx_asserts", "messages", "INTx assert messages received")) {
  socket.register_b_transport(this, &InterruptController::b_transport);
}

void InterruptController::deliver(unsigned core, uint32_t vector, Tick delay) {
  eq_.after(delay, [this, core, vector] {
    ++delivered_;
    cpu[core]->interrupt(vector);
  });
}

void InterruptController::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t off = gp.get_address();
  bool word_write = gp.is_write() && gp.get_data_length() == 4;
  if (off == intx_address() - kBase && word_write) {
    uint32_t level;
    std::memcpy(&level, gp.get_data_ptr(), 4);
    bool rising = level && !intx_level_;
    if (rising) ++intx_asserts_;
    intx_level_ = level != 0;
    if (rising) deliver(intx_core_, kIntxVector, delay.value());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (off == eoi_address() - kBase && word_write) {
    // Level-triggered: a line still high when the handler is done fires again
    // (entries that arrived after the handler read the queues).
    eq_.after(delay.value(), [this] {
      if (intx_level_) deliver(intx_core_, kIntxVector, 0);
    });
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (off == intx_route_address() - kBase && word_write) {
    uint32_t core;
    std::memcpy(&core, gp.get_data_ptr(), 4);
    if (core >= static_cast<unsigned>(cpu.size())) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    intx_core_ = core;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  unsigned core = static_cast<unsigned>(off >> 12);
  if (!word_write || core >= static_cast<unsigned>(cpu.size())) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint32_t vector;
  std::memcpy(&vector, gp.get_data_ptr(), 4);
  deliver(core, vector, delay.value());
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace vp::host
