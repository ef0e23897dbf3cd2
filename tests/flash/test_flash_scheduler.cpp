// SPDX-License-Identifier: BSD-3-Clause
// The channel and its scheduler: die interleaving, read-first order, write
// starvation, multi-plane operations. Default cell: Z-NAND, tR 3 us, tPROG
// 100 us, tBERS 1 ms; so on an idle die a read holds it for
// 35 ns + 3 us + 2.56 us = 5.595 us and a program for 35 ns + 2.56 us + 100 us
// = 102.595 us.
#include "tests/flash/FlashRig.hpp"

using namespace vp;
using namespace vp::test;

namespace {
constexpr Tick kRead = kCmd + 3 * US + kXfer2K;     // 5.595 us
constexpr Tick kProg = kCmd + kXfer2K + 100 * US;   // 102.595 us
constexpr Tick kErase = kCmd + 1 * MS;              // 1000.035 us
}  // namespace

TEST_CASE("two dies on one channel overlap array time with bus time", "[flash][channel]") {
  FlashRig rig(Sets{{"ssd.flash.dies_per_package", "2"}});
  auto& a = rig.txn(FlashOp::Read, addr(0, 0, 0, 0, 0));
  auto& b = rig.txn(FlashOp::Read, addr(0, 1, 0, 0, 0));
  rig.submit(0, {&a, &b});
  rig.run();
  // Die 0: command [0, 35ns], tR to 3.035 us, data out to 5.595 us.
  CHECK(a.finished == kCmd + 3 * US + kXfer2K);
  // Die 1: command waits for die 0's [35, 70 ns], tR to 3.07 us overlaps die
  // 0's, then its data waits for the bus until 5.595 us: out at 8.155 us.
  CHECK(b.finished == kCmd + 3 * US + 2 * kXfer2K);
  // Bus: two commands and two pages: 2 x 35 ns + 2 x 2.56 us = 5.19 us.
  CHECK(rig.flash.channel_busy(0) == 2 * kCmd + 2 * kXfer2K);
  // Each die is busy from its choice at 0 until its data is out.
  CHECK(rig.flash.die_busy(0, 0) == 5595 * NS);
  CHECK(rig.flash.die_busy(0, 1) == 8155 * NS);
  CHECK(rig.stats.value("ssd.flash.ch0.bus_busy") == 5190 * NS);
  CHECK(rig.flash.channel_utilisation(0) == Approx(5.19 / 8.155));
  CHECK(rig.flash.die_utilisation(0, 0) == Approx(5.595 / 8.155));
  CHECK(rig.flash.die_utilisation(0, 1) == Approx(1.0));
}

namespace {
// Submitted together, in this order: an erase, a background program, a
// background read, a foreground program, a foreground read (one plane: no
// joining). Returns them in that order.
std::vector<FlashTransaction*> mixed_queue(FlashRig& rig) {
  std::vector<FlashTransaction*> t = {
      &rig.txn(FlashOp::Erase, addr(0, 0, 0, 1, 0)),         &rig.txn(FlashOp::Program, addr(0, 0, 0, 2, 0), true),
      &rig.txn(FlashOp::Read, addr(0, 0, 0, 3, 0), true),    &rig.txn(FlashOp::Program, addr(0, 0, 0, 2, 1)),
      &rig.txn(FlashOp::Read, addr(0, 0, 0, 3, 1))};
  rig.submit(0, {t[0], t[1], t[2], t[3], t[4]});
  return t;
}
}  // namespace

TEST_CASE("read_first serves foreground reads, programs, then background, then erases", "[flash][scheduler]") {
  FlashRig rig(Sets{});
  auto t = mixed_queue(rig);
  rig.run();
  REQUIRE(rig.done.size() == 5);
  // Order: foreground read, foreground program, background read, background program, erase.
  CHECK(t[4]->finished == kRead);                                // 5.595 us
  CHECK(t[3]->finished == kRead + kProg);                        // 108.19 us
  CHECK(t[2]->finished == 2 * kRead + kProg);                    // 113.785 us
  CHECK(t[1]->finished == 2 * kRead + 2 * kProg);                // 216.38 us
  CHECK(t[0]->finished == 2 * kRead + 2 * kProg + kErase);       // 1216.415 us
}

