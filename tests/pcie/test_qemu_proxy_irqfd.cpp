// SPDX-License-Identifier: BSD-3-Clause
// The INTx route of the QEMU proxy bridge (KVM's irqfd with resample)
// against a fake QEMU that hands over its eventfd pair with SET_IRQFD and
// plays KVM's part: it reads the interrupt eventfd as KVM would raise the
// line, and signals the resample eventfd as KVM does at the guest's EOI.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/TestSupport.hpp"
#include "tests/pcie/FakeQemu.hpp"
#include "vp/nvme/NvmeSpec.hpp"

using namespace vp;
using namespace vp::nvme;
using test::FakeQemu;
using test::GuestRam;
using test::QemuBench;

namespace {
constexpr uint64_t kRam = 16 << 20;

size_t open_fds() {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    (void)e;
    ++n;
  }
  return n;
}

int new_eventfd() {
  int f = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  REQUIRE(f >= 0);
  return f;
}

// An INTx level message as the controller sends it, straight into the bridge.
void intx_message(platform::QemuTop& top, uint32_t level) {
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(pcie::QemuProxy2Tlm::kIntxAddress);
  gp.set_data_ptr(reinterpret_cast<uint8_t*>(&level));
  gp.set_data_length(4);
  gp.set_streaming_width(4);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  top.bridge.dma_in.get_base_export()->b_transport(gp, d);  // (the socket's -> is the backward path)
  REQUIRE(gp.is_response_ok());
}
}  // namespace

TEST_CASE("the INTx route raises the irqfd on the rising edge and again at a resample while the level holds",
          "[pcie][qemu][irqfd]") {
  QemuBench bench;
  platform::QemuTop& top = *bench.top;
  top.bridge.set_intx_route(true);
  std::vector<uint32_t> ivshmem;  // the other route must stay silent
  top.bridge.raise_irq = [&](uint32_t v) { ivshmem.push_back(v); };
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  FakeQemu q{bench.qemu_end(), top};

  GuestRam guest_ram(q, kRam);
  uint8_t* ram = guest_ram.ptr;
  // Startup order as QEMU sends it: RAM, then the eventfd pair.
  int irqfd = new_eventfd(), resample = new_eventfd();
  q.set_irqfd(irqfd, resample);
  CHECK(top.bridge.has_irqfd());
  CHECK(top.bridge.counts().irqfd_sets == 1);

  // BAR0, memory decode and bus mastering; neither MSI nor MSI-X enabled,
  // Interrupt Disable clear: the controller signals completions on its pin.
  q.cfg_write(0x10, static_cast<uint32_t>(FakeQemu::kBar) | 4, 4);
  q.cfg_write(0x04, 0x6, 2);
  const uint64_t asq = 0x10000, acq = 0x20000, id = 0x30000;
  REQUIRE((q.enable(asq, acq) & CSTS_RDY) == CSTS_RDY);
  CHECK(test::take_event(irqfd) == 0);  // nothing completed yet: the line is low

  // Identify completes: one CQ entry outstanding, the level rises, the line is raised once.
  Cqe e = q.identify_first(ram, asq, acq, id, 0x11);
  REQUIRE(e.cid == 0x11);
  CHECK((q.cfg_read(0x06, 2) & 0x8) == 0x8);  // Interrupt Status
  CHECK(test::take_event(irqfd) == 1);
  CHECK(test::take_event(irqfd) == 0);  // one write per edge, not per poll
  CHECK(top.bridge.counts().irqs == 1);

  // The guest's EOI came before it reaped the entry: KVM lowered the line and
  // signals resample; the level still holds, so the line goes up again.
  test::signal_event(resample);
  REQUIRE(top.bridge.serve(100));
  CHECK(test::take_event(irqfd) == 1);
  CHECK(top.bridge.counts().resamples == 1);
  CHECK(top.bridge.counts().rearms == 1);

  // The guest reaps the entry (CQ head 1): the level falls; that needs no
  // write. The next EOI's resample then finds the level low: no re-raise.
  q.set_reg(cq_head_doorbell(0, 0), 1);
  q.run();
  CHECK((q.cfg_read(0x06, 2) & 0x8) == 0);
  CHECK(test::take_event(irqfd) == 0);
  test::signal_event(resample);
  REQUIRE(top.bridge.serve(100));
  CHECK(test::take_event(irqfd) == 0);
  CHECK(top.bridge.counts().resamples == 2);
  CHECK(top.bridge.counts().rearms == 1);

  // A second completion is a new rising edge: raises 1 (edge) + 1 (re-raise) + 1 (edge) = 3.
  Sqe c = Sqe::make(ADMIN_IDENTIFY, 0x12);
  c.prp1 = id;
  c.cdw10 = CNS_CONTROLLER;
  std::memcpy(ram + asq + 64, &c, sizeof c);
  q.set_reg(sq_tail_doorbell(0, 0), 2);
  q.run();
  CHECK(test::take_event(irqfd) == 1);
  CHECK(top.bridge.counts().irqfd_writes == 3);
  CHECK(top.bridge.counts().irqs == 2);
  CHECK(ivshmem.empty());

  close(bench.sv[1]);
  CHECK_FALSE(top.bridge.serve(1000));
  close(irqfd);
  close(resample);
}

