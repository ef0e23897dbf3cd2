// SPDX-License-Identifier: BSD-3-Clause
// The I/O-stack accelerator against the real NVMe controller on the quick
// preset: bios through the accelerator's registers become commands the SSD
// fetches from the accelerator's window, and the data is the host's.
#include <catch2/catch.hpp>
#include <sstream>

#include "tests/VcdChanges.hpp"
#include "tests/accel/AccelRig.hpp"

using namespace vp;
using namespace vp::test;
using namespace vp::nvme;

namespace {
void fill(AccelRig& r, uint64_t addr, uint32_t bytes, uint8_t seed) {
  for (uint32_t i = 0; i < bytes; ++i) *r.mem(addr + i) = static_cast<uint8_t>(seed + i * 7);
}
bool same(AccelRig& r, uint64_t a, uint64_t b, uint32_t bytes) { return std::memcmp(r.mem(a), r.mem(b), bytes) == 0; }

// A normal-path read of `nlb` LBAs at `slba` into `buf` on queue pair `q`.
void read_normal(AccelRig& r, NvmeRig::Queue& q, uint64_t slba, uint32_t nlb, uint64_t buf) {
  uint64_t list = r.alloc(4096);
  for (uint32_t i = 1; i < nlb; ++i) {
    uint64_t page = buf + uint64_t(i) * 4096;
    std::memcpy(r.mem(list + (i - 1) * 8), &page, 8);
  }
  r.push(q, NvmeRig::io(IO_READ, slba, nlb, buf, nlb == 2 ? buf + 4096 : (nlb > 2 ? list : 0)));
  Cqe e;
  REQUIRE(r.reap(q, e));
  REQUIRE(e.status() == 0);
}

void bring_up(AccelRig& r) {
  r.pci_enable();
  REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
  r.accel_enable();
  r.accel_queue(1, 0, 16);
}

// Two 4 KiB buffers of different patterns.
std::pair<uint64_t, uint64_t> two_buffers(AccelRig& r, uint8_t seed) {
  uint64_t a = r.alloc(4096), b = r.alloc(4096);
  fill(r, a, 4096, seed);
  fill(r, b, 4096, static_cast<uint8_t>(seed + 1));
  return {a, b};
}

// LBAs slba and slba + 1 read back through the normal path hold `a`'s and `b`'s data.
void check_pair(AccelRig& r, NvmeRig::Queue& q, uint64_t slba, uint64_t a, uint64_t b) {
  uint64_t back = r.alloc(8192);
  read_normal(r, q, slba, 2, back);
  CHECK(same(r, a, back, 4096));
  CHECK(same(r, b, back + 4096, 4096));
}
}  // namespace

TEST_CASE("a bio written through the accelerator reads back through the normal path and the other way round",
          "[accel]") {
  with_accel_rig([](AccelRig& r) {
    bring_up(r);
    auto q = r.create_pair(2, 16, 1);
    // An 8 KiB write of two pages through the accelerator.
    uint64_t w = r.alloc(8192);
    fill(r, w, 8192, 3);
    r.bio(true, 40, {{w, 4096}, {w + 4096, 4096}}, 7);
    uint64_t d = r.done();
    REQUIRE(d & accel::regs::DONE_VALID);
    CHECK((d & 0xFFFFFFFF) == 7);
    CHECK(((d >> 32) & 0x7FFF) == 0);
    uint64_t back = r.alloc(8192);
    read_normal(r, q, 40, 2, back);
    CHECK(same(r, w, back, 8192));
    // Written by the normal path, read through the accelerator into a
    // buffer of three segments (4 + 8 + 4 KiB, the last page-aligned).
    uint64_t w2 = r.alloc(16384);
    fill(r, w2, 16384, 9);
    uint64_t list = r.alloc(4096);
    for (uint32_t i = 1; i < 4; ++i) {
      uint64_t page = w2 + uint64_t(i) * 4096;
      std::memcpy(r.mem(list + (i - 1) * 8), &page, 8);
    }
    r.push(q, NvmeRig::io(IO_WRITE, 100, 4, w2, list));
    Cqe e;
    REQUIRE(r.reap(q, e));
    uint64_t rd = r.alloc(16384);
    r.bio(false, 100, {{rd, 4096}, {rd + 4096, 8192}, {rd + 12288, 4096}}, 8);
    d = r.done();
    REQUIRE(d & accel::regs::DONE_VALID);
    CHECK((d & 0xFFFFFFFF) == 8);
    CHECK(same(r, w2, rd, 16384));
    CHECK(r.stat("bios") == 2);
    CHECK(r.stat("commands") == 2);
    CHECK(r.stat("merges") == 0);
    CHECK(r.stat("polls") == 2);
    CHECK(r.stat("interrupts") == 2);
    CHECK(r.areg(accel::regs::IN_FLIGHT) == 0);
  });
}

