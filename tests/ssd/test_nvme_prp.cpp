// SPDX-License-Identifier: BSD-3-Clause
// Every PRP layout of NVMe 1.4 section 4.3 moves exactly the right bytes.
// A strict host lays out PRP1, PRP2 and PRP lists by hand in an arena of host
// memory filled with guard bytes, writes distinct data through one layout and
// reads it back through another, so both directions are checked. After each
// command the whole arena must hold exactly what it should (guard bytes
// around and between the pages untouched), and the PCIe analyzer must have
// seen every data byte move once, to the pages the PRPs name and nowhere else.
// Segment lengths are worked out by hand in the comments (4 KiB memory pages,
// CC.MPS = 0; quick preset: 4 KiB LBAs, MDTS 5 = 128 KiB).
#include <algorithm>

#include "NvmeRig.hpp"

using namespace vp;
using namespace vp::nvme;
using vp::test::NvmeRig;
using vp::test::with_rig;

namespace {
constexpr uint64_t kPage = 4096;
constexpr uint8_t kGuard = 0xEE;              // every arena byte the command must not touch
constexpr uint64_t kNoMemory = 0x80000000ull;  // the first byte past the 2 GiB of host DRAM

struct Seg {
  uint64_t addr, len;
};
// One command's PRPs as the test lays them out: PRP1, PRP2, where the
// transfer's bytes are in transfer order, and the PRP list pieces (address of
// the first entry, entries) the host writes to memory.
struct Layout {
  uint64_t prp1 = 0, prp2 = 0;
  std::vector<Seg> data;
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> lists;
};
// Host memory holding a test's data pages and lists.
struct Arena {
  uint64_t base, bytes;
  uint64_t page(uint64_t k) const { return base + k * kPage; }
};

// Byte `i` of the transfer tagged `seed`: a multiplicative hash, so a shift by
// any number of bytes, a swapped page or another test's data shows.
uint8_t pattern(uint32_t seed, uint64_t i) {
  return static_cast<uint8_t>(((i + 0x10001ull * seed) * 2654435761ull) >> 24);
}

NvmeRig::Queue bring_up(NvmeRig& r) {
  r.pci_enable();
  REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
  return r.create_pair(1, 16, 1);
}

uint64_t total(const Layout& l) {
  uint64_t n = 0;
  for (const auto& s : l.data) n += s.len;
  return n;
}

// Guard bytes over the arena, then the layout's PRP lists.
void lay_out(NvmeRig& r, const Arena& a, const Layout& l) {
  std::memset(r.mem(a.base), kGuard, a.bytes);
  for (const auto& [at, entries] : l.lists) std::memcpy(r.mem(at), entries.data(), entries.size() * 8);
}

std::vector<uint8_t> snapshot(NvmeRig& r, const Arena& a) { return {r.mem(a.base), r.mem(a.base) + a.bytes}; }

// Offset into the arena of the first byte that differs from `want`, or -1.
int64_t first_difference(NvmeRig& r, const Arena& a, const std::vector<uint8_t>& want) {
  auto m = std::mismatch(want.begin(), want.end(), r.mem(a.base));
  return m.first == want.end() ? -1 : m.first - want.begin();
}

// Sorted, with touching ranges merged.
std::vector<Seg> merge(std::vector<Seg> s) {
  std::sort(s.begin(), s.end(), [](const Seg& x, const Seg& y) { return x.addr < y.addr; });
  std::vector<Seg> out;
  for (const auto& x : s) {
    if (!out.empty() && out.back().addr + out.back().len >= x.addr)
      out.back().len = std::max(out.back().len, x.addr + x.len - out.back().addr);
    else
      out.push_back(x);
  }
  return out;
}
// The ranges as arena offsets, flattened for Catch to print: {offset, length, ...}.
std::vector<uint64_t> coverage(const std::vector<Seg>& s, const Arena& a) {
  std::vector<uint64_t> v;
  for (const auto& x : merge(s)) {
    v.push_back(x.addr - a.base);
    v.push_back(x.len);
  }
  return v;
}
bool inside(const Seg& s, const std::vector<Seg>& areas) {
  for (const auto& x : merge(areas))
    if (s.addr >= x.addr && s.addr + s.len <= x.addr + x.len) return true;
  return false;
}

// What the device did in the arena since upstream access `from`: data moved in
// the command's direction only to the layout's pages, each byte once; reads
// elsewhere only of the PRP lists (from a piece's first entry to the end of
// its page: fetching the rest of a list page is harmless); nothing else.
void check_traffic(NvmeRig& r, size_t from, const Arena& a, const Layout& l, bool to_host) {
  std::vector<Seg> windows, data, stray;
  for (const auto& [at, entries] : l.lists) windows.push_back({at, kPage - at % kPage});
  uint64_t moved = 0;
  for (size_t i = from; i < r.upstream.size(); ++i) {
    const auto& x = r.upstream[i];
    if (x.addr + x.len <= a.base || x.addr >= a.base + a.bytes) continue;  // queues, interrupts
    Seg s{x.addr, x.len};
    if (x.write == to_host && inside(s, l.data)) {
      data.push_back(s);
      moved += s.len;
    } else if (!x.write && inside(s, windows)) {
      continue;
    } else {
      stray.push_back(s);
    }
  }
  CHECK(coverage(stray, a).empty());
  CHECK(coverage(data, a) == coverage(l.data, a));
  CHECK(moved == total(l));
}

Cqe run(NvmeRig& r, NvmeRig::Queue& q, uint8_t op, uint64_t slba, uint32_t nlb, uint64_t prp1, uint64_t prp2) {
  r.push(q, NvmeRig::io(op, slba, nlb, prp1, prp2));
  Cqe e{};
  REQUIRE(r.reap(q, e, 1 * SEC));
  return e;
}

// Writes `nlb` LBAs from `slba` with data `seed` through layout `l`.
void write_through(NvmeRig& r, NvmeRig::Queue& q, const Arena& a, uint64_t slba, uint32_t nlb, const Layout& l,
                   uint32_t seed) {
  REQUIRE(total(l) == nlb * kPage);  // the hand-made segments cover the transfer
  lay_out(r, a, l);
  uint64_t i = 0;
  for (const auto& s : l.data)
    for (uint64_t k = 0; k < s.len; ++k) *r.mem(s.addr + k) = pattern(seed, i++);
  auto before = snapshot(r, a);
  size_t from = r.upstream.size();
  CHECK(run(r, q, IO_WRITE, slba, nlb, l.prp1, l.prp2).status() == 0);
  CHECK(first_difference(r, a, before) == -1);  // a write only reads host memory
  check_traffic(r, from, a, l, false);
}

// Reads them back through layout `l`: the data lands in its segments, every
// other arena byte keeps its guard (or list) value.
void read_back(NvmeRig& r, NvmeRig::Queue& q, const Arena& a, uint64_t slba, uint32_t nlb, const Layout& l,
               uint32_t seed) {
  REQUIRE(total(l) == nlb * kPage);
  lay_out(r, a, l);
  auto want = snapshot(r, a);
  uint64_t i = 0;
  for (const auto& s : l.data)
    for (uint64_t k = 0; k < s.len; ++k) want[s.addr - a.base + k] = pattern(seed, i++);
  size_t from = r.upstream.size();
  CHECK(run(r, q, IO_READ, slba, nlb, l.prp1, l.prp2).status() == 0);
  CHECK(first_difference(r, a, want) == -1);
  check_traffic(r, from, a, l, true);
}

// A command refused for its PRPs: exact status, and the arena untouched (the
// PRPs are checked before any data moves).
void refused(NvmeRig& r, NvmeRig::Queue& q, const Arena& a, uint8_t op, uint64_t slba, uint32_t nlb, const Layout& l,
             uint8_t want_sc, bool untouched = true) {
  lay_out(r, a, l);
  auto before = snapshot(r, a);
  Cqe e = run(r, q, op, slba, nlb, l.prp1, l.prp2);
  CHECK(status_sct(e.status()) == SCT_GENERIC);
  CHECK(status_sc(e.status()) == want_sc);
  if (want_sc == SC_PRP_OFFSET_INVALID) CHECK((e.status() >> 14 & 1) == 1);  // DNR: the same PRPs fail again
  if (untouched) CHECK(first_difference(r, a, before) == -1);
}
}  // namespace

