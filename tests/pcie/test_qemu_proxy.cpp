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
#include "vp/ssd/NvmeSpec.hpp"

using namespace vp;
using namespace vp::nvme;
using test::FakeQemu;
using namespace test;  // the mpqemu-link commands

namespace {
constexpr uint64_t kBar = FakeQemu::kBar, kRam = 16 << 20;
}  // namespace

TEST_CASE("the QEMU proxy bridge serves config space and BAR0 and DMA into shared guest RAM",
          "[pcie][qemu]") {
  Config cfg = test::model_config("quick", {}, {});
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  Services svc{cfg, stats, waves, tracker, 1};
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  platform::QemuTop top("top", svc, sv[0]);
  std::vector<uint32_t> raised;
  top.bridge.raise_irq = [&](uint32_t v) { raised.push_back(v); };
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  FakeQemu q{sv[1], top};

  // Guest RAM: a memfd the bridge maps (SYNC_SYSMEM: one region at 0).
  int ram_fd = memfd_create("guest", 0);
  REQUIRE(ftruncate(ram_fd, kRam) == 0);
  auto* ram = static_cast<uint8_t*>(mmap(nullptr, kRam, PROT_READ | PROT_WRITE, MAP_SHARED, ram_fd, 0));
  uint8_t sync[192] = {};
  uint64_t size = kRam;
  std::memcpy(sync + 64, &size, 8);
  q.send(SYNC_SYSMEM, sync, 192, ram_fd);
  REQUIRE(top.bridge.serve(1000));  // no answer expected
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
  q.set_reg(AQA, (7u << 16) | 7);
  q.set_reg(ASQ, asq, 8);
  q.set_reg(ACQ, acq, 8);
  q.set_reg(CC, CC_EN | (6u << 16) | (4u << 20));
  q.run();
  CHECK((q.reg(CSTS) & CSTS_RDY) == CSTS_RDY);

  // Identify controller: the entry and the data land in the guest's memory.
  Sqe c = Sqe::make(ADMIN_IDENTIFY, 0x1234);
  c.prp1 = id;
  c.cdw10 = CNS_CONTROLLER;
  std::memcpy(ram + asq, &c, sizeof c);
  q.set_reg(sq_tail_doorbell(0, 0), 1);
  q.run();
  Cqe e;
  std::memcpy(&e, ram + acq, sizeof e);
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
  close(sv[1]);
  CHECK_FALSE(top.bridge.serve(1000));  // QEMU went away
  munmap(ram, kRam);
  close(ram_fd);
}
