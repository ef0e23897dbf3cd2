// SPDX-License-Identifier: BSD-3-Clause
// blk-mq in the server platform: what reaches the device, and what the
// applications get back.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <map>
#include <set>

#include "tests/TestSupport.hpp"

using namespace vp::test;

TEST_CASE("contiguous writes queued behind a full hardware queue reach the device as one command intact",
          "[host][blkmq][platform]") {
  // One tag (2-entry SQ). The job issues W0 (LBA 0: out at once), W1 (LBA 1:
  // waits for the tag) and W2 (LBA 2: merges behind W1) 1.5 us apart, long
  // before W0's program ends. The device sees 2 write commands for 3 writes,
  // 4 + 8 KiB; the second group reads the 3 blocks back one by one (3 read
  // commands) and checks them. requests.csv maps each I/O to its command:
  // W0 rode in the first command issued (serial 1), W1 and W2 share the
  // second (2), the reads are 3, 4 and 5.
  std::string dir = scratch("merged3");
  auto s = run_traced(dir, "quick", {{"host.nvme.queue_depth", "2"}},
               "[w]\ndirect=1\nrw=write\nbs=4k\nsize=12k\niodepth=3\nnumber_ios=3\nverify=1\n"
               "[r]\ndirect=1\nstonewall\nrw=read\nbs=4k\nsize=12k\niodepth=1\nnumber_ios=3\nverify=1\n");
  const auto& c = s["counters"];
  CHECK(s["jobs"][0]["writes"] == 3);
  CHECK(s["jobs"][0]["errors"] == 0);
  CHECK(c["host.blkmq.back_merges"] == 1);
  CHECK(c["ssd.nvme.write_commands"] == 2);
  CHECK(c["ssd.nvme.bytes_written"] == 12288);
  CHECK(c["ssd.nvme.read_commands"] == 3);
  CHECK(host(s)["verify"]["blocks_checked"] == 3);
  CHECK(host(s)["verify"]["mismatches"] == 0);
  CHECK(s["stage_order_violations"] == 0);  // both carried I/Os joined the command's device half
  std::map<std::string, std::string> command_of;  // "op lba" -> commands
  for (const CsvRow& row : csv_rows(dir + "/requests.csv")) command_of[row.at("op") + " " + row.at("lba")] = row.at("commands");
  CHECK(command_of == std::map<std::string, std::string>{{"write 0", "1"}, {"write 1", "2"}, {"write 2", "2"},
                                                          {"read 0", "3"},  {"read 1", "4"},  {"read 2", "5"}});
}

TEST_CASE("an fio batch submitted under a plug merges into one command", "[host][blkmq][platform]") {
  // iodepth_batch_submit=8: the 8 sequential 4 KiB writes collect in the plug,
  // merge (7 back merges into the first) and leave at the flush as one
  // 32 KiB command (within MDTS 128 KiB); read back one by one and verified.
  auto s = run("quick", {},
               "[w]\ndirect=1\nrw=write\nbs=4k\nsize=32k\niodepth=8\niodepth_batch_submit=8\nnumber_ios=8\nverify=1\n"
               "[r]\ndirect=1\nstonewall\nrw=read\nbs=4k\nsize=32k\niodepth=1\nnumber_ios=8\nverify=1\n");
  const auto& c = s["counters"];
  CHECK(s["jobs"][0]["writes"] == 8);
  CHECK(c["host.blkmq.plug_merges"] == 7);
  CHECK(c["host.blkmq.plug_flushes"] == 1);
  CHECK(c["ssd.nvme.write_commands"] == 1);
  CHECK(c["ssd.nvme.bytes_written"] == 32768);
  CHECK(host(s)["verify"]["blocks_checked"] == 8);
  CHECK(host(s)["verify"]["mismatches"] == 0);
  CHECK(s["stage_order_violations"] == 0);
}

TEST_CASE("without a batch the same writes go out one command each", "[host][blkmq][platform]") {
  // The counterpart of the plug test: iodepth 8 but one I/O per submission,
  // tags free: every write is its own command.
  auto s = run("quick", {}, "[w]\ndirect=1\nrw=write\nbs=4k\nsize=32k\niodepth=8\nnumber_ios=8\n");
  CHECK(s["counters"]["ssd.nvme.write_commands"] == 8);
  CHECK(s["counters"]["host.blkmq.plug_flushes"] == 0);
}