TEST_CASE("PRP1 page aligned moves one 4 KiB LBA and reads back at a dword offset", "[ssd][nvme][prp]") {
  with_rig([](NvmeRig& r) {
    auto q = bring_up(r);
    Arena a{r.alloc(16 * kPage), 16 * kPage};
    Layout w;  // the whole LBA in page 3; pages 2 and 4 around it are guards
    w.prp1 = a.page(3);
    w.data = {{a.page(3), 4096}};
    write_through(r, q, a, 10, 1, w, 1);
    Layout rd;  // PRP1 at +4: 4096 - 4 = 4092 bytes there, the last 4 at the start of PRP2's page 6
    rd.prp1 = a.page(9) + 4;
    rd.prp2 = a.page(6);
    rd.data = {{a.page(9) + 4, 4092}, {a.page(6), 4}};
    read_back(r, q, a, 10, 1, rd, 1);
    // Spot checks by hand: transfer byte 4092 is the first byte of page 6; page 9's first 4 bytes are guards.
    CHECK(*r.mem(a.page(6)) == pattern(1, 4092));
    CHECK(*r.mem(a.page(6) + 4) == kGuard);
    CHECK(*r.mem(a.page(9) + 3) == kGuard);
    CHECK(*r.mem(a.page(9) + 4) == pattern(1, 0));
  });
}