TEST_CASE("fifo serves a die's transactions in arrival order", "[flash][scheduler]") {
  FlashRig rig(Sets{{"ssd.flash.scheduler", "fifo"}});
  auto t = mixed_queue(rig);
  rig.run();
  REQUIRE(rig.done.size() == 5);
  CHECK(t[0]->finished == kErase);                                // 1000.035 us
  CHECK(t[1]->finished == kErase + kProg);                        // 1102.63 us
  CHECK(t[2]->finished == kErase + kProg + kRead);                // 1108.225 us
  CHECK(t[3]->finished == kErase + 2 * kProg + kRead);            // 1210.82 us
  CHECK(t[4]->finished == kErase + 2 * kProg + 2 * kRead);        // 1216.415 us
}

namespace {
// One program among 41 reads of one die, all submitted at 0: read 0, the
// program, reads 1..40. Returns the program; reads are rig.done minus it.
FlashTransaction& program_among_reads(FlashRig& rig) {
  auto& r0 = rig.txn(FlashOp::Read, addr(0, 0, 0, 0, 0));
  auto& p = rig.txn(FlashOp::Program, addr(0, 0, 0, 1, 0));
  rig.submit(0, {&r0, &p});
  for (uint32_t i = 1; i <= 40; ++i) rig.submit(0, {&rig.txn(FlashOp::Read, addr(0, 0, 0, 0, i))});
  return p;
}
}  // namespace

TEST_CASE("a program waiting past write_starvation goes before waiting reads", "[flash][scheduler]") {
  FlashRig rig(Sets{{"ssd.flash.write_starvation", "20us"}});
  auto& p = program_among_reads(rig);
  rig.run();
  REQUIRE(rig.done.size() == 42);
  // The die frees every 5.595 us: at 5.595, 11.19, 16.785 the program has
  // waited less than 20 us and a read goes; at 22.38 us it has waited longer.
  CHECK(p.finished == 4 * kRead + kProg);  // 124.975 us
  CHECK(rig.done[4] == &p);
  CHECK(rig.done[5]->finished == 5 * kRead + kProg);  // read 4: 130.57 us
}

TEST_CASE("under the default 1ms starvation limit 41 reads all pass a program", "[flash][scheduler]") {
  FlashRig rig(Sets{});
  auto& p = program_among_reads(rig);
  rig.run();
  // 41 reads x 5.595 us = 229.395 us < 1 ms, then the program.
  CHECK(p.finished == 41 * kRead + kProg);  // 331.99 us
  CHECK(rig.done.back() == &p);
}

namespace {
// Four programs of block 5 page 7 on planes 0-3, then one of page 8 on
// plane 0, all at 0 on one die.
std::vector<FlashTransaction*> four_planes_and_one(FlashRig& rig) {
  std::vector<FlashTransaction*> t;
  for (uint32_t pl = 0; pl < 4; ++pl) t.push_back(&rig.txn(FlashOp::Program, addr(0, 0, pl, 5, 7)));
  t.push_back(&rig.txn(FlashOp::Program, addr(0, 0, 0, 5, 8)));
  for (auto* x : t) rig.submit(0, {x});
  return t;
}
}  // namespace

TEST_CASE("a multi-plane program sends each plane's data then pays tPROG once", "[flash][multiplane]") {
  FlashRig rig(Sets{{"ssd.flash.planes_per_die", "4"}});
  auto t = four_planes_and_one(rig);
  rig.run();
  // 4 x (35 ns + 2.56 us) = 10.38 us on the bus, then 100 us: 110.38 us.
  Tick joined = 4 * (kCmd + kXfer2K) + 100 * US;
  for (int i = 0; i < 4; ++i) CHECK(t[i]->finished == joined);
  // Page 8 differs: it runs alone after them.
  CHECK(t[4]->finished == joined + kProg);  // 212.975 us
  CHECK(rig.stats.value("ssd.flash.multiplane_ops") == 1);
  CHECK(rig.stats.value("ssd.flash.programs") == 5);
  CHECK(rig.stats.value("ssd.flash.bus_bytes") == 5 * 2048);
}

