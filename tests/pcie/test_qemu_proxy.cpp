// SPDX-License-Identifier: BSD-3-Clause
// The QEMU proxy bridge against a fake QEMU: the test speaks QEMU's
// mpqemu-link protocol over a socketpair, shares "guest RAM" as a memfd,
// and drives the SSD as a guest driver would, with simulated time run in
// steps between messages as vp-qemu does.
#include <catch2/catch.hpp>
#include <cstring>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/TestSupport.hpp"
#include "tests/pcie/FakeQemu.hpp"
#include "vp/nvme/NvmeSpec.hpp"

using namespace vp;
using namespace vp::nvme;
using test::FakeQemu;
using namespace test;  // the mpqemu-link commands

namespace {
constexpr uint64_t kBar = FakeQemu::kBar, kRam = 16 << 20;
}  // namespace

TEST_CASE("the QEMU proxy bridge serves config space and BAR0 and DMA into shared guest RAM",
          "[pcie][qemu]") {
  QemuBench bench;
  platform::QemuTop& top = *bench.top;
  std::vector<uint32_t> raised;
  top.bridge.raise_irq = [&](uint32_t v) { raised.push_back(v); };
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  FakeQemu q{bench.qemu_end(), top};

  GuestRam guest_ram(q, kRam);
  uint8_t* ram = guest_ram.ptr;
  CHECK(top.bridge.counts().sysmem_syncs == 1);

  // Config space: the class code, BAR0 programmed, decoding and bus mastering on.
  CHECK(q.cfg_read(0x08, 4) == 0x01080202);
  CHECK(q.cfg_read(0x0A, 2) == 0x0108);
  q.cfg_write(0x10, static_cast<uint32_t>(kBar) | 4, 4);
  q.cfg_write(0x04, 0x6, 2);
  // MSI-X on, vector 0 to the x86 MSI window with data 0x41.
  q.cfg_write(pcie::PciConfigSpace::kMsixCap + 2, 0x8000, 2);
  q.set_reg(MSIX_TABLE, 0xFEE00000ull, 4);
  q.set_reg(MSIX_TABLE + 4, 0, 4);
  q.set_reg(MSIX_TABLE + 8, 0x41, 4);
  q.set_reg(MSIX_TABLE + 12, 0, 4);
  CHECK(q.reg(VS) == 0x00010400);

  // Admin queues in guest RAM, enable, wait for ready.
  const uint64_t asq = 0x10000, acq = 0x20000, id = 0x30000;
  CHECK((q.enable(asq, acq) & CSTS_RDY) == CSTS_RDY);

  // Identify controller: the entry and the data land in the guest's memory.
  Cqe e = q.identify_first(ram, asq, acq, id, 0x1234);
  CHECK(e.phase());
  CHECK(e.cid == 0x1234);
  CHECK(e.status() == 0);
  CHECK(std::string(reinterpret_cast<char*>(ram + id + idctl::MN), 17) == "FlashVP ULL Z-SSD");
  // Its MSI-X message was recognised as table entry 0.
  CHECK(raised == std::vector<uint32_t>{0});

  // A machine reset puts the function back to power-on: decoding off, controller disabled.
  q.send(DEVICE_RESET, nullptr, 0);
  q.ret();
  CHECK(q.cfg_read(0x04, 2) == 0);
  q.cfg_write(0x04, 0x6, 2);
  CHECK(q.reg(CSTS) == 0);
  close(bench.sv[1]);
  CHECK_FALSE(top.bridge.serve(1000));  // QEMU went away
}