TEST_CASE("PRP1 with an offset splits a 4 KiB transfer between its page and PRP2's page", "[ssd][nvme][prp]") {
  with_rig([](NvmeRig& r) {
    auto q = bring_up(r);
    Arena a{r.alloc(16 * kPage), 16 * kPage};
    Layout w;  // +0x200: 4096 - 512 = 3584 bytes in page 5, 4096 - 3584 = 512 in page 2 (below PRP1 in memory)
    w.prp1 = a.page(5) + 0x200;
    w.prp2 = a.page(2);
    w.data = {{a.page(5) + 0x200, 3584}, {a.page(2), 512}};
    write_through(r, q, a, 20, 1, w, 2);
    Layout aligned;  // back into one aligned page
    aligned.prp1 = a.page(8);
    aligned.data = {{a.page(8), 4096}};
    read_back(r, q, a, 20, 1, aligned, 2);
    Layout last;  // the last dword of a page: 4 bytes at 0xFFC, 4092 in page 13
    last.prp1 = a.page(11) + 0xFFC;
    last.prp2 = a.page(13);
    last.data = {{a.page(11) + 0xFFC, 4}, {a.page(13), 4092}};
    read_back(r, q, a, 20, 1, last, 2);
    CHECK(*r.mem(a.page(13) + 4091) == pattern(2, 4095));
    CHECK(*r.mem(a.page(13) + 4092) == kGuard);
  });
}

