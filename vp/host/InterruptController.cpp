#include "vp/host/InterruptController.hpp"

#include <cstring>

namespace vp::host {

InterruptController::InterruptController(sc_core::sc_module_name name, Services& svc)
    : sc_module(name),
      socket("socket"),
      cpu("cpu"),
      eq_("eq"),
      delivered_(svc.stats.counter("host.irq.delivered", "interrupts", "MSI interrupts delivered to cores")),
      intx_asserts_(svc.stats.counter("host.irq.intx_asserts", "messages", "INTx assert messages received")) {
  socket.register_b_transport(this, &InterruptController::b_transport);
}

void InterruptController::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t off = gp.get_address();
  if (off == intx_address() - kBase && gp.is_write() && gp.get_data_length() == 4) {
    uint32_t level;
    std::memcpy(&level, gp.get_data_ptr(), 4);
    if (level && !intx_level_) ++intx_asserts_;
    intx_level_ = level != 0;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  unsigned core = static_cast<unsigned>(off >> 12);
  if (!gp.is_write() || gp.get_data_length() != 4 || core >= static_cast<unsigned>(cpu.size())) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint32_t vector;
  std::memcpy(&vector, gp.get_data_ptr(), 4);
  eq_.after(delay.value(), [this, core, vector] {
    ++delivered_;
    cpu[core]->interrupt(vector);
  });
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace vp::host