TEST_CASE("two adjacent write bios given before the SSD fetches become one command with both bios' data",
          "[accel]") {
  with_accel_rig([](AccelRig& r) {
    bring_up(r);
    auto q = r.create_pair(2, 16, 1);
    auto [a, b] = two_buffers(r, 1);
    // Both bios' registers are posted back to back: the second reaches the
    // CAM while the first command is still unfetched (the doorbell's
    // peer-to-peer write and the SSD's fetch take longer than the accelerator's few cycles).
    r.bio(true, 10, {{a, 4096}}, 1);
    r.bio(true, 11, {{b, 4096}}, 2);
    uint64_t d1 = r.done(), d2 = r.done();
    REQUIRE(d1 & accel::regs::DONE_VALID);
    REQUIRE(d2 & accel::regs::DONE_VALID);
    CHECK((d1 & 0xFFFFFFFF) == 1);
    CHECK((d2 & 0xFFFFFFFF) == 2);
    CHECK(r.stat("commands") == 1);
    CHECK(r.stat("merges") == 1);
    CHECK(r.stat("cam_hits") == 1);
    check_pair(r, q, 10, a, b);
  });
}

TEST_CASE("a bio adjacent to a command the SSD has fetched is not merged", "[accel]") {
  with_accel_rig([](AccelRig& r) {
    bring_up(r);
    auto q = r.create_pair(2, 16, 1);
    auto [a, b] = two_buffers(r, 4);
    r.bio(true, 20, {{a, 4096}}, 1);
    // 10 us: fetched (its status bit clear) and still programming (a
    // Z-NAND program takes 100 us).
    r.sleep(10 * US);
    REQUIRE(r.areg(accel::regs::IN_FLIGHT) == 1);
    r.bio(true, 21, {{b, 4096}}, 2);
    REQUIRE(r.done() & accel::regs::DONE_VALID);
    REQUIRE(r.done() & accel::regs::DONE_VALID);
    CHECK(r.stat("commands") == 2);
    CHECK(r.stat("merges") == 0);
    CHECK(r.stat("cam_hits") == 0);
    check_pair(r, q, 20, a, b);
  });
}

// merge_cycles 25,000 at 250 MHz: a merge holds the SQ for 100 us (plus the
// CAM search and one PRP entry, 12 ns). The SSD's fetch of the first command
// comes a few microseconds after its doorbell, meets the merge, and waits
// for it: one barrier wait, shorter than 100.012 us by the time between the
// merge's start and the fetch's arrival (the doorbell's and the fetch's
// trips, a few microseconds).
TEST_CASE("the barrier makes the SSD's fetch wait for a merge in progress", "[accel]") {
  std::string vcd = scratch("accel-barrier") + "/waves";
  with_accel_rig(
      [](AccelRig& r) {
        bring_up(r);
        auto q = r.create_pair(2, 16, 1);
        auto [a, b] = two_buffers(r, 6);
        r.bio(true, 30, {{a, 4096}}, 1);
        r.bio(true, 31, {{b, 4096}}, 2);
        Tick start = now_ps();
        REQUIRE(r.done() & accel::regs::DONE_VALID);
        CHECK(now_ps() - start > 100 * US);
        REQUIRE(r.done() & accel::regs::DONE_VALID);
        CHECK(r.stat("merges") == 1);
        CHECK(r.stat("commands") == 1);
        CHECK(r.stat("barrier_waits") == 1);
        double waited = double(r.stat("barrier_wait_ps")) / double(US);
        CHECK(waited < 100.012);
        CHECK(waited > 90.0);
        check_pair(r, q, 30, a, b);
      },
      {{"accel.merge_cycles", "25000"}}, vcd);
  // The waveform shows the merge logic owning the SQ, and the CAM entry
  // written then fetched.
  std::string w = slurp(vcd + ".vcd");
  auto id_of = [&](const std::string& name) {
    for (const auto& [n, id] : vcd_signals(w))
      if (n == name) return id;
    FAIL("no signal " << name);
    return std::string();
  };
  std::string barrier = id_of("accel.barrier_merge"), cam = id_of("accel.cam_valid");
  CHECK(w.find("\n1" + barrier + "\n") != std::string::npos);
  CHECK(w.find("\n0" + barrier + "\n") != std::string::npos);
  CHECK(w.find("b1 " + cam + "\n") != std::string::npos);
}

TEST_CASE("a bio overlapping a command in flight waits for it, so the later write wins", "[accel]") {
  with_accel_rig([](AccelRig& r) {
    bring_up(r);
    auto q = r.create_pair(2, 16, 1);
    uint64_t a = r.alloc(8192), b = r.alloc(4096);
    fill(r, a, 8192, 8);
    fill(r, b, 4096, 9);
    r.bio(true, 50, {{a, 8192}}, 1);  // LBAs 50-51
    r.bio(true, 51, {{b, 4096}}, 2);  // LBA 51 again
    uint64_t d1 = r.done(), d2 = r.done();
    CHECK((d1 & 0xFFFFFFFF) == 1);
    CHECK((d2 & 0xFFFFFFFF) == 2);
    CHECK(r.stat("hazard_waits") == 1);
    CHECK(r.stat("commands") == 2);
    check_pair(r, q, 50, a, b);
  });
}