TEST_CASE("two pages: 8 KiB through PRP1 and a distant PRP2 page then back through an offset PRP1 and a list",
          "[ssd][nvme][prp]") {
  with_rig([](NvmeRig& r) {
    auto q = bring_up(r);
    Arena a{r.alloc(16 * kPage), 16 * kPage};
    Layout w;  // PRP1 page 7, PRP2 page 1: not contiguous, and below PRP1
    w.prp1 = a.page(7);
    w.prp2 = a.page(1);
    w.data = {{a.page(7), 4096}, {a.page(1), 4096}};
    write_through(r, q, a, 30, 2, w, 3);
    // PRP1 at +0x800 holds 4096 - 2048 = 2048 bytes; 8192 - 2048 = 6144 remain,
    // which cross a second page boundary: PRP2 must be a list, of
    // ceil(6144 / 4096) = 2 entries: 4096 bytes in page 12, 2048 in page 4.
    Layout rd;
    rd.prp1 = a.page(10) + 0x800;
    rd.prp2 = a.page(14);
    rd.lists = {{a.page(14), {a.page(12), a.page(4)}}};
    rd.data = {{a.page(10) + 0x800, 2048}, {a.page(12), 4096}, {a.page(4), 2048}};
    read_back(r, q, a, 30, 2, rd, 3);
  });
}

TEST_CASE("a PRP list of four scattered pages moves 20 KiB in list order", "[ssd][nvme][prp]") {
  with_rig([](NvmeRig& r) {
    auto q = bring_up(r);
    Arena a{r.alloc(24 * kPage), 24 * kPage};
    // 5 pages: PRP1 (page 9) and a list of 4 at page 2 + 0x100, out of memory order.
    Layout w;
    w.prp1 = a.page(9);
    w.prp2 = a.page(2) + 0x100;
    w.lists = {{a.page(2) + 0x100, {a.page(6), a.page(1), a.page(8), a.page(3)}}};
    w.data = {{a.page(9), 4096}, {a.page(6), 4096}, {a.page(1), 4096}, {a.page(8), 4096}, {a.page(3), 4096}};
    write_through(r, q, a, 40, 5, w, 4);
    // Back with PRP1 at +0x10: 4096 - 16 = 4080 bytes there, 20480 - 4080 =
    // 16400 = 4 * 4096 + 16 left: 5 entries, the last holding 16 bytes. The
    // list starts at 0x7F8 of page 15: room for (4096 - 2040) / 8 = 257 entries.
    Layout rd;
    rd.prp1 = a.page(20) + 0x10;
    rd.prp2 = a.page(15) + 0x7F8;
    rd.lists = {{a.page(15) + 0x7F8, {a.page(17), a.page(12), a.page(19), a.page(11), a.page(14)}}};
    rd.data = {{a.page(20) + 0x10, 4080}, {a.page(17), 4096}, {a.page(12), 4096},
               {a.page(19), 4096},        {a.page(11), 4096}, {a.page(14), 16}};
    read_back(r, q, a, 40, 5, rd, 4);
    // Page order is list order: transfer byte 4080 + 4096 = 8176 starts page 12.
    CHECK(*r.mem(a.page(12)) == pattern(4, 8176));
  });
}

TEST_CASE("a PRP list that starts near the end of its page chains to a second list page for 128 KiB",
          "[ssd][nvme][prp]") {
  with_rig([](NvmeRig& r) {
    auto q = bring_up(r);
    Arena a{r.alloc(168 * kPage), 168 * kPage};
    // 128 KiB = 32 pages: PRP1 (page 40) and 31 list entries. The list starts
    // at 0xFF0 of page 1: room for (4096 - 4080) / 8 = 2 entries, fewer than
    // 31, so the first is data (page 41) and the second, the last of the
    // page, points to the next list page (page 2) holding the other 30:
    // pages 71, 70, ..., 42, in descending memory order.
    Layout w;
    w.prp1 = a.page(40);
    w.prp2 = a.page(1) + 0xFF0;
    std::vector<uint64_t> second;
    for (uint64_t p = 71; p >= 42; --p) second.push_back(a.page(p));
    REQUIRE(second.size() == 30);
    w.lists = {{a.page(1) + 0xFF0, {a.page(41), a.page(2)}}, {a.page(2), second}};
    w.data = {{a.page(40), 4096}, {a.page(41), 4096}};
    for (uint64_t p : second) w.data.push_back({p, 4096});
    write_through(r, q, a, 64, 32, w, 5);
    // Back through one list page at offset 0 (31 entries, room for 512) naming
    // every other page, 101, 103, ..., 161, with a guard page between each.
    Layout rd;
    rd.prp1 = a.page(100);
    rd.prp2 = a.page(3);
    std::vector<uint64_t> entries;
    for (uint64_t p = 101; p <= 161; p += 2) entries.push_back(a.page(p));
    REQUIRE(entries.size() == 31);
    rd.lists = {{a.page(3), entries}};
    rd.data = {{a.page(100), 4096}};
    for (uint64_t p : entries) rd.data.push_back({p, 4096});
    read_back(r, q, a, 64, 32, rd, 5);
    // Page 105 is the read's 4th page (100, 101, 103, 105): it starts at transfer byte 3 * 4096 = 12288.
    CHECK(*r.mem(a.page(105)) == pattern(5, 12288));
    CHECK(*r.mem(a.page(104)) == kGuard);
  });
}