TEST_CASE("the blk-mq insert cost adds to host_submit of a single read", "[host][blkmq][platform]") {
  // mq-deadline inserts every request into the scheduler: 300 ns on top of
  // the 1 us submit cost; nothing queued to search and a free tag, so it is
  // dispatched at once: host_submit = 1.3 us, blk_mq = driver_queue = 0.
  auto s = run("quick",
               {{"host.core.submit_cost", "1us"},
                {"host.blkmq.scheduler", "deadline"},
                {"host.blkmq.insert_cost", "300ns"},
                {"host.blkmq.merge_search_cost", "50ns"}},
               "[one]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=10\nthinktime=200\n");
  const auto& b = s["jobs"][0]["breakdown_us"]["read"];
  CHECK(b["host_submit"].get<double>() == Approx(1.3).margin(1e-6));
  CHECK(b["blk_mq"].get<double>() == Approx(0).margin(1e-6));
  CHECK(b["driver_queue"].get<double>() == Approx(0).margin(1e-6));
  CHECK(s["counters"]["host.blkmq.deadline.batches"] == 10);
}

TEST_CASE("read write isolation never puts a read into a write queue", "[host][blkmq][platform]") {
  // 4 cores = 4 queue pairs, ratio 0.75: SQs 1-3 take reads, SQ 4 writes.
  std::string dir = scratch("rwiso");
  auto s = run_traced(dir, "quick", {{"host.cores", "4"}, {"host.blkmq.rw_isolation", "on"}},
                      "[mix]\ndirect=1\nrw=randrw\nbs=4k\niodepth=4\nnumjobs=4\nnumber_ios=400\nsize=8m\n");
  for (const auto& j : s["jobs"]) CHECK(j["ios"] == 400);  // completions on other cores wake the jobs
  CHECK(s["stage_order_violations"] == 0);
  uint64_t reads = 0, writes = 0, bad = 0;
  std::vector<uint64_t> per_sq(5, 0);
  for (const CsvRow& row : csv_rows(dir + "/requests.csv")) {
    uint64_t sq = u64(row, "sqid");
    REQUIRE(sq >= 1);
    REQUIRE(sq <= 4);
    ++per_sq[sq];
    if (row.at("op") == "read") {
      ++reads;
      bad += sq == 4;
    } else {
      ++writes;
      bad += sq != 4;
    }
  }
  CHECK(reads + writes == 1600);
  CHECK(reads > 600);
  CHECK(writes > 600);
  CHECK(bad == 0);
  CHECK(per_sq[4] == writes);
  // Reads of core k go to SQ k mod 3 + 1: core 3 shares SQ 1 with core 0.
  CHECK(per_sq[1] > per_sq[2]);
}

TEST_CASE("with isolation a polled read stays on its own core's poll queue", "[host][blkmq][platform]") {
  // select_isr, 4 cores: I/O queue pairs 1-4 take interrupts, 5-8 are the
  // cores' poll pairs. Isolation 3:1 sends core 3's reads to SQ 1, but a
  // latency-critical read is polled by the core that issued it, so it must
  // go to that core's poll SQ, 5 + core; the throughput writer's to SQ 4.
  std::string dir = scratch("rwiso-polled");
  auto s = run_traced(dir, "quick",
                      {{"host.cores", "4"}, {"host.blkmq.rw_isolation", "on"},
                       {"host.nvme.completion", "select_isr"}, {"ssd.nvme.max_io_queues", "8"}},
                      "[lc]\ndirect=1\nrw=randread\nbs=4k\niodepth=2\nnumjobs=4\nnumber_ios=50\nsize=8m\n"
                      "workload_attr=1\ncpus_allowed=0-3\ncpus_allowed_policy=split\n"
                      "[w]\ndirect=1\nrw=randwrite\nbs=4k\niodepth=2\nnumber_ios=50\nsize=8m\noffset=16m\n"
                      "cpus_allowed=3\n");
  for (const auto& j : s["jobs"]) CHECK(j["ios"] == 50);  // no polled read waits on a queue nobody polls
  std::map<std::string, std::set<uint64_t>> sqs;
  for (const CsvRow& row : csv_rows(dir + "/requests.csv")) sqs[row.at("job")].insert(u64(row, "sqid"));
  for (unsigned k = 0; k < 4; ++k) CHECK(sqs[fmt::format("lc.{}", k)] == std::set<uint64_t>{5 + k});
  CHECK(sqs["w"] == std::set<uint64_t>{4});
  CHECK(s["counters"]["host.interrupts_avoided"] == 200);
}

