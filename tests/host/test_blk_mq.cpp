// SPDX-License-Identifier: BSD-3-Clause
// blk-mq's queueing, merging, plugging, deadline scheduling and FlashShare
// bypass, checked command by command at the driver's boundary.
#include <catch2/catch.hpp>

#include "tests/host/BlkMqRig.hpp"

using namespace vp;
using namespace vp::test;

TEST_CASE("blk-mq tags keep queue depth minus one commands in flight and queue the rest", "[host][blkmq]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "4"}});  // 4-entry SQ: 3 tags
  for (uint64_t lba : {100, 300, 500, 700, 900}) rig.submit(false, lba);  // gaps: nothing merges
  // 3 go out, 2 wait for a tag.
  REQUIRE(rig.drv.cmds.size() == 3);
  CHECK(rig.q.free_tags(0) == 0);
  CHECK(rig.q.waiting(0) == 2);
  CHECK(rig.stat("host.blkmq.tag_waits") == 2);
  rig.q.completed(0, 10);
  REQUIRE(rig.drv.cmds.size() == 4);
  CHECK(rig.drv.cmds[3].lba == 700);  // first in, first out
  rig.q.completed(0, 20);
  REQUIRE(rig.drv.cmds.size() == 5);
  CHECK(rig.drv.cmds[4].lba == 900);
  CHECK(rig.q.free_tags(0) == 0);
  for (int i = 0; i < 3; ++i) rig.q.completed(0, 30);
  CHECK(rig.q.free_tags(0) == 3);
  CHECK(rig.stat("host.blkmq.dispatches") == 5);
  CHECK(rig.stat("host.blkmq.back_merges") + rig.stat("host.blkmq.front_merges") == 0);
}

TEST_CASE("two contiguous writes queued behind a full hardware queue leave as one command", "[host][blkmq]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "2"}});  // one tag
  rig.submit(true, 1000);                          // takes the tag
  auto& a = rig.submit(true, 8);
  auto& b = rig.submit(true, 9);  // continues a: back merge
  auto& c = rig.submit(true, 7);  // precedes a: front merge
  CHECK(rig.stat("host.blkmq.back_merges") == 1);
  CHECK(rig.stat("host.blkmq.front_merges") == 1);
  CHECK(rig.q.waiting(0) == 1);
  rig.q.completed(0, 5);
  REQUIRE(rig.drv.cmds.size() == 2);
  const auto& cmd = rig.drv.cmds[1];
  // LBAs 7, 8, 9: one 12 KiB write starting at 7 carrying c, a, b in LBA order.
  CHECK(cmd.write);
  CHECK(cmd.lba == 7);
  CHECK(cmd.nlb == 3);
  REQUIRE(cmd.ios.size() == 3);
  CHECK(cmd.ios[0] == &c);
  CHECK(cmd.ios[1] == &a);
  CHECK(cmd.ios[2] == &b);
  CHECK(!c.merged);
  CHECK(a.merged);
  CHECK(b.merged);
}

TEST_CASE("blk-mq does not merge across a gap or a change of direction or a PRP page gap", "[host][blkmq]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "2"}});
  rig.submit(false, 1000);  // takes the tag
  rig.submit(true, 10);
  rig.submit(true, 12);   // a one-block gap after 10
  rig.submit(false, 11);  // contiguous with 10 but a read
  // A buffer not starting at page offset 0 breaks the PRP rule even when
  // the LBAs meet.
  auto& odd = rig.io(true, 13);
  odd.buf_addr += 512;
  rig.q.submit(odd, 0, 0);  // would continue 12
  CHECK(rig.stat("host.blkmq.back_merges") + rig.stat("host.blkmq.front_merges") == 0);
  for (int i = 0; i < 5; ++i) rig.q.completed(0, 1);
  REQUIRE(rig.drv.cmds.size() == 5);
  for (const auto& cmd : rig.drv.cmds) CHECK(cmd.nlb == 1);
}

TEST_CASE("blk-mq merges no further than the largest transfer", "[host][blkmq]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "2"}});
  rig.drv.mdts = 8192;  // two 4 KiB blocks
  rig.submit(false, 1000);
  for (uint64_t lba = 0; lba < 5; ++lba) rig.submit(true, lba);
  // 0+1, 2+3, 4: three commands of 2, 2 and 1 blocks.
  CHECK(rig.stat("host.blkmq.back_merges") == 2);
  for (int i = 0; i < 4; ++i) rig.q.completed(0, 1);
  REQUIRE(rig.drv.cmds.size() == 4);
  CHECK(rig.drv.cmds[1].lba == 0);
  CHECK(rig.drv.cmds[1].nlb == 2);
  CHECK(rig.drv.cmds[2].lba == 2);
  CHECK(rig.drv.cmds[2].nlb == 2);
  CHECK(rig.drv.cmds[3].lba == 4);
  CHECK(rig.drv.cmds[3].nlb == 1);
}