TEST_CASE("the maximum transfer at a PRP1 offset touches 33 pages and reads back through a chained list",
          "[ssd][nvme][prp]") {
  with_rig([](NvmeRig& r) {
    auto q = bring_up(r);
    Arena a{r.alloc(240 * kPage), 240 * kPage};
    // 128 KiB (MDTS 5 = 4096 << 5) at PRP1 + 0x800: 2048 bytes in page 10,
    // 131072 - 2048 = 129024 = 31 * 4096 + 2048 left: 32 entries. The list at
    // 0xF00 of page 1 has room for (4096 - 3840) / 8 = 32: exactly enough, so
    // its last slot (0xFF8) is a data page, not a chain pointer. Entries name
    // pages 11, 13, ..., 73; the last holds 2048 bytes. 1 + 32 = 33 pages.
    Layout w;
    w.prp1 = a.page(10) + 0x800;
    w.prp2 = a.page(1) + 0xF00;
    std::vector<uint64_t> entries;
    for (uint64_t p = 11; p <= 73; p += 2) entries.push_back(a.page(p));
    REQUIRE(entries.size() == 32);
    w.lists = {{a.page(1) + 0xF00, entries}};
    w.data = {{a.page(10) + 0x800, 2048}};
    for (uint64_t p = 11; p <= 71; p += 2) w.data.push_back({a.page(p), 4096});
    w.data.push_back({a.page(73), 2048});
    write_through(r, q, a, 128, 32, w, 6);
    // Back at PRP1 + 0x404: 4096 - 1028 = 3068 bytes in page 200, 131072 -
    // 3068 = 128004 = 31 * 4096 + 1028 left: 32 entries. The list at 0xFE8 of
    // page 2 has room for (4096 - 4072) / 8 = 3: pages 201 and 202, then the
    // pointer to page 3, which lists 203, ..., 232; page 232 holds 1028 bytes.
    Layout rd;
    rd.prp1 = a.page(200) + 0x404;
    rd.prp2 = a.page(2) + 0xFE8;
    std::vector<uint64_t> rest;
    for (uint64_t p = 203; p <= 232; ++p) rest.push_back(a.page(p));
    REQUIRE(rest.size() == 30);
    rd.lists = {{a.page(2) + 0xFE8, {a.page(201), a.page(202), a.page(3)}}, {a.page(3), rest}};
    rd.data = {{a.page(200) + 0x404, 3068}};
    for (uint64_t p = 201; p <= 231; ++p) rd.data.push_back({a.page(p), 4096});
    rd.data.push_back({a.page(232), 1028});
    read_back(r, q, a, 128, 32, rd, 6);
    // The last byte, 131071, is at page 232 + 1027; page 232 + 1028 is a guard.
    CHECK(*r.mem(a.page(232) + 1027) == pattern(6, 131071));
    CHECK(*r.mem(a.page(232) + 1028) == kGuard);
  });
}