TEST_CASE("under the INTx route the function is built without MSI and MSI-X and the bridge passes its chain through",
          "[pcie][qemu][irqfd]") {
  QemuBench bench(true);  // as vp-qemu --irq-route intx configures it
  platform::QemuTop& top = *bench.top;
  top.bridge.set_intx_route(true);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  FakeQemu q{bench.qemu_end(), top};
  CHECK(bench.route_warnings.empty());
  CHECK(bench.cfg.origin("ssd.pci.msi") == "--irq-route intx");

  // PciConfigSpace places PM at 0x40, MSI at 0x50, MSI-X at 0x70, PCIe at
  // 0x80. Without MSI and MSI-X: 0x34 -> 0x40 (PM, id 01, next 0x80) ->
  // 0x80 (PCIe, id 10, next 0). Header words: 0x80 << 8 | 0x01 = 0x8001, 0x0010.
  CHECK(q.cfg_read(0x34, 1) == 0x40);
  CHECK(q.cfg_read(0x34, 4) == 0x40);  // the dword holding the pointer (0x35..0x37 reserved, 0)
  CHECK(q.cfg_read(0x40, 2) == 0x8001);
  CHECK(q.cfg_read(0x80, 2) == 0x0010);
  // The whole walk: no MSI (05) or MSI-X (11) id anywhere.
  std::vector<uint32_t> ids;
  for (uint32_t p = q.cfg_read(0x34, 1) & 0xFC; p && ids.size() < 48; p = q.cfg_read(p + 1, 1) & 0xFC)
    ids.push_back(q.cfg_read(p, 1));
  CHECK(ids == std::vector<uint32_t>{0x01, 0x10});
  // Where MSI and MSI-X would be there is nothing, and enabling them does nothing.
  CHECK(q.cfg_read(0x50, 4) == 0);
  CHECK(q.cfg_read(0x70, 4) == 0);
  q.cfg_write(0x72, 0x8000, 2);
  q.cfg_write(0x52, 0x0001, 2);
  CHECK(q.cfg_read(0x70, 4) == 0);
  CHECK(q.cfg_read(0x50, 4) == 0);
  // Config writes still reach the device.
  q.cfg_write(0x04, 0x6, 2);
  CHECK(q.cfg_read(0x04, 2) == 0x6);
  close(bench.sv[1]);
}