TEST_CASE("a bio breaking the PRP rule completes with Invalid Field and nothing reaches the SSD", "[accel]") {
  with_accel_rig([](AccelRig& r) {
    bring_up(r);
    uint64_t a = r.alloc(8192);
    r.bio(true, 60, {{a, 2048}, {a + 4096, 2048}}, 5);  // a gap inside the data: no PRP can express it
    uint64_t d = r.done();
    REQUIRE(d & accel::regs::DONE_VALID);
    CHECK((d & 0xFFFFFFFF) == 5);
    CHECK(((d >> 32) & 0xFF) == SC_INVALID_FIELD);
    CHECK(((d >> 40) & 0x7) == SCT_GENERIC);
    CHECK(r.stat("errors") == 1);
    CHECK(r.stat("commands") == 0);
  });
}

// A four-entry SQ: the SSD has fetched slot 0's write (a 100 us Z-NAND
// program) and completed the reads in slots 1-3 (pages on dies other than the
// write's; LBA 300's die is the write's), so
// its head has passed slot 0 and the SQ has room, yet slot 0's command id is
// still the SSD's. The next bio waits for slot 0's completion rather than
// reuse its id.
TEST_CASE("a bio waits for the SQ slot at the tail while the command the SSD fetched from it is not completed",
          "[accel]") {
  with_accel_rig([](AccelRig& r) {
    bring_up(r);
    auto q = r.create_pair(2, 16, 1);
    uint64_t data = r.alloc(5 * 4096);
    fill(r, data, 5 * 4096, 5);
    Cqe e;
    for (uint32_t i = 0; i < 4; ++i) {
      r.push(q, NvmeRig::io(IO_WRITE, 300 + 10 * i, 1, data + (1 + i) * 4096, 0));
      REQUIRE(r.reap(q, e));
    }
    r.set_areg(accel::regs::QSEL, 1);
    r.accel_queue(3, 1, 4);
    uint64_t rd = r.alloc(4 * 4096);
    r.bio(true, 200, {{data, 4096}}, 1, 1);
    r.sleep(3 * US);
    for (uint32_t i = 0; i < 3; ++i) {  // slots 1-3, far apart: no merge
      r.bio(false, 310 + 10 * i, {{rd + i * 4096, 4096}}, 2 + i, 1);
      uint64_t d = r.done();
      INFO("read " << i << " at " << sc_core::sc_time_stamp());
      REQUIRE(d & accel::regs::DONE_VALID);
      CHECK((d & 0xFFFFFFFF) == 2 + i);
    }
    REQUIRE(r.areg(accel::regs::IN_FLIGHT) == 1);  // the write is still programming
    r.bio(false, 300, {{rd + 3 * 4096, 4096}}, 9, 1);  // the tail is slot 0
    uint64_t d1 = r.done(), d2 = r.done();
    CHECK((d1 & 0xFFFFFFFF) == 1);
    CHECK((d2 & 0xFFFFFFFF) == 9);
    CHECK(((d2 >> 32) & 0x7FFF) == 0);
    CHECK(r.stat("full_waits") == 1);
    CHECK(r.stat("commands") == 5);
    CHECK(same(r, data + 2 * 4096, rd, 3 * 4096));
    CHECK(same(r, data + 4096, rd + 3 * 4096, 4096));
    uint64_t back = r.alloc(4096);
    read_normal(r, q, 200, 1, back);
    CHECK(same(r, data, back, 4096));
  });
}

// The SSD posts a read's data to host memory and then its completion entry
// to the accelerator, peer to peer; both are on their way for a while. The
// host's register reads (here a poll of DONE every 50 ns) land the writes
// that arrive before them, but the accelerator's CQ logic must see the entry
// only when it arrives: else the bio is completed before its data reached
// memory (the guest's fio verify saw a buffer's previous contents).
TEST_CASE("a host register read does not land the SSD's completion entry on its way, so a done bio's data is there",
          "[accel]") {
  with_accel_rig([](AccelRig& r) {
    bring_up(r);
    auto q = r.create_pair(2, 16, 1);
    uint64_t w = r.alloc(4096), rd = r.alloc(4096);
    fill(r, w, 4096, 11);
    r.push(q, NvmeRig::io(IO_WRITE, 70, 1, w, 0));
    Cqe e;
    REQUIRE(r.reap(q, e));
    r.bio(false, 70, {{rd, 4096}}, 3);
    // Each read is made and its value taken at once, as a guest's register
    // read served while simulated time stands still; the host memory is
    // looked at the same instant.
    uint64_t d = 0;
    for (int i = 0; i < 20000 && !(d & accel::regs::DONE_VALID); ++i) {
      r.sleep(50 * NS);
      tlm::tlm_generic_payload gp;
      prepare(gp, tlm::TLM_READ_COMMAND, AccelRig::kAccelBar + accel::regs::DONE, reinterpret_cast<uint8_t*>(&d), 8);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      r.cpu->b_transport(gp, delay);
    }
    REQUIRE(d & accel::regs::DONE_VALID);
    CHECK((d & 0xFFFFFFFF) == 3);
    CHECK(same(r, w, rd, 4096));
  });
}
