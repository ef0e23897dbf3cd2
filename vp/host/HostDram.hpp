#pragma once
// Host main memory holding real bytes (data buffers, SQs, CQs, PRP lists).
// Backed by an anonymous mapping, so untouched memory costs nothing. Cores
// use it through DMI; devices reach it by b_transport through PCIe.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "vp/core/Services.hpp"

namespace vp::host {

class HostDram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<HostDram> socket;

  static void declare_params(ParamRegistry& reg);
  HostDram(sc_core::sc_module_name name, Services& svc);
  ~HostDram() override;

  uint8_t* data() { return mem_; }
  uint64_t size() const { return size_; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  bool get_dmi(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  uint8_t* mem_ = nullptr;
  uint64_t size_;
  Tick latency_;
};

}  // namespace vp::host