TEST_CASE("with MDTS 10 a 4 MiB transfer chains across three list pages and back across two",
          "[ssd][nvme][prp]") {
  with_rig(
      [](NvmeRig& r) {
        auto q = bring_up(r);
        // Data pages at 8..1031 for the write, 1040..2063 for the read; lists in pages 1..5.
        Arena a{r.alloc(2064 * kPage), 2064 * kPage};
        // 4 MiB = 1024 pages: PRP1 and 1023 entries. List 1 at 0xFF0 of page 1:
        // room 2, one entry + chain. List 2 (page 2): room 512 < 1022 left, so
        // 511 entries + chain. List 3 (page 3): the last 1023 - 1 - 511 = 511.
        // The data pages run downwards in memory: transfer page k is page 1031 - k.
        auto wpage = [&](uint64_t k) { return a.page(1031 - k); };
        Layout w;
        w.prp1 = wpage(0);
        w.prp2 = a.page(1) + 0xFF0;
        std::vector<uint64_t> l2, l3;
        for (uint64_t k = 2; k <= 512; ++k) l2.push_back(wpage(k));
        l2.push_back(a.page(3));
        for (uint64_t k = 513; k <= 1023; ++k) l3.push_back(wpage(k));
        REQUIRE(l2.size() == 512);
        REQUIRE(l3.size() == 511);
        w.lists = {{a.page(1) + 0xFF0, {wpage(1), a.page(2)}}, {a.page(2), l2}, {a.page(3), l3}};
        for (uint64_t k = 0; k < 1024; ++k) w.data.push_back({wpage(k), 4096});
        write_through(r, q, a, 256, 1024, w, 7);
        // Back with a list at offset 0 of page 4: 511 entries + chain to page 5,
        // which holds the remaining 1023 - 511 = 512: exactly a full page, no chain.
        auto rpage = [&](uint64_t k) { return a.page(1040 + k); };
        Layout rd;
        rd.prp1 = rpage(0);
        rd.prp2 = a.page(4);
        std::vector<uint64_t> l4, l5;
        for (uint64_t k = 1; k <= 511; ++k) l4.push_back(rpage(k));
        l4.push_back(a.page(5));
        for (uint64_t k = 512; k <= 1023; ++k) l5.push_back(rpage(k));
        REQUIRE(l5.size() == 512);
        rd.lists = {{a.page(4), l4}, {a.page(5), l5}};
        for (uint64_t k = 0; k < 1024; ++k) rd.data.push_back({rpage(k), 4096});
        read_back(r, q, a, 256, 1024, rd, 7);
      },
      {{"ssd.nvme.mdts", "10"}});
}

TEST_CASE("PRP offsets the specification forbids complete with PRP Offset Invalid and move nothing",
          "[ssd][nvme][prp][errors]") {
  with_rig([](NvmeRig& r) {
    auto q = bring_up(r);
    Arena a{r.alloc(16 * kPage), 16 * kPage};
    Layout l;
    // PRP1 bits 1:0 must be zero: +0x202 is not dword aligned.
    l.prp1 = a.page(1) + 0x202;
    refused(r, q, a, IO_READ, 0, 1, l, SC_PRP_OFFSET_INVALID);
    // 4 KiB at PRP1 + 0x200 ends in the next page: PRP2 is that page and must have offset 0.
    l = Layout{};
    l.prp1 = a.page(1) + 0x200;
    l.prp2 = a.page(2) + 0x200;
    refused(r, q, a, IO_READ, 0, 1, l, SC_PRP_OFFSET_INVALID);
    // 8 KiB from an aligned PRP1 crosses one boundary: PRP2 is a data page,
    // not a list, so the qword-aligned +8 is still a bad offset.
    l.prp1 = a.page(1);
    l.prp2 = a.page(2) + 8;
    refused(r, q, a, IO_READ, 0, 2, l, SC_PRP_OFFSET_INVALID);
    // 20 KiB: the third list entry is page 5 + 0x10.
    l.prp2 = a.page(3);
    l.lists = {{a.page(3), {a.page(4), a.page(6), a.page(5) + 0x10, a.page(7)}}};
    refused(r, q, a, IO_READ, 0, 5, l, SC_PRP_OFFSET_INVALID);
    refused(r, q, a, IO_WRITE, 0, 5, l, SC_PRP_OFFSET_INVALID);  // and the same list for a write
    // The list pointer must be qword aligned: +4 is not.
    l.prp2 = a.page(3) + 4;
    l.lists = {{a.page(3) + 4, {a.page(4), a.page(6), a.page(5), a.page(7)}}};
    refused(r, q, a, IO_READ, 0, 5, l, SC_PRP_OFFSET_INVALID);
  });
}