TEST_CASE("without multiplane the same programs run one by one", "[flash][multiplane]") {
  FlashRig rig(Sets{{"ssd.flash.planes_per_die", "4"}, {"ssd.flash.multiplane", "false"}});
  auto t = four_planes_and_one(rig);
  rig.run();
  for (int i = 0; i < 5; ++i) CHECK(t[i]->finished == Tick(i + 1) * kProg);  // 102.595 us apart
  CHECK(rig.stats.value("ssd.flash.multiplane_ops") == 0);
}

TEST_CASE("a multi-plane read pays tR once and sends each plane's data out", "[flash][multiplane]") {
  FlashRig rig(Sets{{"ssd.flash.planes_per_die", "2"}});
  auto& a = rig.txn(FlashOp::Read, addr(0, 0, 0, 4, 9));
  auto& b = rig.txn(FlashOp::Read, addr(0, 0, 1, 4, 9));
  rig.submit(0, {&a, &b});
  rig.run();
  // Two planes' commands (70 ns), one tR (3 us), then 2.56 us of data each.
  CHECK(a.finished == 2 * kCmd + 3 * US + kXfer2K);      // 5.63 us
  CHECK(b.finished == 2 * kCmd + 3 * US + 2 * kXfer2K);  // 8.19 us
  CHECK(rig.stats.value("ssd.flash.multiplane_ops") == 1);
}

namespace {
// A standing backlog on one die: 100 programs of block 1 at 0, then a
// read of block 0 every `gap` from `gap` on, `reads` of them. Returns the
// reads and programs in submission order.
struct Backlog {
  std::vector<FlashTransaction*> programs, reads;
};
Backlog backlog(FlashRig& rig, uint32_t programs, uint32_t reads, Tick gap) {
  Backlog b;
  for (uint32_t i = 0; i < programs; ++i) {
    b.programs.push_back(&rig.txn(FlashOp::Program, addr(0, 0, 0, 1, i)));
    rig.submit(0, {b.programs.back()});
  }
  for (uint32_t i = 0; i < reads; ++i) {
    b.reads.push_back(&rig.txn(FlashOp::Read, addr(0, 0, 0, 0, i % 512)));
    rig.submit((i + 1) * gap, {b.reads.back()});
  }
  return b;
}
Tick max_latency(const std::vector<FlashTransaction*>& ts) {
  Tick m = 0;
  for (const auto* t : ts) m = std::max(m, t->finished - t->submitted);
  return m;
}
}  // namespace

TEST_CASE("under a standing program backlog reads wait for one program at most", "[flash][scheduler]") {
  FlashRig rig(Sets{});
  auto b = backlog(rig, 100, 100, 50 * US);
  rig.run();
  REQUIRE(rig.done.size() == 200);
  // From 1 ms on every program is starved. After each program, reads get up
  // to 8 picks; a read every 50 us brings at most 3 during one program and
  // the reads after it (102.595 + 3 x 5.595 us < 150 us), so each read waits
  // for at most the program in progress and the reads ahead of it.
  CHECK(max_latency(b.reads) <= kProg + 3 * kRead);  // 119.38 us
  // The die never idles: 100 programs and 100 reads back to back.
  CHECK(rig.done.back()->finished == 100 * kProg + 100 * kRead);  // 10,819 us
  CHECK(rig.done.back() == b.programs.back());
  // No starved program went before a waiting read: none was ever needed.
  CHECK(rig.stats.value("ssd.flash.starved_program_picks") == 0);
}

TEST_CASE("when a starved program always goes first reads wait out the backlog", "[flash][scheduler]") {
  FlashRig rig(Sets{{"ssd.flash.reads_per_starved_program", "0"}});
  auto b = backlog(rig, 100, 100, 50 * US);
  rig.run();
  REQUIRE(rig.done.size() == 200);
  // Before 1 ms reads go first; a read arriving after it waits for every
  // program left. The first read after 1,000.035 us arrives at 1,050 us,
  // during program 9 (9 programs and 20 reads end at 1,035.255 us; program 9
  // ends at 1,137.85 us), and runs after program 99: 100 x 102.595 +
  // 21 x 5.595 us = 10,377.0 us, a wait of 9,327 us.
  CHECK(b.reads[20]->finished == 100 * kProg + 21 * kRead);
  CHECK(max_latency(b.reads) > 9 * MS);
  CHECK(rig.stats.value("ssd.flash.starved_program_picks") > 0);
}

