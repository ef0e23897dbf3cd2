// SPDX-License-Identifier: BSD-3-Clause
// blk-mq's kblockd dispatch (host.blkmq.dispatch=kblockd), Linux 4.9's
// costs: who runs a hardware queue, when, and for how much CPU. The runs
// are started and ended by hand here (a core does it in the platform), so
// each test sees exactly what a run takes and what it hands the driver.
// Costs: run_cost 1 us, dispatch_cost 0.5 us (the defaults).
#include <catch2/catch.hpp>

#include "tests/host/BlkMqRig.hpp"

using namespace vp;
using namespace vp::test;

namespace {
const std::initializer_list<std::pair<std::string, std::string>> kKblockd = {{"host.blkmq.dispatch", "kblockd"}};
}

TEST_CASE("kblockd dispatch: a request to an idle hardware queue goes straight out for dispatch_cost",
          "[host][blkmq][kblockd]") {
  BlkMqRig rig(kKblockd);
  auto& r = rig.io(false, 100);
  CHECK(rig.q.submit_cost(r, 0) == 500 * NS);
  rig.q.submit(r, 0, 0);
  CHECK(rig.drv.cmds.size() == 1);
  CHECK_FALSE(rig.q.run_pending(0));
}

TEST_CASE("kblockd dispatch: a plug flush runs the queue in the submitter's context, the commands leave at its end",
          "[host][blkmq][kblockd]") {
  BlkMqRig rig(kKblockd);
  rig.q.start_plug(0);
  for (uint64_t lba : {100, 300, 500, 700}) rig.submit(false, lba);  // gaps: four requests
  rig.q.finish_plug(0, 0);
  CHECK(rig.drv.cmds.empty());
  REQUIRE(rig.q.run_pending(0));
  auto run = rig.q.next_run(0, 0);
  CHECK_FALSE(run.kblockd);
  CHECK(run.taken.size() == 4);
  CHECK(run.cpu == 1 * US + 4 * 500 * NS);  // 3 us
  CHECK(rig.drv.cmds.empty());
  rig.q.end_run(run, 3 * US);
  CHECK(rig.drv.cmds.size() == 4);
  CHECK(rig.drv.cmds[0].lba == 100);
  CHECK(rig.drv.cmds[3].lba == 700);
  CHECK_FALSE(rig.q.run_pending(0));
  CHECK(rig.stat("host.blkmq.sync_runs") == 1);
  CHECK(rig.stat("host.blkmq.kblockd_runs") == 0);
}

TEST_CASE("kblockd dispatch: one dispatcher at a time, a request meeting a run waits for kblockd's next run",
          "[host][blkmq][kblockd]") {
  // Two cores on one read queue (read/write isolation with two hardware
  // queues: queue 0 reads for both cores, queue 1 writes), so core 1 can
  // meet core 0's run.
  BlkMqRig rig({{"host.blkmq.dispatch", "kblockd"}, {"host.blkmq.rw_isolation", "on"}}, 2);
  REQUIRE(rig.q.hwq_for(1, false) == 0);
  rig.q.start_plug(0);
  rig.submit(false, 100, 0, 0);
  rig.submit(false, 300, 0, 0);
  rig.q.finish_plug(0, 0);
  auto run = rig.q.next_run(0, 0);  // core 0 dispatches two: 2 us
  auto& late = rig.io(false, 900);
  CHECK(rig.q.submit_cost(late, 1) == 100 * NS);  // not a direct issue: insert_cost, nothing queued to search
  rig.q.submit(late, 1, 1 * US);
  CHECK_FALSE(rig.q.run_pending(1));  // core 1 does not run the queue
  CHECK_FALSE(rig.q.run_pending(0));
  rig.q.end_run(run, 2 * US);
  CHECK(rig.drv.cmds.size() == 2);
  REQUIRE(rig.q.run_pending(0));  // the leftover goes to kblockd on the queue's home core, core 0
  auto again = rig.q.next_run(0, 2 * US);
  CHECK(again.kblockd);
  REQUIRE(again.taken.size() == 1);
  CHECK(again.cpu == 1500 * NS);
  rig.q.end_run(again, 3500 * NS);
  REQUIRE(rig.drv.cmds.size() == 3);
  CHECK(rig.drv.cmds[2].lba == 900);
  CHECK(late.clock.ended[static_cast<size_t>(Stage::BlkMq)] == 3500 * NS);
}

TEST_CASE("kblockd dispatch: a tag freed while requests wait leaves the run to kblockd", "[host][blkmq][kblockd]") {
  BlkMqRig rig({{"host.blkmq.dispatch", "kblockd"}, {"host.nvme.queue_depth", "2"}});  // one tag
  rig.submit(false, 100);  // takes the tag, straight out
  rig.submit(false, 300);  // no tag: inserted; the submitter's run finds nothing it can take
  REQUIRE(rig.q.run_pending(0));
  auto empty = rig.q.next_run(0, 0);
  CHECK(empty.taken.empty());
  CHECK(empty.cpu == 1 * US);
  rig.q.end_run(empty, 1 * US);
  CHECK_FALSE(rig.q.run_pending(0));  // no tag: nothing to run for
  rig.q.completed(0, 10 * US);
  CHECK(rig.drv.cmds.size() == 1);  // not dispatched from the completion
  REQUIRE(rig.q.run_pending(0));
  auto run = rig.q.next_run(0, 10 * US);
  CHECK(run.kblockd);
  CHECK(run.taken.size() == 1);
  rig.q.end_run(run, 11500 * NS);
  REQUIRE(rig.drv.cmds.size() == 2);
  CHECK(rig.drv.cmds[1].lba == 300);
  CHECK(rig.stat("host.blkmq.tag_waits") == 1);
}

TEST_CASE("inline dispatch runs queues where they become runnable and queues no runs", "[host][blkmq][kblockd]") {
  BlkMqRig rig({{"host.nvme.queue_depth", "2"}});
  rig.submit(false, 100);
  rig.submit(false, 300);
  rig.q.completed(0, 10 * US);
  CHECK(rig.drv.cmds.size() == 2);
  CHECK_FALSE(rig.q.run_pending(0));
  auto& r = rig.io(false, 500);
  rig.q.completed(0, 20 * US);
  CHECK(rig.q.submit_cost(r, 0) == 0);  // idle: straight to the driver, no CPU of blk-mq's own
}