TEST_CASE("under the INTx route an explicit ssd.pci.msix=true is kept with a warning", "[pcie][qemu][irqfd]") {
  QemuBench bench(true, {{"ssd.pci.msix", "true"}});
  platform::QemuTop& top = *bench.top;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  FakeQemu q{bench.qemu_end(), top};
  REQUIRE(bench.route_warnings.size() == 1);  // MSI was defaulted to false: only MSI-X warns
  CHECK_THAT(bench.route_warnings[0], Catch::Contains("ssd.pci.msix") && Catch::Contains("test"));
  CHECK_FALSE(bench.cfg.get_bool("ssd.pci.msi"));
  // 0x34 -> 0x40 (PM, next 0x70) -> 0x70 (MSI-X, next 0x80) -> 0x80 (PCIe):
  // header words 0x7001 and 0x8011 (the next byte above the id).
  CHECK(q.cfg_read(0x40, 2) == 0x7001);
  CHECK(q.cfg_read(0x70, 2) == 0x8011);
  close(bench.sv[1]);
}

TEST_CASE("the ivshmem route leaves the function whole", "[pcie][qemu][irqfd]") {
  QemuBench bench(false);
  platform::QemuTop& top = *bench.top;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  FakeQemu q{bench.qemu_end(), top};
  CHECK_FALSE(bench.cfg.is_set("ssd.pci.msi"));
  // 0x34 -> 0x40 PM (next 0x50) -> 0x50 MSI (next 0x70) -> 0x70 MSI-X (next 0x80) -> 0x80 PCIe.
  CHECK(q.cfg_read(0x40, 2) == 0x5001);
  CHECK(q.cfg_read(0x50, 2) == 0x7005);
  CHECK(q.cfg_read(0x70, 2) == 0x8011);
  CHECK(q.cfg_read(0x80, 2) == 0x0010);
  close(bench.sv[1]);
}

TEST_CASE("a second SET_IRQFD replaces the first pair and the bridge leaks no eventfd", "[pcie][qemu][irqfd]") {
  QemuBench bench;
  auto& top = bench.top;
  top->bridge.set_intx_route(true);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  FakeQemu q{bench.qemu_end(), *top};
  const size_t n0 = open_fds();

  int a_irq = new_eventfd(), a_res = new_eventfd();
  q.set_irqfd(a_irq, a_res);
  CHECK(open_fds() == n0 + 4);  // ours 2 + the bridge's copies 2
  intx_message(*top, 1);
  q.run();
  CHECK(test::take_event(a_irq) == 1);

  // The new pair arrives while the level is up: the bridge drops its copies
  // of the old pair (n0 + 4 ours + 2 bridge's; 8 if it kept them) and
  // raises the line on the new one.
  int b_irq = new_eventfd(), b_res = new_eventfd();
  q.set_irqfd(b_irq, b_res);
  CHECK(open_fds() == n0 + 6);
  CHECK(top->bridge.counts().irqfd_sets == 2);
  CHECK(test::take_event(b_irq) == 1);
  CHECK(test::take_event(a_irq) == 0);

  // The old resample eventfd is no longer watched; the new one is.
  test::signal_event(a_res);
  REQUIRE(top->bridge.serve(50));
  CHECK(top->bridge.counts().resamples == 0);
  test::signal_event(b_res);
  REQUIRE(top->bridge.serve(100));
  CHECK(top->bridge.counts().resamples == 1);
  CHECK(test::take_event(b_irq) == 1);
  CHECK(test::take_event(a_irq) == 0);

  // Deasserted: a resample re-raises nothing.
  intx_message(*top, 0);
  q.run();
  test::signal_event(b_res);
  REQUIRE(top->bridge.serve(100));
  CHECK(top->bridge.counts().resamples == 2);
  CHECK(top->bridge.counts().rearms == 1);
  CHECK(test::take_event(b_irq) == 0);
  CHECK(top->bridge.counts().irqfd_writes == 3);  // a: edge; b: on arrival, re-raise

  for (int f : {a_irq, a_res, b_irq, b_res}) close(f);
  CHECK(open_fds() == n0 + 2);  // the bridge's copies of the current pair
  top.reset();
  CHECK(open_fds() == n0);  // closed on destruction
  close(bench.sv[0]);
  close(bench.sv[1]);
}
