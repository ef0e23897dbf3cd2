// SPDX-License-Identifier: BSD-3-Clause
// The submission queue arbiter on its own: schedules worked out by hand for
// round robin with arbitration burst, weighted round robin with the urgent
// class, and FlashShare's LS priority with its TH drain guard.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "vp/ssd/nvme/SqArbiter.hpp"

using namespace vp;
using namespace vp::ssd;

namespace {
using Order = std::vector<uint16_t>;

ArbiterConfig config(ArbMode mode, uint32_t burst) {
  ArbiterConfig c;
  c.mode = mode;
  c.burst = burst;
  return c;
}

// The SQ of each of `grants` grants of one command each, all at `now`.
Order order(SqArbiter& a, int grants, Tick now = 0) {
  Order o;
  for (int i = 0; i < grants; ++i) {
    auto g = a.next(now, 1);
    if (!g) break;
    REQUIRE(g->count == 1);
    o.push_back(g->qid);
  }
  return o;
}

// (qid, count) of each grant until none is left, max_count as given.
std::vector<std::pair<uint16_t, uint32_t>> grants(SqArbiter& a, uint32_t max_count, int limit, Tick now = 0) {
  std::vector<std::pair<uint16_t, uint32_t>> v;
  for (int i = 0; i < limit; ++i) {
    auto g = a.next(now, max_count);
    if (!g) break;
    v.emplace_back(g->qid, g->count);
  }
  return v;
}
using Grants = std::vector<std::pair<uint16_t, uint32_t>>;
}  // namespace

// ---------------------------------------------------------------- round robin

TEST_CASE("round robin with burst 1 cycles over three full SQs", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(config(ArbMode::RoundRobin, 1));
  for (uint16_t q = 1; q <= 3; ++q) {
    a.add_queue(q, SqPriority(q % 4));  // priorities do not matter in round robin
    a.submitted(q, 100, 0);
  }
  // One command per turn, qid order: 1 2 3 1 2 3 ...
  REQUIRE(order(a, 9) == Order{1, 2, 3, 1, 2, 3, 1, 2, 3});
  // 9 grants = 3 per SQ: 100 - 3 = 97 left in each.
  CHECK(a.pending(1) == 97);
  CHECK(a.pending(2) == 97);
  CHECK(a.pending(3) == 97);
}

TEST_CASE("round robin with burst 4 grants 4-command turns", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(config(ArbMode::RoundRobin, 4));
  for (uint16_t q = 1; q <= 3; ++q) {
    a.add_queue(q, SqPriority::Medium);
    a.submitted(q, 10, 0);
  }
  // 10 entries per SQ = turns of 4, 4 and the last 2.
  REQUIRE(grants(a, 64, 20) == Grants{{1, 4}, {2, 4}, {3, 4}, {1, 4}, {2, 4}, {3, 4}, {1, 2}, {2, 2}, {3, 2}});
  CHECK_FALSE(a.next(0, 64).has_value());
}

TEST_CASE("round robin skips empty SQs and gives the admin SQ an ordinary turn", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(config(ArbMode::RoundRobin, 1));
  for (uint16_t q = 1; q <= 4; ++q) a.add_queue(q, SqPriority::Urgent);
  a.submitted(0, 2, 0);
  a.submitted(2, 1, 0);
  a.submitted(4, 3, 0);
  // Positions 0..8 with entries at 0 (2) 2 (1) 4 (3):
  // 0 -> 2 -> 4 -> wrap 0 (its last) -> 2 is empty: 4 -> 4 (alone now).
  REQUIRE(order(a, 10) == Order{0, 2, 4, 0, 4, 4});
  CHECK(a.pending(0) + a.pending(2) + a.pending(4) == 0);
}

