// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Host main memory holding real bytes (data buffers, SQs, CQs, PRP lists).
// Backed by an anonymous mapping, so untouched memory costs nothing. Cores
// use it through DMI; devices reach it by b_transport through PCIe. A write
// that arrives later than it is sent (the annotated delay) lands in memory
// at its arrival, so a core polling a completion queue cannot see an entry
// before the entry could have got there. Until a core spins on memory
// (notify_landings), nothing is notified at a landing, so the writes wait
// in a queue by arrival and land when the host or a device next looks
// (land_due; every access through the socket, data()): the same bytes at
// the same instants as an event per landing, without the events.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <deque>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/host/driver/DeviceWrites.hpp"

namespace vp::host {

class HostDram : public sc_core::sc_module, public DeviceWrites {
 public:
  tlm_utils::simple_target_socket<HostDram> socket;

  static constexpr const char* kScope = "host.dram";
  static void declare_params(const ParamScope& p);
  HostDram(sc_core::sc_module_name name, Services& svc, const std::string& scope = kScope);
  ~HostDram() override;

  uint8_t* data() {
    land_due();
    return mem_;
  }
  uint64_t size() const { return size_; }
  uint64_t events() const { return eq_.fired(); }
  void land_due() override {
    Tick now = now_ps();
    while (!due_.empty() && due_.front().at <= now) land_next();
  }
  // What a core spinning on a completion queue entry sees as its cache line
  // changing, so a polling core can wait for this instead of re-reading
  // memory every cycle.
  const Event& notify_landings() override;

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  bool get_dmi(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  void land(uint32_t slot);
  void land_next();
  struct Landing {
    uint64_t addr;
    std::vector<uint8_t> bytes;
  };
  struct Due {  // a write on its way that no event lands
    Tick at;
    uint32_t slot;
  };
  uint8_t* mem_ = nullptr;
  uint64_t size_;
  Tick latency_;
  EventQueue eq_;
  std::vector<Landing> in_flight_;  // writes on their way, by slot
  std::vector<uint32_t> free_;
  // By arrival, then by sending order: writes come over one link in the
  // order sent, so a new one nearly always goes last.
  std::deque<Due> due_;
  bool notifying_ = false;
  Event written_;

};

}  // namespace vp::host