TEST_CASE("a plugged batch of sequential writes merges and leaves as one command at the flush", "[host][blkmq]") {
  BlkMqRig rig({{"host.blkmq.insert_cost", "100ns"}, {"host.blkmq.merge_search_cost", "25ns"}});
  rig.q.start_plug(0);
  std::vector<Tick> cost;
  for (uint64_t lba = 40; lba < 44; ++lba) {
    auto& r = rig.io(true, lba);
    cost.push_back(rig.q.submit_cost(r, 0));
    rig.q.submit(r, 0, 0);
  }
  CHECK(rig.drv.cmds.empty());  // held in the plug although tags are free
  rig.q.finish_plug(0, 0);
  REQUIRE(rig.drv.cmds.size() == 1);
  CHECK(rig.drv.cmds[0].lba == 40);
  CHECK(rig.drv.cmds[0].nlb == 4);
  CHECK(rig.drv.cmds[0].ios.size() == 4);
  CHECK(rig.stat("host.blkmq.plug_merges") == 3);
  CHECK(rig.stat("host.blkmq.plug_flushes") == 1);
  // First: a new request in an empty plug, 100 ns; then each looks at the
  // last plugged request (25 ns) and merges into it (no new request).
  CHECK(cost == std::vector<Tick>{100 * NS, 25 * NS, 25 * NS, 25 * NS});
}

TEST_CASE("submission costs add up as configured in a single hand-worked case", "[host][blkmq]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "2"},
                {"host.blkmq.insert_cost", "300ns"},
                {"host.blkmq.merge_search_cost", "40ns"}});
  // An idle queue: the request goes straight to the driver, no blk-mq work.
  auto& first = rig.io(false, 500);
  CHECK(rig.q.submit_cost(first, 0) == 0);
  rig.q.submit(first, 0, 0);
  // No tag: nothing queued to search, a new queued request: 300 ns.
  auto& r1 = rig.io(false, 100);
  CHECK(rig.q.submit_cost(r1, 0) == 300 * NS);
  rig.q.submit(r1, 0, 0);
  rig.submit(false, 200);
  rig.submit(false, 300);
  // Queue (oldest first): 100, 200, 300. A read of LBA 101 is examined
  // against the newest first (300, 200, 100) and merges with the third:
  // 3 x 40 ns = 120 ns, no new request.
  auto& m = rig.io(false, 101);
  CHECK(rig.q.submit_cost(m, 0) == 120 * NS);
  // A read of LBA 50 examines all three, merges nowhere: 3 x 40 + 300 = 420 ns.
  auto& n = rig.io(false, 50);
  CHECK(rig.q.submit_cost(n, 0) == 420 * NS);
}

TEST_CASE("deadline sends an expired write ahead of fresher reads once writes have starved", "[host][blkmq]") {
  // One tag; each dispatch starts a batch; writes_starved 2 (default).
  BlkMqRig rig({{"host.nvme.queue_depth", "2"},
                {"host.blkmq.scheduler", "deadline"},
                {"host.blkmq.deadline.fifo_batch", "1"}});
  rig.submit(false, 0, 0);           // R0: goes out at once
  rig.submit(true, 500, 0);          // W: expires at 5 s
  rig.submit(false, 10, 0);          // R1: expires at 0.5 s
  rig.submit(false, 20, 0);          // R2
  rig.submit(false, 30, 7500 * MS);  // R3: fresher than W
  rig.q.completed(0, 6 * SEC);   // reads and writes wait: starved 0 -> 1, reads: R1
  rig.q.completed(0, 7 * SEC);   // starved 1 -> 2, reads: R2
  rig.q.completed(0, 8 * SEC);   // starved 2 >= 2: writes: W (expired at 5 s)
  rig.q.completed(0, 9 * SEC);   // R3
  REQUIRE(rig.drv.cmds.size() == 5);
  std::vector<uint64_t> order;
  for (const auto& c : rig.drv.cmds) order.push_back(c.lba);
  CHECK(order == std::vector<uint64_t>{0, 10, 20, 500, 30});
  CHECK(rig.stat("host.blkmq.deadline.batches") == 5);
  CHECK(rig.stat("host.blkmq.deadline.starved_write_batches") == 1);
  // Expired at their batch start: R1 (0.5 s) at 6 s, R2 at 7 s, W (5 s) at
  // 8 s, R3 (8.0 s) at 9 s; R0 went out at once: 4.
  CHECK(rig.stat("host.blkmq.deadline.expired_starts") == 4);
}

TEST_CASE("deadline dispatches a batch in sector order from where the last one left", "[host][blkmq]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "2"}, {"host.blkmq.scheduler", "deadline"}});
  rig.submit(false, 1000, 0);  // out at once
  for (uint64_t lba : {300, 100, 200, 400}) rig.submit(false, lba, 0);
  for (int i = 0; i < 4; ++i) rig.q.completed(0, MS);
  // New batch after 1000 had no successor: FIFO head 300, then its sector
  // successor 400 (the batch goes on upward); then 100 (FIFO head, new
  // batch since 400 has no successor) and 200.
  std::vector<uint64_t> order;
  for (const auto& c : rig.drv.cmds) order.push_back(c.lba);
  CHECK(order == std::vector<uint64_t>{1000, 300, 400, 100, 200});
}