TEST_CASE("round robin max_count caps a grant and the turn goes on at the next call", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(config(ArbMode::RoundRobin, 4));
  a.add_queue(1, SqPriority::Low);
  a.add_queue(2, SqPriority::Low);
  a.submitted(1, 8, 0);
  a.submitted(2, 8, 0);
  // Turns of 4 cut into 3 + 1 by max_count 3: the rest of SQ 1's turn comes
  // before SQ 2's turn starts.
  REQUIRE(grants(a, 3, 4) == Grants{{1, 3}, {1, 1}, {2, 3}, {2, 1}});
  // Then one command at a time: still 4 per turn.
  REQUIRE(order(a, 8) == Order{1, 1, 1, 1, 2, 2, 2, 2});
}

TEST_CASE("round robin with no burst limit bounds a turn by the entries held when it starts", "[ssd][arbiter]") {
  SqArbiter a(8);
  ArbiterConfig c;
  c.mode = ArbMode::RoundRobin;
  c.set_arbitration_feature(7);  // AB = 111b: no limit
  REQUIRE(c.burst == 0);
  a.configure(c);
  a.add_queue(1, SqPriority::High);
  a.add_queue(2, SqPriority::High);
  a.submitted(1, 5, 0);
  a.submitted(2, 2, 0);
  // SQ 1's turn holds 5. After 2, 3 more arrive: the turn still ends after
  // 5 (2 + 2 + 1), then SQ 2 takes its 2, then SQ 1 the 3 newcomers.
  auto g = a.next(0, 2);
  REQUIRE(g);
  CHECK(g->qid == 1);
  CHECK(g->count == 2);
  a.submitted(1, 3, 1 * US);
  REQUIRE(grants(a, 2, 10) == Grants{{1, 2}, {1, 1}, {2, 2}, {1, 2}, {1, 1}});
}

// ---------------------------------------------------------------- weighted round robin

namespace {
// HPW = 3, MPW = 1, LPW = 0, AB = 0: weights 4, 2, 1 commands, burst 1.
ArbiterConfig wrr_421(uint32_t ab = 0) {
  ArbiterConfig c;
  c.mode = ArbMode::WeightedRoundRobin;
  c.set_arbitration_feature(3u << 24 | 1u << 16 | 0u << 8 | ab);
  return c;
}

void add_hml(SqArbiter& a, uint32_t entries) {
  a.add_queue(1, SqPriority::High);
  a.add_queue(2, SqPriority::Medium);
  a.add_queue(3, SqPriority::Low);
  for (uint16_t q = 1; q <= 3; ++q) a.submitted(q, entries, 0);
}
}  // namespace

TEST_CASE("weighted round robin shares 4 2 1 over 7 and 70 and 700 grants", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(wrr_421());
  REQUIRE(a.config().high_weight == 4);
  REQUIRE(a.config().medium_weight == 2);
  REQUIRE(a.config().low_weight == 1);
  add_hml(a, 1000);
  // One round: High's 4, Medium's 2, Low's 1.
  REQUIRE(order(a, 7) == Order{1, 1, 1, 1, 2, 2, 3});
  // Every following round of 7 is 4:2:1 as well; 7 + 63 = 70 and 70 + 630
  // = 700 grants: 4/7, 2/7, 1/7 of 70 = 40, 20, 10 and of 700 = 400, 200, 100.
  uint32_t count[4] = {0, 4, 2, 1};
  for (int round = 1; round < 100; ++round) {
    Order o = order(a, 7);
    REQUIRE(o.size() == 7);
    uint32_t in_round[4] = {};
    for (uint16_t q : o) ++in_round[q], ++count[q];
    REQUIRE(in_round[1] == 4);
    REQUIRE(in_round[2] == 2);
    REQUIRE(in_round[3] == 1);
    if (round == 9) {
      CHECK(count[1] == 40);
      CHECK(count[2] == 20);
      CHECK(count[3] == 10);
    }
  }
  CHECK(count[1] == 400);
  CHECK(count[2] == 200);
  CHECK(count[3] == 100);
  CHECK(a.pending(1) == 600);  // 1000 - 400
}

