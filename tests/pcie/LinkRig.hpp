// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A PCIe link alone on the bench: an initiator module with a host side
// (MMIO and configuration requests) and a device side (DMA), and three
// targets that record when each access reached them: host memory behind
// up_out, the endpoint's BAR behind down_out and its configuration space
// behind cfg_out. One rig per test case (one SystemC elaboration per process).
#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "tests/TestSupport.hpp"
#include "vp/core/Payload.hpp"
#include "vp/pcie/PcieLink.hpp"

namespace vp::test {

// Records arrival times; serves reads and writes below 4 KiB from a register
// file (bulk transfers beyond it only take time).
struct RecordingTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<RecordingTarget> socket;
  std::vector<Tick> arrivals;
  Tick own_delay = 0;  // added to each access, as a device's own response time
  std::array<uint8_t, 4096> regs{};

  explicit RecordingTarget(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &RecordingTarget::access);
  }
  void access(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    arrivals.push_back(now_ps() + delay.value());
    uint64_t a = gp.get_address();
    unsigned len = gp.get_data_length();
    if (a + len <= regs.size()) {
      if (gp.is_write())
        std::memcpy(regs.data() + a, gp.get_data_ptr(), len);
      else
        std::memcpy(gp.get_data_ptr(), regs.data() + a, len);
    }
    delay += to_sc(own_delay);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct LinkInitiator;
using InitSocket = tlm_utils::simple_initiator_socket<LinkInitiator>;

struct LinkInitiator : sc_core::sc_module {
  InitSocket host, device, cfg;
  std::vector<uint8_t> buf = std::vector<uint8_t>(128 << 10);  // the largest transfer the tests make
  tlm::tlm_generic_payload gp;

  explicit LinkInitiator(sc_core::sc_module_name n) : sc_module(n), host("host"), device("device"), cfg("cfg") {}
  // Issues one access now, without waiting; returns when it completes as
  // the initiator sees it (the annotated time).
  Tick access(InitSocket& s, tlm::tlm_command cmd, uint64_t addr, unsigned len, uint8_t* data = nullptr) {
    prepare(gp, cmd, addr, data ? data : buf.data(), len);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    s->b_transport(gp, delay);
    return now_ps() + delay.value();
  }
  tlm::tlm_response_status status() const { return gp.get_response_status(); }
};

// A link with every socket bound to recording targets, and its initiator,
// for a bench with more than one link.
struct BoundLink {
  pcie::PcieLink link;
  RecordingTarget host_mem, bar, cfg_space;
  LinkInitiator init;
  BoundLink(const std::string& name, Services& svc, const std::string& scope)
      : link((name + "_link").c_str(), svc, scope),
        host_mem((name + "_host_mem").c_str()),
        bar((name + "_bar").c_str()),
        cfg_space((name + "_cfg").c_str()),
        init((name + "_init").c_str()) {
    init.host.bind(link.down_in);
    init.device.bind(link.up_in);
    init.cfg.bind(link.cfg_in);
    link.down_out.bind(bar.socket);
    link.up_out.bind(host_mem.socket);
    link.cfg_out.bind(cfg_space.socket);
  }
  // `len` bytes at address 0 on `s` (init.host, init.device or init.cfg).
  Tick write(InitSocket& s, unsigned len) { return init.access(s, tlm::TLM_WRITE_COMMAND, 0, len); }
  Tick read(InitSocket& s, unsigned len) { return init.access(s, tlm::TLM_READ_COMMAND, 0, len); }
};

inline bool open_waves(Waves& w, const std::string& vcd_base) {
  if (!vcd_base.empty()) w.open(vcd_base);
  return w.enabled();
}

class LinkRig {
 public:
  // `vcd_base`: write a waveform there; `bind_cfg`: give the link an
  // endpoint configuration space.
  explicit LinkRig(const Sets& sets, bool bind_cfg = true, const std::string& vcd_base = "")
      : cfg(model_config("", {}, sets)),
        svc{cfg, stats, waves, tracker, 1},
        traced(open_waves(waves, vcd_base)),
        link("pcie", svc, "pcie"),
        host_mem("host_mem"),
        bar("bar"),
        init("init") {
    init.host.bind(link.down_in);
    init.device.bind(link.up_in);
    init.cfg.bind(link.cfg_in);
    link.down_out.bind(bar.socket);
    link.up_out.bind(host_mem.socket);
    if (bind_cfg) {
      cfg_space = std::make_unique<RecordingTarget>("cfg_space");
      link.cfg_out.bind(cfg_space->socket);
    }
  }
  // Runs `body` in a SystemC thread, then the simulation to its end.
  void run(std::function<void()> body) {
    sc_core::sc_spawn([body] { body(); });
    sc_core::sc_start();
    waves.close();
  }

  Config cfg;
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  Services svc;
  bool traced;
  pcie::PcieLink link;
  RecordingTarget host_mem, bar;
  LinkInitiator init;
  std::unique_ptr<RecordingTarget> cfg_space;  // when bound
};

}  // namespace vp::test
