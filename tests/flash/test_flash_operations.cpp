// SPDX-License-Identifier: BSD-3-Clause
// Copy-back, cache read, program/erase suspend and power loss.
#include <cstring>

#include "tests/flash/FlashRig.hpp"

using namespace vp;
using namespace vp::test;
using Catch::Matchers::Contains;

TEST_CASE("copy-back moves data and spare area in the die in tR(source) + tPROG(destination)", "[flash][copyback]") {
  // tlc-fastdrain: source page 0 is LSB (tR 58 us), destination page 2 is MSB (tPROG 5 ms).
  FlashRig rig(Sets{{"ssd.flash.cell", "tlc-fastdrain"}, {"ssd.flash.block_size", "768KiB"},
                    {"ssd.flash.planes_per_die", "2"}});
  auto& p = rig.txn(FlashOp::Program, addr(0, 0, 1, 0, 0));
  for (uint32_t i = 0; i < 2048; ++i) p.data[i] = static_cast<uint8_t>(i * 7 + 1);
  p.oob = {77, 5};
  auto& cb = rig.txn(FlashOp::CopyBack, addr(0, 0, 1, 0, 0));
  cb.dst = addr(0, 0, 1, 1, 2);
  rig.submit(0, {&p, &cb});  // both are writes: first come first served

  auto& bad = rig.txn(FlashOp::CopyBack, addr(0, 0, 0, 0, 0));
  bad.dst = addr(0, 0, 1, 1, 2);
  CHECK_THROWS_WITH(rig.flash.submit(bad), Contains("same die and plane"));

  rig.run();
  Tick programmed = kCmd + kXfer2K + 560 * US;                // 562.595 us
  CHECK(p.finished == programmed);
  CHECK(cb.finished == programmed + 2 * kCmd + 58 * US + 5 * MS);  // 5620.665 us
  CHECK(cb.oob.lpn == 77);
  CHECK(cb.oob.seq == 5);
  const auto& g = rig.flash.geometry();
  std::vector<uint8_t> back(2048);
  flash::FlashOob oob;
  REQUIRE(rig.flash.peek(flash::ppn_of(g, cb.dst), back.data(), &oob));
  CHECK(std::memcmp(back.data(), p.data, 2048) == 0);
  CHECK(oob.lpn == 77);
  CHECK(rig.stats.value("ssd.flash.copybacks") == 1);
  CHECK(rig.stats.value("ssd.flash.reads_lsb") == 1);
  CHECK(rig.stats.value("ssd.flash.programs_msb") == 1);
  CHECK(rig.stats.value("ssd.flash.bus_bytes") == 2048);  // only the program's data crossed the bus
}

namespace {
// Five reads of one SLC die (tR 25 us) with 16 KiB pages: 16384 B / 800 MB/s
// = 20.48 us on the bus each. Returns their completion times.
std::vector<Tick> five_sequential_reads(const std::string& cache_read) {
  // (The server's rules want the NVMe LBA to be a whole page.)
  FlashRig rig(Sets{{"ssd.flash.cell", "slc"},
                    {"ssd.flash.page_size", "16KiB"},
                    {"ssd.nvme.lba_size", "16KiB"},
                    {"ssd.flash.cache_read", cache_read}});
  std::vector<FlashTransaction*> t;
  for (uint32_t i = 0; i < 5; ++i) t.push_back(&rig.txn(FlashOp::Read, addr(0, 0, 0, 0, i)));
  for (auto* x : t) rig.submit(0, {x});
  rig.run();
  std::vector<Tick> f;
  for (auto* x : t) f.push_back(x->finished);
  return f;
}
constexpr Tick kXfer16K = 20480 * NS;
}  // namespace

TEST_CASE("cache read overlaps the next tR with the data out of the last page", "[flash][cache]") {
  auto f = five_sequential_reads("true");
  // Read k's tR ends at k x (35 ns + 25 us): its data moves to the cache,
  // read k+1's command goes first (35 ns) and then the data (20.48 us <
  // 25 us, so the cache is free before the next tR ends): read k is out at
  // k x 25.035 + 0.035 + 20.48 us. The last read has no follower: its data
  // goes straight out at 5 x 25.035 + 20.48 us.
  for (Tick k = 1; k <= 4; ++k) CHECK(f[k - 1] == k * (kCmd + 25 * US) + kCmd + kXfer16K);
  CHECK(f[4] == 5 * (kCmd + 25 * US) + kXfer16K);
  CHECK(f[4] == 145655 * NS);
}