TEST_CASE("weighted round robin with no burst limit grants each class credit in one go", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(wrr_421(7));
  add_hml(a, 100);
  // Burst unlimited: a grant is the class's whole credit, 4 + 2 + 1 = 7 per round.
  REQUIRE(grants(a, 64, 6) == Grants{{1, 4}, {2, 2}, {3, 1}, {1, 4}, {2, 2}, {3, 1}});
}

TEST_CASE("weighted round robin splits a class credit over its SQs in turn", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(wrr_421());
  a.add_queue(1, SqPriority::High);
  a.add_queue(4, SqPriority::High);
  a.add_queue(2, SqPriority::Medium);
  a.submitted(1, 50, 0);
  a.submitted(4, 50, 0);
  a.submitted(2, 50, 0);
  // High's 4 alternate between SQs 1 and 4; Medium's 2; Low has no SQ and
  // forfeits its 1, so a round is 6 grants.
  REQUIRE(order(a, 12) == Order{1, 4, 1, 4, 2, 2, 1, 4, 1, 4, 2, 2});
}

TEST_CASE("weighted round robin serves the urgent class first whatever the credit", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(wrr_421());
  add_hml(a, 100);
  a.add_queue(4, SqPriority::Urgent);
  a.add_queue(5, SqPriority::Urgent);
  // High has used 2 of its 4 when urgent entries arrive: 3 in SQ 4, 1 in SQ 5.
  REQUIRE(order(a, 2) == Order{1, 1});
  a.submitted(4, 3, 1 * US);
  a.submitted(5, 1, 1 * US);
  // Urgent round robin 4 5 4 4, then High's 2 remaining credits, Medium 2, Low 1.
  REQUIRE(order(a, 9) == Order{4, 5, 4, 4, 1, 1, 2, 2, 3});
  // Low's credit is spent: an urgent entry still beats the new round.
  a.submitted(5, 1, 2 * US);
  REQUIRE(order(a, 2) == Order{5, 1});
}

TEST_CASE("weighted round robin serves the admin SQ before the urgent class", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(wrr_421());
  add_hml(a, 10);
  a.add_queue(4, SqPriority::Urgent);
  a.submitted(4, 2, 0);
  a.submitted(0, 2, 0);
  // Admin 2, urgent 2, then the weighted round.
  REQUIRE(order(a, 8) == Order{0, 0, 4, 4, 1, 1, 1, 1});
  // An admin entry arriving mid-round is next.
  a.submitted(0, 1, 1 * US);
  REQUIRE(order(a, 4) == Order{0, 2, 2, 3});
  // The admin SQ's grants keep to the burst (1) like any turn.
  a.submitted(0, 3, 2 * US);
  REQUIRE(grants(a, 64, 3) == Grants{{0, 1}, {0, 1}, {0, 1}});
}

TEST_CASE("weighted round robin takes new weights from configure mid-run", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(wrr_421());
  add_hml(a, 1000);
  REQUIRE(order(a, 2) == Order{1, 1});
  // HPW = 0, MPW = 0, LPW = 2: weights 1, 1, 3. The round restarts at High.
  ArbiterConfig c = a.config();
  c.set_arbitration_feature(0u << 24 | 0u << 16 | 2u << 8);
  a.configure(c);
  REQUIRE(order(a, 5) == Order{1, 2, 3, 3, 3});
  // 10 rounds of 5: 10, 10, 30.
  uint32_t count[4] = {};
  for (uint16_t q : order(a, 50)) ++count[q];
  CHECK(count[1] == 10);
  CHECK(count[2] == 10);
  CHECK(count[3] == 30);
}

// ---------------------------------------------------------------- FlashShare

namespace {
// LS: SQ 1 (High). TH: SQ 2 (Low), SQ 3 (Medium). Guard: 8 entries, 200 us.
SqArbiter flashshare(uint32_t burst = 1) {
  SqArbiter a(8);
  a.configure(config(ArbMode::FlashShare, burst));
  a.add_queue(1, SqPriority::High);
  a.add_queue(2, SqPriority::Low);
  a.add_queue(3, SqPriority::Medium);
  return a;
}
}  // namespace