TEST_CASE("under reads that never stop, programs go at the bound's rate", "[flash][scheduler]") {
  FlashRig rig(Sets{});
  // A read every 2 us (the die serves one per 5.595 us) until 4 ms, and 20 programs at 0.
  auto b = backlog(rig, 20, 2000, 2 * US);
  rig.run();
  REQUIRE(rig.done.size() == 2020);
  // Program 0 finds the die alone at 0 and ends at 102.595 us. Then reads
  // only, until a pick finds program 1 waiting past 1 ms: picks every
  // 5.595 us, the 162nd at 102.595 + 161 x 5.595 = 1,003.39 us. From there:
  // the program, 8 reads, the next program, ... so program k >= 1 ends at
  // 1,105.985 + (k - 1) x (102.595 + 8 x 5.595) us = 1,105.985 + 147.355 (k - 1) us.
  CHECK(b.programs[0]->finished == kProg);
  for (uint32_t k = 1; k < 20; ++k) {
    INFO("program " << k);
    CHECK(b.programs[k]->finished == 2 * kProg + 161 * kRead + (k - 1) * (kProg + 8 * kRead));
  }
  // Programs 1 to 19 each went before waiting reads.
  CHECK(rig.stats.value("ssd.flash.starved_program_picks") == 19);
}

TEST_CASE("with suspend a read under the backlog waits for the suspend, not the program", "[flash][scheduler][suspend]") {
  FlashRig rig(Sets{{"ssd.flash.suspend", "true"}});
  auto b = backlog(rig, 100, 100, 50 * US);
  rig.run();
  REQUIRE(rig.done.size() == 200);
  // A read arriving in a program's array time suspends it 20 us later; one
  // arriving while the program's data is on the bus (2.595 us) waits for
  // that first. Each read then runs alone (the next comes 50 us later):
  // at most 2.595 + 20 + 5.595 us.
  CHECK(max_latency(b.reads) <= kCmd + kXfer2K + 20 * US + kRead);  // 28.19 us
  CHECK(rig.stats.value("ssd.flash.suspends") > 50);
  for (auto* p : b.programs) CHECK(p->finished > 0);
}

namespace {
// Nine throughput reads of one die at 0 (the first starts at once), then a
// latency-critical read at 1 us. Returns the latency read.
FlashTransaction& latency_read_behind_eight(FlashRig& rig) {
  for (uint32_t i = 0; i < 9; ++i) rig.submit(0, {&rig.txn(FlashOp::Read, addr(0, 0, 0, 0, i))});
  auto& lat = rig.txn(FlashOp::Read, addr(0, 0, 0, 0, 9));
  lat.latency = true;
  rig.submit(1 * US, {&lat});
  return lat;
}
}  // namespace

TEST_CASE("with latency-first dies a latency-critical read passes the throughput reads queued", "[flash][scheduler][priority]") {
  FlashRig rig(Sets{});
  rig.flash.set_latency_first(true);
  auto& lat = latency_read_behind_eight(rig);
  rig.run();
  REQUIRE(rig.done.size() == 10);
  // Read 0 holds the die until 5.595 us; the latency read goes next.
  CHECK(lat.finished == 2 * kRead);  // 11.19 us
  CHECK(rig.done[1] == &lat);
  CHECK(rig.done.back()->finished == 10 * kRead);
}

TEST_CASE("without latency-first a latency-critical read waits its turn", "[flash][scheduler][priority]") {
  FlashRig rig(Sets{});
  auto& lat = latency_read_behind_eight(rig);
  rig.run();
  CHECK(lat.finished == 10 * kRead);  // 55.95 us, after the eight
  CHECK(rig.done.back() == &lat);
}