TEST_CASE("bypass orders a latency-critical read after a queued write to the same LBA", "[host][blkmq]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "2"}, {"host.blkmq.bypass", "on"}});
  rig.submit(false, 900);                   // takes the tag
  rig.submit(true, 64);                     // queued write of LBA 64
  rig.submit(false, 5);                     // queued read of LBA 5
  rig.submit(false, 64, 0, 0, /*attr*/ 1);  // bypassing read of LBA 64
  rig.submit(false, 5, 0, 0, /*attr*/ 1);   // bypassing read of LBA 5: the queued read may stay
  CHECK(rig.stat("host.blkmq.bypassed") == 2);
  CHECK(rig.stat("host.blkmq.hazard_ordered") == 1);
  for (int i = 0; i < 4; ++i) rig.q.completed(0, 1);
  std::vector<std::pair<uint64_t, bool>> order;
  for (const auto& c : rig.drv.cmds) order.emplace_back(c.lba, c.write);
  // Dispatch list: write 64, bypass read 64, bypass read 5; then the software queue: read 5.
  CHECK(order == std::vector<std::pair<uint64_t, bool>>{{900, false}, {64, true}, {64, false}, {5, false}, {5, false}});
  CHECK(rig.drv.cmds[2].attr == 1);
  CHECK(rig.drv.cmds[4].attr == 0);
}

TEST_CASE("bypass merges a contiguous queued request of the same direction", "[host][blkmq]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "2"}, {"host.blkmq.bypass", "on"}});
  rig.submit(false, 900);                   // takes the tag
  auto& q = rig.submit(true, 10);           // queued write of LBA 10
  rig.submit(true, 30);                     // not contiguous: stays
  auto& b = rig.submit(true, 11, 0, 0, 2);  // bypassing write of LBA 11
  CHECK(rig.stat("host.blkmq.hazard_merged") == 1);
  CHECK(rig.stat("host.blkmq.hazard_ordered") == 0);
  rig.q.completed(0, 1);
  rig.q.completed(0, 1);
  REQUIRE(rig.drv.cmds.size() == 3);
  // One command for LBAs 10-11 with the bypassing request's attribute, before the write of 30.
  CHECK(rig.drv.cmds[1].lba == 10);
  CHECK(rig.drv.cmds[1].nlb == 2);
  CHECK(rig.drv.cmds[1].attr == 2);
  CHECK(rig.drv.cmds[1].ios == std::vector<host::IoRequest*>{&q, &b});
  CHECK(rig.drv.cmds[2].lba == 30);
}

TEST_CASE("bypass off keeps latency-critical requests in the queues", "[host][blkmq]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "2"}});
  rig.submit(false, 900);
  rig.submit(true, 64);
  rig.submit(false, 64, 0, 0, 1);
  rig.q.completed(0, 1);
  rig.q.completed(0, 1);
  CHECK(rig.stat("host.blkmq.bypassed") == 0);
  REQUIRE(rig.drv.cmds.size() == 3);
  CHECK(rig.drv.cmds[1].write);
}

TEST_CASE("read write isolation sends reads and writes to separate hardware queues", "[host][blkmq]") {
  // 4 queues, ratio 0.75: reads use 0-2, writes use 3.
  BlkMqRig rig({{"host.blkmq.rw_isolation", "on"}, {"host.blkmq.read_queue_ratio", "0.75"}}, 4);
  for (unsigned core = 0; core < 4; ++core) {
    CHECK(rig.q.hwq_for(core, true) == 3);
    CHECK(rig.q.hwq_for(core, false) == core % 3);
    rig.submit(false, 10 * core, 0, core);
    rig.submit(true, 10 * core + 100, 0, core);
  }
  for (const auto& c : rig.drv.cmds) CHECK(c.hwq == (c.write ? 3u : c.lba / 10 % 3));
}

TEST_CASE("without a scheduler a core merges only with its own software queue", "[host][blkmq]") {
  // Isolation on 2 queues (ratio 0.5): both cores send writes to queue 1.
  BlkMqRig rig({{"host.nvme.queue_depth", "2"},
                {"host.blkmq.rw_isolation", "on"},
                {"host.blkmq.read_queue_ratio", "0.5"}},
               2);
  rig.submit(true, 1000, 0, 0);  // takes queue 1's tag
  rig.submit(true, 20, 0, 0);    // core 0 queues LBA 20
  rig.submit(true, 21, 0, 1);    // core 1 continues it: another software queue, no merge
  rig.submit(true, 22, 0, 1);    // continues core 1's own LBA 21: merges
  CHECK(rig.stat("host.blkmq.back_merges") == 1);
  rig.q.completed(1, 1);
  rig.q.completed(1, 1);
  REQUIRE(rig.drv.cmds.size() == 3);
  CHECK(rig.drv.cmds[1].lba == 20);
  CHECK(rig.drv.cmds[1].nlb == 1);
  CHECK(rig.drv.cmds[2].lba == 21);
  CHECK(rig.drv.cmds[2].nlb == 2);
  for (const auto& c : rig.drv.cmds) CHECK(c.hwq == 1u);
}