TEST_CASE("without cache read a die is busy until its data is out", "[flash][cache]") {
  auto f = five_sequential_reads("false");
  for (Tick k = 1; k <= 5; ++k) CHECK(f[k - 1] == k * (kCmd + 25 * US + kXfer16K));  // 45.515 us apart
  CHECK(f[4] == 227575 * NS);
}

namespace {
// An erase at 0 (array time from 35 ns to 1000.035 us), a read of another
// block of the die at 100 us.
struct EraseThenRead {
  Tick erase, read;
  uint64_t suspends;
};
EraseThenRead erase_then_read(const std::string& suspend) {
  FlashRig rig(Sets{{"ssd.flash.suspend", suspend}});
  auto& e = rig.txn(FlashOp::Erase, addr(0, 0, 0, 1, 0));
  auto& r = rig.txn(FlashOp::Read, addr(0, 0, 0, 2, 0));
  rig.submit(0, {&e});
  rig.submit(100 * US, {&r});
  rig.run();
  return {e.finished, r.finished, rig.stats.value("ssd.flash.suspends")};
}
}  // namespace

TEST_CASE("suspend lets a read pass an erase in its array time", "[flash][suspend]") {
  auto x = erase_then_read("true");
  // Suspended at 100 + 20 = 120 us with 1000.035 - 120 = 880.035 us left;
  // the read runs 120 -> 125.595 us; the erase resumes with 20 + 880.035 us.
  CHECK(x.read == 120 * US + kCmd + 3 * US + kXfer2K);  // 125.595 us
  CHECK(x.erase == x.read + 20 * US + 880035 * NS);    // 1025.63 us
  CHECK(x.suspends == 1);
}

TEST_CASE("without suspend the read waits for the erase", "[flash][suspend]") {
  auto x = erase_then_read("false");
  CHECK(x.erase == kCmd + 1 * MS);                   // 1000.035 us
  CHECK(x.read == x.erase + kCmd + 3 * US + kXfer2K);  // 1005.63 us
  CHECK(x.suspends == 0);
}

TEST_CASE("reads hold a suspended erase at most write_starvation in all", "[flash][suspend]") {
  FlashRig rig(Sets{{"ssd.flash.suspend", "true"}, {"ssd.flash.write_starvation", "10us"}});
  auto& e = rig.txn(FlashOp::Erase, addr(0, 0, 0, 1, 0));
  std::vector<FlashTransaction*> r;
  for (uint32_t b = 2; b <= 4; ++b) r.push_back(&rig.txn(FlashOp::Read, addr(0, 0, 0, b, 0)));
  rig.submit(0, {&e});
  rig.submit(100 * US, {r[0], r[1], r[2]});
  rig.run();
  // Suspended at 120 us with 880.035 us left. Read 1 ends at 125.595 us
  // (held 5.595 us < 10 us: go on), read 2 at 131.19 us (held 11.19 us:
  // enough), so the erase resumes: 131.19 + 20 + 880.035 = 1031.225 us.
  Tick read = kCmd + 3 * US + kXfer2K;
  CHECK(r[0]->finished == 120 * US + read);
  CHECK(r[1]->finished == 120 * US + 2 * read);
  CHECK(e.finished == r[1]->finished + 20 * US + 880035 * NS);
  // Read 3 waits for the erase and does not suspend it again.
  CHECK(r[2]->finished == e.finished + read);  // 1036.82 us
  CHECK(rig.stats.value("ssd.flash.suspends") == 1);
}

