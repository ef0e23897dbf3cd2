#pragma once
// A PCIe link between the root complex and one endpoint. Each direction is a
// serial pipe of the configured generation and width: a transfer is cut into
// TLPs of at most max_payload bytes, each paying the per-TLP overhead.
// A write (posted) crosses once; a read sends request headers one way and
// the completion with data back the other way.
// Sharing a direction: bulk transfers and the device's posted writes keep
// their order (first come first served; PCIe keeps posted writes in order, so
// a completion entry follows its data). Read requests, completions of at most
// 64 bytes (command fetches, PRP entries) and small MMIO writes slip between
// the TLPs of bulk transfers, as a DMA engine interleaves them, and delay the
// bulk traffic queued behind by their own wire time.
//   down_in  -> down_out : MMIO from the host to the endpoint's BARs
//   up_in    -> up_out   : DMA and MSI-X from the endpoint to host memory
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Services.hpp"

namespace vp::pcie {

struct LinkTiming {
  double bytes_per_s = 0;  // per direction, after line encoding
  uint32_t max_payload = 256, max_read_request = 512, tlp_overhead = 24;
  Tick latency = 0;
  // Wire time of `payload` bytes sent as TLPs (a payload of 0 is one header-only TLP).
  Tick serialize(uint64_t payload, uint32_t chunk) const;
};

class PcieLink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PcieLink> down_in, up_in;
  tlm_utils::simple_initiator_socket<PcieLink> down_out, up_out;

  static void declare_params(ParamRegistry& reg);
  static LinkTiming timing_from(const Config& cfg);
  PcieLink(sc_core::sc_module_name name, Services& svc);
  const LinkTiming& timing() const { return t_; }

 private:
  struct Direction {
    FcfsResource ordered, small;
    Counter* bytes;
  };
  // `writes_ordered`: small posted writes keep their place behind bulk ones
  // (a completion entry must not overtake the data it reports).
  void transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, Direction& fwd, Direction& back,
                 tlm_utils::simple_initiator_socket<PcieLink>& out, bool writes_ordered);
  void b_down(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    transport(gp, delay, down_, up_, down_out, false);
  }
  void b_up(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) { transport(gp, delay, up_, down_, up_out, true); }
  Tick cross(Direction& d, Tick ready, uint64_t payload, uint32_t chunk, bool may_pass);

  LinkTiming t_;
  Direction down_, up_;
};

}  // namespace vp::pcie
