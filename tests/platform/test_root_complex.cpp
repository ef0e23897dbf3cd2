// SPDX-License-Identifier: BSD-3-Clause
// The host's PCIe root complex: each function gets the next device on bus 0,
// its configuration space in the ECAM window at bus << 20 | device << 15
// (PCIe Base Specification 7.2.2), its BAR0 aligned to its own size after
// the BARs before it, and requests to those windows reach that function
// through its own link.
#include <catch2/catch.hpp>
#include <systemc>

#include "tests/ModelRig.hpp"
#include "tests/pcie/LinkRig.hpp"
#include "vp/host/hw/HostBus.hpp"
#include "vp/platform/RootComplex.hpp"

using namespace vp;
using namespace vp::test;

namespace {
// A function whose registers read as its marker plus the offset.
struct MarkerFunction : pcie::PciFunction {
  uint32_t marker;
  MarkerFunction(sc_core::sc_module_name n, StatRegistry& stats, const std::string& scope, uint64_t bar0_size,
                 uint32_t marker)
      : PciFunction(n, pcie::PciIdentity{}, shape(bar0_size), StatGroup(stats, scope)), marker(marker) {}
  static pcie::PciFunctionShape shape(uint64_t bar0_size) {
    pcie::PciFunctionShape s;
    s.bar0_size = bar0_size;
    return s;
  }
  uint64_t bar_read(uint32_t off, unsigned) override { return marker + off; }
  void bar_write(uint32_t, uint64_t, unsigned) override {}
};

struct Cpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Cpu> socket;
  tlm::tlm_generic_payload gp;
  explicit Cpu(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}
  uint32_t access(tlm::tlm_command cmd, uint64_t addr, uint32_t value = 0) {
    prepare(gp, cmd, addr, reinterpret_cast<uint8_t*>(&value), 4);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(gp, delay);
    sc_core::wait(delay);
    return value;
  }
};
}  // namespace

TEST_CASE("the root complex numbers its ports, places their windows and routes each to its own function",
          "[platform][pcie]") {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  ParamRegistry reg;
  pcie::PcieLink::declare_params(ParamScope(reg, "a.pcie"));
  pcie::PcieLink::declare_params(ParamScope(reg, "b.pcie"));
  ModelServices m{Config(reg)};
  host::HostBus bus("bus");
  platform::RootComplex root(bus);
  Cpu cpu("cpu");
  cpu.socket.bind(bus.in);

  platform::PciePort& a = root.port("a", m.svc, "a.pcie", 0x20000);   // an NVMe controller's 128 KiB
  platform::PciePort& b = root.port("b", m.svc, "b.pcie", 16 << 20);  // the accelerator's 16 MiB
  CHECK(a.device() == 0);
  CHECK(b.device() == 1);
  CHECK(a.config_address() == 0xB0000000ull);           // the ECAM window's start: bus 0 device 0
  CHECK(b.config_address() == 0xB0000000ull + 0x8000);  // device 1: 1 << 15
  CHECK(a.bar0_base() == 0xE0000000ull);                // the MMIO window's start
  CHECK(b.bar0_base() == 0xE1000000ull);                // after a's 128 KiB, at the next 16 MiB boundary
  CHECK_THROWS_WITH(root.port("c", m.svc, "a.pcie", 3000), Catch::Contains("not a power of two"));

  MarkerFunction fa("fa", m.stats, "fa", 0x20000, 0xA0000), fb("fb", m.stats, "fb", 16 << 20, 0xB0000);
  root.attach(a, fa);
  root.attach(b, fb);
  CHECK_THROWS_WITH(root.attach(a, fb), Catch::Contains("already plugged"));

  uint32_t ra = 0, rb = 0, id = 0;
  sc_core::sc_spawn([&] {
    // Memory decoding on (Command bit 1), then a register of each.
    cpu.access(tlm::TLM_WRITE_COMMAND, a.config_address() + 4, 0x2);
    cpu.access(tlm::TLM_WRITE_COMMAND, b.config_address() + 4, 0x2);
    ra = cpu.access(tlm::TLM_READ_COMMAND, a.bar0_base() + 0x40);
    rb = cpu.access(tlm::TLM_READ_COMMAND, b.bar0_base() + 0x40);
    id = cpu.access(tlm::TLM_READ_COMMAND, b.config_address());
  });
  sc_core::sc_start();
  CHECK(ra == 0xA0040);
  CHECK(rb == 0xB0040);
  CHECK(id == (0x0010u << 16 | 0x1b36u));  // device id, vendor id
  // Each request crossed its own function's link: a config write and a
  // register read down each.
  CHECK(m.stat("a.pcie.cfg_writes") == 1);
  CHECK(m.stat("b.pcie.cfg_reads") == 1);
}

TEST_CASE("a function whose BAR0 is not its port's window is refused", "[platform][pcie]") {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  ParamRegistry reg;
  pcie::PcieLink::declare_params(ParamScope(reg, "a.pcie"));
  ModelServices m{Config(reg)};
  host::HostBus bus("bus");
  platform::RootComplex root(bus);
  platform::PciePort& a = root.port("a", m.svc, "a.pcie", 0x20000);
  MarkerFunction f("f", m.stats, "f", 64 << 10, 0);
  CHECK_THROWS_WITH(root.attach(a, f), Catch::Contains("65536") && Catch::Contains("131072"));
}
