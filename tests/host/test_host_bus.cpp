// SPDX-License-Identifier: BSD-3-Clause
// The host bus routes by the address a target was mapped at, whatever the
// order targets were attached in, and refuses overlapping ranges.
#include <catch2/catch.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "vp/host/hw/HostBus.hpp"

namespace {
struct Target : sc_core::sc_module {
  tlm_utils::simple_target_socket<Target> socket;
  std::vector<uint64_t> seen;  // addresses as the target saw them
  explicit Target(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &Target::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    seen.push_back(gp.get_address());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Cpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Cpu> socket;
  explicit Cpu(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}
  tlm::tlm_response_status access(uint64_t addr) {
    uint32_t word = 0;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&word));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    socket->b_transport(gp, d);
    return gp.get_response_status();
  }
};
}  // namespace

TEST_CASE("the host bus routes by mapped address whatever the attach order and refuses overlaps", "[host][bus]") {
  vp::host::HostBus bus("bus");
  Cpu cpu("cpu");
  Target mmio("mmio"), dram("dram"), late("late");
  cpu.socket.bind(bus.in);
  // The device window first, DRAM second: ports follow attach order, routes do not.
  bus.map(mmio.socket, 0xE0000000, 0x4000, "bar0");
  bus.map_dram(dram.socket, vp::host::HostMemoryMap(6ull << 30));  // 6 GiB: 2.75 GiB low, 3.25 GiB from 4 GiB
  CHECK_THROWS_WITH(bus.map(late.socket, 0xE0003000, 0x2000, "bar1"),
                    "bus: bar1 at [0xe0003000, 0xe0005000) overlaps bar0 at [0xe0000000, 0xe0004000)");
  bus.map(late.socket, 0xE0004000, 0x1000, "bar1");  // adjacent is fine
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  CHECK(cpu.access(0xE0000010) == tlm::TLM_OK_RESPONSE);
  CHECK(cpu.access(0x1000) == tlm::TLM_OK_RESPONSE);
  CHECK(cpu.access(0x100000000ull + 0x20) == tlm::TLM_OK_RESPONSE);  // above 4 GiB: DRAM offset low + 0x20
  CHECK(cpu.access(0xE0004008) == tlm::TLM_OK_RESPONSE);
  CHECK(cpu.access(0xD0000000) == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // in the hole, nothing there
  CHECK(mmio.seen == std::vector<uint64_t>{0x10});
  CHECK(dram.seen == std::vector<uint64_t>{0x1000, 0xB0000000ull + 0x20});
  CHECK(late.seen == std::vector<uint64_t>{0x8});
}
