// SPDX-License-Identifier: BSD-3-Clause
// Host DRAM lands a device's posted write at its arrival: seen by whoever
// looks from then on, never before; with no core spinning on memory it
// takes no event, and a core that starts spinning is woken at each landing.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <catch2/catch.hpp>
#include <cstring>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "tests/ModelRig.hpp"
#include "vp/host/hw/HostDram.hpp"

namespace {
using namespace vp;

struct Device : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Device> socket;
  explicit Device(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}
  void access(tlm::tlm_command cmd, uint64_t addr, uint32_t& word, Tick delay) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&word));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    sc_core::sc_time d = to_sc(delay);
    socket->b_transport(gp, d);
    REQUIRE(gp.is_response_ok());
  }
  void post(uint64_t addr, uint32_t v, Tick delay) { access(tlm::TLM_WRITE_COMMAND, addr, v, delay); }
  uint32_t read(uint64_t addr) {
    uint32_t v = 0;
    access(tlm::TLM_READ_COMMAND, addr, v, 0);
    return v;
  }
};

uint32_t word_at(host::HostDram& dram, uint64_t addr) {
  uint32_t v;
  std::memcpy(&v, dram.data() + addr, 4);
  return v;
}

constexpr Tick ns = 1000;
}  // namespace

TEST_CASE("a posted write is in host memory from its arrival on in arrival order with no event",
          "[host][dram]") {
  test::ModelServices m(test::model_config("", {{"host.dram.size", "16MiB"}}, {}));
  host::HostDram dram("dram", m.svc);
  Device dev("dev");
  dev.socket.bind(dram.socket);
  std::vector<uint32_t> seen;
  sc_core::sc_spawn([&] {
    dev.post(0x1000, 0x11111111, 100 * ns);  // sent first, arrives last
    dev.post(0x1000, 0x22222222, 50 * ns);
    dev.post(0x2000, 0x33333333, 0);  // no delay: there at once
    seen.push_back(word_at(dram, 0x1000));  // 0 ns
    seen.push_back(word_at(dram, 0x2000));
    sc_core::wait(to_sc(50 * ns - 1));
    seen.push_back(word_at(dram, 0x1000));  // 1 ps before the first arrival
    sc_core::wait(to_sc(1));
    seen.push_back(word_at(dram, 0x1000));  // 50 ns
    sc_core::wait(to_sc(49 * ns));
    seen.push_back(dev.read(0x1000));  // 99 ns, through the socket
    sc_core::wait(to_sc(1 * ns));
    seen.push_back(dev.read(0x1000));  // 100 ns
  });
  sc_core::sc_start();
  CHECK(seen == std::vector<uint32_t>{0, 0x33333333, 0, 0x22222222, 0x22222222, 0x11111111});
  CHECK(dram.events() == 0);
}

TEST_CASE("a core that starts spinning on host memory is woken as each write lands", "[host][dram]") {
  test::ModelServices m(test::model_config("", {{"host.dram.size", "16MiB"}}, {}));
  host::HostDram dram("dram", m.svc);
  Device dev("dev");
  dev.socket.bind(dram.socket);
  std::vector<std::pair<Tick, uint32_t>> woke;
  sc_core::sc_spawn([&] {
    dev.post(0x1000, 0xAAAAAAAA, 30 * ns);  // due before the core spins: lands when it starts
    dev.post(0x1000, 0xBBBBBBBB, 70 * ns);  // on its way when it starts: an event at 70 ns
    sc_core::wait(to_sc(40 * ns));
    const sc_core::sc_event& landed = dram.notify_landings().kernel_event();
    CHECK(word_at(dram, 0x1000) == 0xAAAAAAAA);
    dev.post(0x2000, 0xCCCCCCCC, 20 * ns);  // sent while spinning: lands at 60 ns
    for (int i = 0; i < 2; ++i) {
      sc_core::wait(landed);
      woke.emplace_back(now_ps(), word_at(dram, i == 0 ? 0x2000 : 0x1000));
    }
  });
  sc_core::sc_start();
  CHECK(woke == std::vector<std::pair<Tick, uint32_t>>{{60 * ns, 0xCCCCCCCC}, {70 * ns, 0xBBBBBBBB}});
  CHECK(dram.events() == 2);
}