// The pointer to the next list page is itself an entry of a PRP list, and
// "PRP entries contained within a PRP List shall have a memory page offset of
// 0h" (NVMe 1.4, 4.3): one at +8 is a PRP Offset Invalid.
TEST_CASE("a chained PRP list pointer with an offset is PRP Offset Invalid", "[ssd][nvme][prp][errors]") {
  with_rig([](NvmeRig& r) {
    auto q = bring_up(r);
    Arena a{r.alloc(40 * kPage), 40 * kPage};
    // 128 KiB: PRP1 page 4, list at 0xFF0 of page 1 (room 2): page 5, then the
    // chain pointer page 2 + 8, where the other 30 entries (pages 6..35) are.
    Layout l;
    l.prp1 = a.page(4);
    l.prp2 = a.page(1) + 0xFF0;
    std::vector<uint64_t> rest;
    for (uint64_t p = 6; p <= 35; ++p) rest.push_back(a.page(p));
    l.lists = {{a.page(1) + 0xFF0, {a.page(5), a.page(2) + 8}}, {a.page(2) + 8, rest}};
    refused(r, q, a, IO_READ, 0, 32, l, SC_PRP_OFFSET_INVALID);
  });
}

TEST_CASE("PRPs that point past host memory complete with Data Transfer Error", "[ssd][nvme][prp][errors]") {
  with_rig([](NvmeRig& r) {
    auto q = bring_up(r);
    Arena a{r.alloc(16 * kPage), 16 * kPage};
    // Host DRAM is 2 GiB at 0: page 0x80000000 does not exist, and the bus
    // answers the device's access with an error. The PRPs themselves are well
    // formed, so the failure is in moving data: Data Transfer Error (04h).
    Layout l;
    l.prp1 = kNoMemory;  // a write's only page cannot be read
    refused(r, q, a, IO_WRITE, 0, 1, l, SC_DATA_TRANSFER_ERROR);
    l.prp1 = a.page(1);  // a read's second page cannot be written (the first may have been: not checked)
    l.prp2 = kNoMemory;
    refused(r, q, a, IO_READ, 0, 2, l, SC_DATA_TRANSFER_ERROR, false);
    l.prp2 = kNoMemory;  // 20 KiB: the PRP list itself cannot be fetched; nothing moves
    refused(r, q, a, IO_READ, 0, 5, l, SC_DATA_TRANSFER_ERROR);
    // 128 KiB: the first list page is fine, its chain pointer leads past memory.
    l.prp2 = a.page(2) + 0xFF0;
    l.lists = {{a.page(2) + 0xFF0, {a.page(3), kNoMemory}}};
    refused(r, q, a, IO_READ, 0, 32, l, SC_DATA_TRANSFER_ERROR);
    // The controller still works: one good command after the errors.
    Layout ok;
    ok.prp1 = a.page(8);
    ok.data = {{a.page(8), 4096}};
    write_through(r, q, a, 0, 1, ok, 8);
    read_back(r, q, a, 0, 1, ok, 8);
  });
}