TEST_CASE("FlashShare serves LS first while TH holds 8 entries younger than 200us", "[ssd][arbiter]") {
  SqArbiter a = flashshare();
  REQUIRE(a.config().drain_count == 8);
  REQUIRE(a.config().drain_age == 200 * US);
  a.submitted(1, 50, 0);
  a.submitted(2, 8, 0);  // 8 is not more than 8
  // 50 grants at 0, 4, ..., 196 us and the last at 200 us: waited 200 us,
  // not more. All LS.
  for (int i = 0; i < 50; ++i) {
    Tick now = i == 49 ? 200 * US : Tick(i) * 4 * US;
    auto g = a.next(now, 1);
    REQUIRE(g);
    REQUIRE(g->qid == 1);
  }
  CHECK(a.pending(2) == 8);
  // LS empty: TH is served even before its guard would fire.
  REQUIRE(order(a, 8, 200 * US) == Order{2, 2, 2, 2, 2, 2, 2, 2});
}

TEST_CASE("FlashShare drains all 9 TH entries at the 9th before LS again", "[ssd][arbiter]") {
  SqArbiter a = flashshare();
  a.submitted(1, 100, 0);
  a.submitted(2, 8, 0);
  REQUIRE(order(a, 3, 1 * US) == Order{1, 1, 1});
  a.submitted(2, 1, 2 * US);  // the 9th
  // Drained one at a time (max_count 1); 4 more arriving during the drain
  // are not part of it.
  Order o = order(a, 5, 3 * US);
  a.submitted(2, 4, 3 * US);
  Order rest = order(a, 5, 3 * US);
  o.insert(o.end(), rest.begin(), rest.end());
  REQUIRE(o == Order{2, 2, 2, 2, 2, 2, 2, 2, 2, 1});
  // 9 + 4 - 9 = 4 TH entries left, not more than 8 and 1 us old: LS goes on.
  CHECK(a.pending(2) == 4);
  REQUIRE(order(a, 3, 4 * US) == Order{1, 1, 1});
  CHECK(a.pending(1) == 100 - 3 - 1 - 3);
}

TEST_CASE("FlashShare drain is one grant unless max_count cuts it and ignores the burst", "[ssd][arbiter]") {
  SqArbiter a = flashshare(1);
  a.submitted(1, 20, 0);
  a.submitted(3, 9, 0);
  // Burst 1 does not cut the drain: all 9 with room for 64.
  REQUIRE(grants(a, 64, 2) == Grants{{3, 9}, {1, 1}});
  // 10 more (more than 8) with room for 4 at a time: 4 + 4 + 2, then LS.
  a.submitted(3, 10, 1 * US);
  REQUIRE(grants(a, 4, 1, 1 * US) == Grants{{3, 4}});
  // An admin entry arriving mid-drain goes first; the drain then goes on.
  a.submitted(0, 1, 2 * US);
  REQUIRE(grants(a, 4, 4, 2 * US) == Grants{{0, 1}, {3, 4}, {3, 2}, {1, 1}});
}

TEST_CASE("FlashShare drains a TH entry waiting 200us plus 1ps despite LS entries", "[ssd][arbiter]") {
  SqArbiter a = flashshare();
  a.submitted(1, 10, 0);
  a.submitted(2, 1, 5 * US);
  a.submitted(2, 1, 7 * US);
  // Oldest TH entry at 5 us: the guard fires after waiting more than
  // 200 us, at 5 + 200 us + 1 ps.
  CHECK(a.next_guard_deadline() == 205 * US + 1);
  REQUIRE(order(a, 2, 205 * US) == Order{1, 1});
  // Both TH entries are held when the guard fires: both drained.
  REQUIRE(grants(a, 64, 2, 205 * US + 1) == Grants{{2, 2}, {1, 1}});
  CHECK(a.next_guard_deadline() == SqArbiter::kNoDeadline);
}

