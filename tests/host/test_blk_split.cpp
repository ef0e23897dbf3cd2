// SPDX-License-Identifier: BSD-3-Clause
// blk-mq splitting an I/O larger than the device's largest transfer (MDTS)
// into commands of at most that size, and fanning their completions back in.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"
#include "tests/host/BlkMqRig.hpp"

using namespace vp;
using namespace vp::test;
// host(s) is written test::host(s): with using namespace vp, host also names vp::host.

TEST_CASE("a 300 KiB read splits into 128 128 and 44 KiB commands at the default MDTS", "[host][blkmq][split]") {
  // Default ssd.nvme.mdts = 5: 4096 << 5 = 131072 bytes (128 KiB), which the
  // rig's driver reports. 300 KiB = 128 + 128 + 44 KiB: ceil(300 / 128) = 3
  // commands of 32, 32 and 11 blocks of 4 KiB at LBAs 1000, 1032, 1064.
  BlkMqRig rig({{"host.nvme.queue_depth", "64"}});
  REQUIRE(rig.drv.mdts == 131072);
  auto& app = rig.io(false, 1000, 300 * 1024);
  rig.q.submit(app, 0, 0);
  REQUIRE(rig.drv.cmds.size() == 3);
  CHECK(rig.stat("host.blkmq.splits") == 1);
  CHECK(rig.stat("host.blkmq.split_pieces") == 3);
  CHECK(rig.stat("host.blkmq.dispatches") == 3);
  CHECK(rig.q.free_tags(0) == 63 - 3);  // each piece holds a tag of its own
  const uint64_t lba[] = {1000, 1032, 1064};
  const uint32_t nlb[] = {32, 32, 11}, bytes[] = {131072, 131072, 45056};
  for (int i = 0; i < 3; ++i) {
    const auto& c = rig.drv.cmds[i];
    CHECK(c.lba == lba[i]);
    CHECK(c.nlb == nlb[i]);
    REQUIRE(c.ios.size() == 1);
    CHECK(c.ios[0] != &app);
    CHECK(c.ios[0]->bytes == bytes[i]);
    CHECK(c.ios[0]->buf_addr == app.buf_addr + uint64_t(i) * 131072);  // its part of the same buffer
  }
  // Completions out of order; the second piece fails (0x281: unrecovered
  // read error). Only the last completion hands back the application I/O,
  // once, with the failing status and the last piece's command id.
  host::IoRequest* p[3] = {rig.drv.cmds[0].ios[0], rig.drv.cmds[1].ios[0], rig.drv.cmds[2].ios[0]};
  for (int i = 0; i < 3; ++i) {
    p[i]->sqid = 1;
    p[i]->cid = static_cast<uint16_t>(10 + i);
  }
  p[1]->status = 0x281;
  CHECK(rig.q.fan_in(*p[2]) == nullptr);
  CHECK(rig.q.fan_in(*p[1]) == nullptr);
  CHECK(rig.q.fan_in(*p[0]) == &app);
  CHECK(app.status == 0x281);
  CHECK(app.cid == 10);
  // An I/O that was not split is its own completion.
  auto& small = rig.submit(false, 5000);
  CHECK(rig.q.fan_in(small) == &small);
}

TEST_CASE("an I/O of exactly MDTS is not split", "[host][blkmq][split]") {
  BlkMqRig rig({});
  auto& app = rig.io(true, 0, 131072);  // 128 KiB = MDTS
  rig.q.submit(app, 0, 0);
  REQUIRE(rig.drv.cmds.size() == 1);
  CHECK(rig.drv.cmds[0].nlb == 32);  // 131072 / 4096
  CHECK(rig.drv.cmds[0].ios[0] == &app);
  CHECK(rig.stat("host.blkmq.splits") == 0);
}

TEST_CASE("a 300 KiB verified write reads back intact through split commands", "[host][blkmq][split][platform]") {
  // Quick preset, default MDTS 128 KiB, 4 KiB LBAs. The write and the read
  // of 300 KiB each become 3 commands (128 + 128 + 44 KiB): 3 write and 3
  // read commands, 307200 bytes each way, 2 splits of 3 pieces; the read
  // checks 300 / 4 = 75 blocks. requests.csv has one row per application
  // I/O: 2 rows of 307200 bytes at LBA 0, the write carried by the first
  // three commands issued (serials 1 2 3), the read by the next three.
  std::string dir = scratch("split300");
  auto s = run_traced(dir, "quick", {},
                      "[w]\ndirect=1\nrw=write\nbs=300k\nsize=300k\niodepth=1\nnumber_ios=1\nverify=1\n"
                      "[r]\ndirect=1\nstonewall\nrw=read\nbs=300k\nsize=300k\niodepth=1\nnumber_ios=1\nverify=1\n");
  const auto& c = s["counters"];
  CHECK(s["jobs"][0]["writes"] == 1);
  CHECK(s["jobs"][1]["reads"] == 1);
  CHECK(s["jobs"][0]["errors"] == 0);
  CHECK(s["jobs"][1]["errors"] == 0);
  CHECK(c["host.blkmq.splits"] == 2);
  CHECK(c["host.blkmq.split_pieces"] == 6);
  CHECK(c["ssd.nvme.write_commands"] == 3);
  CHECK(c["ssd.nvme.read_commands"] == 3);
  CHECK(c["ssd.nvme.bytes_written"] == 307200);
  CHECK(test::host(s)["verify"]["blocks_checked"] == 75);
  CHECK(test::host(s)["verify"]["mismatches"] == 0);
  CHECK(s["stage_order_violations"] == 0);
  auto rows = csv_rows(dir + "/requests.csv");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("op") == "write");
  CHECK(rows[1].at("op") == "read");
  CHECK(rows[0].at("commands") == "1 2 3");
  CHECK(rows[1].at("commands") == "4 5 6");
  for (const CsvRow& row : rows) {
    CHECK(u64(row, "bytes") == 307200);
    CHECK(u64(row, "lba") == 0);
    CHECK(u64(row, "status") == 0);
  }
}

TEST_CASE("app=ungzip runs at the default MDTS with its 580 KiB I/Os split", "[host][blkmq][split][platform]") {
  // ungzip (FlashShare Table 3): 580 KiB I/Os = 593920 bytes, each
  // 4 x 128 KiB + 68 KiB = 5 commands. 4 I/Os: 4 splits, 20 pieces and 20
  // commands moving 4 x 593920 = 2375680 bytes.
  auto s = run("quick", {}, "[u]\ndirect=1\napp=ungzip\nsize=64m\niodepth=1\nnumber_ios=4\n");
  const auto& c = s["counters"];
  CHECK(s["jobs"][0]["ios"] == 4);
  CHECK(s["jobs"][0]["errors"] == 0);
  CHECK(c["host.blkmq.splits"] == 4);
  CHECK(c["host.blkmq.split_pieces"] == 20);
  CHECK(uint64_t(c["ssd.nvme.read_commands"]) + uint64_t(c["ssd.nvme.write_commands"]) == 20);
  CHECK(uint64_t(c["ssd.nvme.bytes_read"]) + uint64_t(c["ssd.nvme.bytes_written"]) == 2375680);
}