TEST_CASE("power loss drops operations in flight and queued, and the array works on", "[flash][power]") {
  FlashRig rig(Sets{{"ssd.flash.dies_per_package", "2"}});
  const auto& g = rig.flash.geometry();
  // Die 0: a program in its array time at the loss (it would end at
  // 102.595 us) and one queued behind it. Die 1: an erase of a block
  // holding a page, in its array time at the loss.
  auto& p = rig.txn(FlashOp::Program, addr(0, 0, 0, 0, 0));
  auto& q = rig.txn(FlashOp::Program, addr(0, 0, 0, 0, 1));
  auto& e = rig.txn(FlashOp::Erase, addr(0, 1, 0, 3, 0));
  uint64_t erased_page = flash::ppn_of(g, addr(0, 1, 0, 3, 4));
  uint64_t erased_block = erased_page / g.pages_per_block;
  rig.flash.preload_page(erased_page, {12, 1});
  rig.submit(0, {&p, &q, &e});
  rig.at(50 * US, [&] { rig.flash.power_loss(); });
  auto& after = rig.txn(FlashOp::Program, addr(0, 0, 0, 0, 2));
  after.oob = {9, 2};  // a page counts as programmed by its spare area
  rig.submit(60 * US, {&after});
  rig.run();

  REQUIRE(rig.done.size() == 1);
  CHECK(rig.done[0] == &after);
  CHECK(after.finished == 60 * US + kCmd + kXfer2K + 100 * US);  // 162.595 us: the die is free again
  CHECK_FALSE(rig.flash.peek(flash::ppn_of(g, p.addr), nullptr, nullptr));
  CHECK_FALSE(rig.flash.peek(flash::ppn_of(g, q.addr), nullptr, nullptr));
  CHECK(rig.flash.peek(flash::ppn_of(g, after.addr), nullptr, nullptr));
  CHECK_FALSE(rig.flash.peek(erased_page, nullptr, nullptr));
  CHECK(rig.flash.erase_count(erased_block) == 1);
  CHECK(rig.stats.value("ssd.flash.programs") == 1);
  CHECK(rig.stats.value("ssd.flash.erases") == 0);  // no erase completed
  // 2 dies x 1 plane x 16 blocks = 32 blocks; one erased once.
  auto ec = rig.flash.erase_counts();
  CHECK(ec.min == 0);
  CHECK(ec.max == 1);
  CHECK(ec.mean == Approx(1.0 / 32));
}

TEST_CASE("with cache read a finished read waits for the cache register to empty", "[flash][cache]") {
  // Z-NAND tR 3 us, 4 KiB pages: 4096 B / 800 MB/s = 5.12 us out, longer than tR.
  FlashRig rig(Sets{{"ssd.flash.page_size", "4KiB"}, {"ssd.flash.cache_read", "true"}});
  std::vector<FlashTransaction*> t;
  for (uint32_t i = 0; i < 3; ++i) t.push_back(&rig.txn(FlashOp::Read, addr(0, 0, 0, 0, i)));
  for (auto* x : t) rig.submit(0, {x});
  rig.run();
  constexpr Tick kXfer4K = 5120 * NS;
  // Read 1: command, tR to 3.035 us; read 2's command (to 3.07 us) goes
  // before read 1's data, out at 3.07 + 5.12 = 8.19 us.
  CHECK(t[0]->finished == 2 * kCmd + 3 * US + kXfer4K);
  // Read 2's tR ends at 6.07 us with the cache still full: it waits until
  // 8.19 us, then read 3's command (35 ns), then its data: 13.345 us.
  CHECK(t[1]->finished == t[0]->finished + kCmd + kXfer4K);
  // Read 3 (tR done at 11.225 us) waits for 13.345 us; no command follows.
  CHECK(t[2]->finished == t[1]->finished + kXfer4K);  // 18.465 us
}

TEST_CASE("power loss cuts a data transfer and frees the bus at once", "[flash][power]") {
  // SLC (tR 25 us), 16 KiB pages: 20.48 us on the bus each.
  FlashRig rig(Sets{{"ssd.flash.cell", "slc"}, {"ssd.flash.page_size", "16KiB"}, {"ssd.nvme.lba_size", "16KiB"}});
  auto& lost = rig.txn(FlashOp::Read, addr(0, 0, 0, 0, 0));
  auto& next = rig.txn(FlashOp::Read, addr(0, 0, 0, 0, 1));
  rig.submit(0, {&lost});
  rig.at(30 * US, [&] { rig.flash.power_loss(); });  // the data has been leaving since 25.035 us
  rig.submit(40 * US, {&next});
  rig.run();
  REQUIRE(rig.done.size() == 1);
  CHECK(rig.done[0] == &next);
  // The new read's command does not wait for the cut transfer's planned end (45.515 us).
  CHECK(next.finished == 40 * US + kCmd + 25 * US + 20480 * NS);  // 85.515 us
  // Bus: the lost read's command, 4.965 us of its data, then the new read's command and data.
  CHECK(rig.flash.channel_busy(0) == kCmd + (30 * US - 25035 * NS) + kCmd + 20480 * NS);
}