TEST_CASE("FlashShare drains due TH SQs one after another in round robin order", "[ssd][arbiter]") {
  SqArbiter a = flashshare();
  a.submitted(1, 10, 0);
  a.submitted(3, 9, 0);
  a.submitted(2, 9, 0);
  // TH round robin starts at qid 0: SQ 2, then SQ 3, then LS.
  REQUIRE(grants(a, 64, 3) == Grants{{2, 9}, {3, 9}, {1, 1}});
}

TEST_CASE("FlashShare next_guard_deadline follows the oldest TH entry", "[ssd][arbiter]") {
  SqArbiter a = flashshare();
  CHECK(a.next_guard_deadline() == SqArbiter::kNoDeadline);
  a.submitted(1, 3, 0);  // LS entries give no deadline
  CHECK(a.next_guard_deadline() == SqArbiter::kNoDeadline);
  REQUIRE(order(a, 3, 0) == Order{1, 1, 1});
  a.submitted(2, 2, 10 * US);
  a.submitted(3, 1, 30 * US);
  a.submitted(2, 1, 50 * US);
  // Oldest 10 us: 10 + 200 us + 1 ps.
  CHECK(a.next_guard_deadline() == 210 * US + 1);
  // No LS waits: TH round robin 2, 3, 2, 2 (burst 1, starting at qid 0).
  REQUIRE(order(a, 1, 60 * US) == Order{2});
  CHECK(a.next_guard_deadline() == 210 * US + 1);  // SQ 2 still holds a 10 us entry
  REQUIRE(order(a, 1, 60 * US) == Order{3});
  CHECK(a.next_guard_deadline() == 210 * US + 1);
  REQUIRE(order(a, 1, 60 * US) == Order{2});
  CHECK(a.next_guard_deadline() == 250 * US + 1);  // now the 50 us entry is oldest
  REQUIRE(order(a, 1, 60 * US) == Order{2});
  CHECK(a.next_guard_deadline() == SqArbiter::kNoDeadline);
  // Other modes have no guard.
  a.submitted(2, 1, 70 * US);
  CHECK(a.next_guard_deadline() == 270 * US + 1);
  a.configure(config(ArbMode::WeightedRoundRobin, 1));
  CHECK(a.next_guard_deadline() == SqArbiter::kNoDeadline);
}

TEST_CASE("FlashShare guard settings change through configure", "[ssd][arbiter]") {
  SqArbiter a = flashshare();
  a.submitted(1, 10, 0);
  a.submitted(2, 3, 0);
  ArbiterConfig c = a.config();
  c.drain_count = 2;  // 3 entries are now more than the limit
  c.drain_age = 1 * MS;
  a.configure(c);
  CHECK(a.next_guard_deadline() == 1 * MS + 1);
  REQUIRE(grants(a, 64, 2, 1 * US) == Grants{{2, 3}, {1, 1}});
}

// ---------------------------------------------------------------- queues

TEST_CASE("remove_queue drops its entries and ends its turn and its drain", "[ssd][arbiter]") {
  SqArbiter a(8);
  a.configure(config(ArbMode::RoundRobin, 4));
  for (uint16_t q = 1; q <= 3; ++q) {
    a.add_queue(q, SqPriority::Medium);
    a.submitted(q, 5, 0);
  }
  REQUIRE(grants(a, 2, 1) == Grants{{1, 2}});  // SQ 1's turn is open with 2 left
  a.remove_queue(1);
  CHECK_FALSE(a.has_queue(1));
  CHECK(a.pending(1) == 0);
  a.remove_queue(3);
  // Only SQ 2: 5 = 4 + 1.
  REQUIRE(grants(a, 64, 5) == Grants{{2, 4}, {2, 1}});
  // Re-created empty.
  a.add_queue(1, SqPriority::Low);
  CHECK(a.pending(1) == 0);
  CHECK_FALSE(a.next(0, 64).has_value());

  // A TH SQ removed mid-drain: LS is served next and the deadline goes.
  SqArbiter f = flashshare();
  f.submitted(1, 5, 0);
  f.submitted(2, 12, 0);
  REQUIRE(grants(f, 5, 1) == Grants{{2, 5}});  // drain of 12 under way
  CHECK(f.next_guard_deadline() == 200 * US + 1);
  f.remove_queue(2);
  CHECK(f.next_guard_deadline() == SqArbiter::kNoDeadline);
  REQUIRE(grants(f, 64, 2) == Grants{{1, 1}, {1, 1}});
}