TEST_CASE("the hazard rule makes a bypassing read wait for the queued write of its LBA at the device",
          "[host][blkmq][platform]") {
  // One tag, one core. The writer issues W0 (LBA 0, takes the tag) at
  // t = 0 and W1 (LBA 1, queued) at 1.5 us; the latency-critical reader (attr 1)
  // starts at 4 us, while W0 is still in flight, and reads LBA 1. W1 must
  // reach the device first: it is put on the dispatch list ahead of the read.
  std::string dir = scratch("hazard");
  auto s = run_traced(dir, "quick",
                      {{"host.cores", "1"}, {"host.nvme.queue_depth", "2"}, {"host.blkmq.bypass", "on"}},
                      "[w]\ndirect=1\nrw=write\nbs=4k\nsize=8k\niodepth=2\nnumber_ios=2\n"
                      "[r]\ndirect=1\nrw=read\nbs=4k\noffset=4k\nsize=4k\niodepth=1\nnumber_ios=1\nworkload_attr=1\n"
                      "startdelay=4us\n");
  const auto& c = s["counters"];
  CHECK(c["host.blkmq.bypassed"] == 1);
  CHECK(c["host.blkmq.hazard_ordered"] == 1);
  auto rows = csv_rows(dir + "/requests.csv");
  REQUIRE(rows.size() == 3);
  const CsvRow *w1 = nullptr, *rd = nullptr;
  for (const CsvRow& x : rows) {
    if (x.at("op") == "write" && u64(x, "lba") == 1) w1 = &x;
    if (x.at("op") == "read") rd = &x;
  }
  REQUIRE(w1);
  REQUIRE(rd);
  CHECK(u64(*rd, "lba") == 1);
  CHECK(u64(*w1, "fetch_end_ps") < u64(*rd, "fetch_end_ps"));  // the device fetched W1 first
}

TEST_CASE("without the bypass the same read keeps its place behind the write", "[host][blkmq][platform]") {
  // Bypass off: the read (issued after W1) queues behind W1 in the software
  // queue anyway; nothing is counted as bypassed or ordered.
  auto s = run("quick", {{"host.cores", "1"}, {"host.nvme.queue_depth", "2"}},
               "[w]\ndirect=1\nrw=write\nbs=4k\nsize=8k\niodepth=2\nnumber_ios=2\n"
               "[r]\ndirect=1\nrw=read\nbs=4k\noffset=4k\nsize=4k\niodepth=1\nnumber_ios=1\nworkload_attr=1\n"
               "startdelay=4us\n");
  CHECK(s["counters"]["host.blkmq.bypassed"] == 0);
  CHECK(s["counters"]["host.blkmq.tag_waits"] == 2);  // W1 and the read
}

TEST_CASE("a bypassing write absorbs the queued write it continues", "[host][blkmq][platform]") {
  // W0 (LBA 0) in flight, W1 (LBA 1) queued; the latency-critical writer
  // writes LBA 2 at 4 us: W1 and it leave as one 8 KiB command. 3 writes,
  // 2 write commands; read back one by one and verified.
  auto s = run("quick", {{"host.cores", "1"}, {"host.nvme.queue_depth", "2"}, {"host.blkmq.bypass", "on"}},
               "[w]\ndirect=1\nrw=write\nbs=4k\nsize=8k\niodepth=2\nnumber_ios=2\nverify=1\n"
               "[b]\ndirect=1\nrw=write\nbs=4k\noffset=8k\nsize=4k\niodepth=1\nnumber_ios=1\nworkload_attr=1\n"
               "startdelay=4us\nverify=1\n"
               "[r]\ndirect=1\nstonewall\nrw=read\nbs=4k\nsize=12k\niodepth=1\nnumber_ios=3\nverify=1\n");
  const auto& c = s["counters"];
  CHECK(c["host.blkmq.hazard_merged"] == 1);
  CHECK(c["host.blkmq.hazard_ordered"] == 0);
  CHECK(c["ssd.nvme.write_commands"] == 2);
  CHECK(c["ssd.nvme.bytes_written"] == 12288);
  CHECK(host(s)["verify"]["blocks_checked"] == 3);
  CHECK(host(s)["verify"]["mismatches"] == 0);
}

TEST_CASE("offset_increment starts each clone of a sequential job its own distance further", "[host][fio]") {
  std::string dir = scratch("offset-increment");
  run_traced(dir, "quick", {}, "[seq]\ndirect=1\nrw=read\nbs=4k\niodepth=1\nnumjobs=3\nnumber_ios=5\nsize=1m\noffset=1m\noffset_increment=2m\n");
  // Clone k reads 4 KiB blocks from 1 MiB + k x 2 MiB on (LBAs of 4 KiB:
  // 256 + 512 k), in order.
  std::map<std::string, std::vector<uint64_t>> lbas;
  for (const CsvRow& row : csv_rows(dir + "/requests.csv")) lbas[row.at("job")].push_back(u64(row, "lba"));
  CHECK(lbas["seq.0"] == std::vector<uint64_t>{256, 257, 258, 259, 260});
  CHECK(lbas["seq.1"] == std::vector<uint64_t>{768, 769, 770, 771, 772});
  CHECK(lbas["seq.2"] == std::vector<uint64_t>{1280, 1281, 1282, 1283, 1284});
}

TEST_CASE("an offset_increment that puts a clone beyond the device is a configuration error naming it",
          "[host][fio]") {
  CHECK_THROWS_WITH(run("quick", {}, "[seq]\ndirect=1\nrw=read\nbs=4k\nnumjobs=3\nnumber_ios=5\noffset_increment=60%\n"),
                    Catch::Contains("offset_increment") && Catch::Contains("clone 2"));
}
