// SPDX-License-Identifier: BSD-3-Clause
// PrpList on its own, against a fake host memory: the segments a transfer's
// PRP1/PRP2 resolve to, the list reads they cost, the errors a controller
// reports, and where move() puts the data. Expected values worked out by
// hand from NVMe 1.4 sec. 4.3 (4 KiB memory pages).
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "vp/ssd/nvme/PrpList.hpp"

using vp::Tick;
using vp::ssd::PrpList;
using Seg = PrpList::Segment;

namespace {
// 1 MiB of host memory; addresses from 0x80000 up fail (a bus error). An
// access takes 1000 ps plus 1 ps per byte, reads and writes alike.
struct FakeHost {
  std::vector<uint8_t> mem = std::vector<uint8_t>(1 << 20, 0);
  unsigned reads = 0, writes = 0;
  PrpList::Dma dma() {
    return [this](tlm::tlm_command cmd, uint64_t addr, uint8_t* p, uint32_t len, Tick& delay) {
      if (addr + len > 0x80000) return false;
      if (cmd == tlm::TLM_READ_COMMAND) {
        std::memcpy(p, &mem[addr], len);
        ++reads;
      } else {
        std::memcpy(&mem[addr], p, len);
        ++writes;
      }
      delay += 1000 + len;
      return true;
    };
  }
  void put_list(uint64_t at, std::vector<uint64_t> entries) {
    std::memcpy(&mem[at], entries.data(), entries.size() * 8);
  }
};
constexpr uint16_t kPrpOffsetInvalid = 0x4013;  // SC 13h, SCT 0, Do Not Retry
constexpr uint16_t kDataTransferError = 0x0004;  // SC 04h, SCT 0
}  // namespace

TEST_CASE("PRP1 alone carries a transfer within its page", "[ssd][prp]") {
  FakeHost h;
  PrpList p;
  Tick d = 0;
  REQUIRE(p.walk(0x10000, 0xdead, 4096, h.dma(), d) == 0);  // PRP2 unused: not checked
  CHECK(p.segments() == std::vector<Seg>{{0x10000, 4096}});
  CHECK(d == 0);
  CHECK(h.reads == 0);
}

TEST_CASE("an offset PRP1 and PRP2 carry a transfer over two pages", "[ssd][prp]") {
  // 0x10200: 4096 - 0x200 = 3584 bytes in the first page, 512 in PRP2's.
  FakeHost h;
  PrpList p;
  Tick d = 0;
  REQUIRE(p.walk(0x10200, 0x20000, 4096, h.dma(), d) == 0);
  CHECK(p.segments() == std::vector<Seg>{{0x10200, 3584}, {0x20000, 512}});
  Tick d2 = 0;
  CHECK(p.walk(0x10200, 0x20010, 4096, h.dma(), d2) == kPrpOffsetInvalid);  // PRP2 must be page aligned
  CHECK(p.walk(0x10202, 0x20000, 4096, h.dma(), d2) == kPrpOffsetInvalid);  // PRP1 must be dword aligned
}

TEST_CASE("a PRP list in one page is read once", "[ssd][prp]") {
  // 16 KiB from 0x10000: the first page by PRP1, 12 KiB = 3 entries in the
  // list at 0x30000, read as one 24-byte access: 1000 + 24 ps.
  FakeHost h;
  h.put_list(0x30000, {0x40000, 0x50000, 0x60000});
  PrpList p;
  Tick d = 0;
  REQUIRE(p.walk(0x10000, 0x30000, 16384, h.dma(), d) == 0);
  CHECK(p.segments() == std::vector<Seg>{{0x10000, 4096}, {0x40000, 4096}, {0x50000, 4096}, {0x60000, 4096}});
  CHECK(h.reads == 1);
  CHECK(d == 1024);
}

TEST_CASE("a PRP list chains to its next page through the last entry", "[ssd][prp]") {
  // The list starts 16 bytes before its page's end (0x30FF0): room for 2
  // entries, so with 3 to go the first is data and the second points to the
  // next list page, 0x70000, which holds the other 2. Two reads one after
  // the other: (1000 + 16) + (1000 + 16) ps.
  FakeHost h;
  h.put_list(0x30FF0, {0x40000, 0x70000});
  h.put_list(0x70000, {0x50000, 0x60000});
  PrpList p;
  Tick d = 0;
  REQUIRE(p.walk(0x10000, 0x30FF0, 16384, h.dma(), d) == 0);
  CHECK(p.segments() == std::vector<Seg>{{0x10000, 4096}, {0x40000, 4096}, {0x50000, 4096}, {0x60000, 4096}});
  CHECK(h.reads == 2);
  CHECK(d == 2032);
  // A chain pointer with an offset is invalid (only PRP2 may have one).
  h.put_list(0x30FF0, {0x40000, 0x70008});
  Tick d2 = 0;
  CHECK(p.walk(0x10000, 0x30FF0, 16384, h.dma(), d2) == kPrpOffsetInvalid);
}

TEST_CASE("a misaligned PRP list or entry and an unreadable list are reported", "[ssd][prp]") {
  FakeHost h;
  PrpList p;
  Tick d = 0;
  CHECK(p.walk(0x10000, 0x30004, 16384, h.dma(), d) == kPrpOffsetInvalid);  // list pointer not 8-byte aligned
  h.put_list(0x30000, {0x40000, 0x50008, 0x60000});
  CHECK(p.walk(0x10000, 0x30000, 16384, h.dma(), d) == kPrpOffsetInvalid);  // an entry with an offset
  CHECK(p.walk(0x10000, 0x90000, 16384, h.dma(), d) == kDataTransferError);  // the list is not in memory
}

TEST_CASE("move copies each segment to its place, all issued at once", "[ssd][prp]") {
  // Two segments, 3584 and 512 bytes, both start at delay 100: they end at
  // 100 + 1000 + 3584 and 100 + 1000 + 512; the move ends with the later.
  FakeHost h;
  PrpList p;
  Tick d = 0;
  REQUIRE(p.walk(0x10200, 0x20000, 4096, h.dma(), d) == 0);
  std::vector<uint8_t> buf(4096);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(i * 7);
  Tick m = 100;
  REQUIRE(p.move(buf.data(), true, 4096, h.dma(), m));
  CHECK(m == 4684);
  CHECK(h.writes == 2);
  CHECK(std::memcmp(&h.mem[0x10200], buf.data(), 3584) == 0);
  CHECK(std::memcmp(&h.mem[0x20000], buf.data() + 3584, 512) == 0);
  // Read back from host memory into a fresh buffer: the same bytes.
  std::vector<uint8_t> back(4096, 0);
  Tick r = 0;
  REQUIRE(p.move(back.data(), false, 4096, h.dma(), r));
  CHECK(back == buf);
  // A segment outside memory fails the move.
  REQUIRE(p.walk(0x10000, 0x90000, 8192, h.dma(), d) == 0);
  Tick f = 0;
  CHECK_FALSE(p.move(buf.data(), true, 8192, h.dma(), f));
}
