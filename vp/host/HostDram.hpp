// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Host main memory holding real bytes (data buffers, SQs, CQs, PRP lists).
// Backed by an anonymous mapping, so untouched memory costs nothing. Cores
// use it through DMI; devices reach it by b_transport through PCIe. A write
// that arrives later than it is sent (the annotated delay) lands in memory
// at its arrival, so a core polling a completion queue cannot see an entry
// before the entry could have got there.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"

namespace vp::host {

class HostDram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<HostDram> socket;

  static constexpr const char* kScope = "host.dram";
  static void declare_params(const ParamScope& p);
  HostDram(sc_core::sc_module_name name, Services& svc, const std::string& scope = kScope);
  ~HostDram() override;

  uint8_t* data() { return mem_; }
  uint64_t size() const { return size_; }
  uint64_t events() const { return eq_.fired(); }
  // Notified (next delta) whenever a device write lands: what a core spinning
  // on a completion queue entry would see as its cache line changing, so a
  // polling core can wait for this instead of re-reading memory every cycle.
  const sc_core::sc_event& written() const { return written_; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  bool get_dmi(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  void land(uint32_t slot);
  struct Landing {
    uint64_t addr;
    std::vector<uint8_t> bytes;
  };
  uint8_t* mem_ = nullptr;
  uint64_t size_;
  Tick latency_;
  EventQueue eq_;
  std::vector<Landing> in_flight_;  // writes on their way, by slot
  std::vector<uint32_t> free_;
  sc_core::sc_event written_;

};

}  // namespace vp::host