TEST_CASE("reset leaves only the empty admin SQ and max_count 0 grants nothing", "[ssd][arbiter]") {
  SqArbiter a(4);
  a.configure(config(ArbMode::RoundRobin, 1));
  a.add_queue(1, SqPriority::High);
  a.submitted(0, 1, 0);
  a.submitted(1, 3, 0);
  CHECK_FALSE(a.next(0, 0).has_value());
  a.reset();
  CHECK(a.has_queue(0));
  CHECK_FALSE(a.has_queue(1));
  CHECK(a.pending(0) == 0);
  CHECK_FALSE(a.next(0, 64).has_value());
  CHECK(a.config().mode == ArbMode::RoundRobin);  // configuration kept
  a.add_queue(1, SqPriority::High);
  a.submitted(1, 1, 0);
  REQUIRE(order(a, 2) == Order{1});
}

TEST_CASE("SqArbiter rejects the admin qid and absent or duplicate SQs and zero weights", "[ssd][arbiter]") {
  SqArbiter a(4);
  CHECK_THROWS_AS(a.add_queue(0, SqPriority::Urgent), std::invalid_argument);
  CHECK_THROWS_AS(a.remove_queue(0), std::invalid_argument);
  CHECK_THROWS_AS(a.add_queue(5, SqPriority::Low), std::invalid_argument);
  a.add_queue(4, SqPriority::Low);
  CHECK_THROWS_AS(a.add_queue(4, SqPriority::Low), std::invalid_argument);
  CHECK_THROWS_AS(a.submitted(3, 1, 0), std::invalid_argument);
  CHECK_THROWS_AS(a.remove_queue(3), std::invalid_argument);
  ArbiterConfig c;
  c.medium_weight = 0;
  CHECK_THROWS_AS(a.configure(c), std::invalid_argument);
}

TEST_CASE("arbitration fields decode from CC.AMS and the Arbitration feature and QPRIO", "[ssd][arbiter]") {
  CHECK(ArbiterConfig::mode_from_ams(0) == ArbMode::RoundRobin);
  CHECK(ArbiterConfig::mode_from_ams(1) == ArbMode::WeightedRoundRobin);
  CHECK(ArbiterConfig::mode_from_ams(7) == ArbMode::FlashShare);
  CHECK_FALSE(ArbiterConfig::mode_from_ams(2).has_value());
  ArbiterConfig c;
  // HPW 0x10, MPW 0x05, LPW 0x00, AB 2: weights 17, 6, 1, burst 2^2 = 4.
  c.set_arbitration_feature(0x10050002);
  CHECK(c.burst == 4);
  CHECK(c.high_weight == 17);
  CHECK(c.medium_weight == 6);
  CHECK(c.low_weight == 1);
  CHECK(c.arbitration_feature() == 0x10050002);
  c.set_arbitration_feature(0xFFFFFF07);  // AB 111b: no limit, weights 256
  CHECK(c.burst == 0);
  CHECK(c.high_weight == 256);
  CHECK(c.arbitration_feature() == 0xFFFFFF07);
  // Create I/O SQ CDW11: PC bit 0, QPRIO bits 2:1. 0b101 -> QPRIO 10b Medium.
  CHECK(sq_priority(0b101) == SqPriority::Medium);
  CHECK(sq_priority(0b001) == SqPriority::Urgent);
  CHECK(sq_priority(0b111) == SqPriority::Low);
}
