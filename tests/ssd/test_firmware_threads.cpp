// SPDX-License-Identifier: BSD-3-Clause
// The firmware as threads on embedded cores (DeepFlash FAST'20): task costs
// add up along a request's path, ILOCK serialises and forwards requests to
// one range, DIOS shares one SQ's work, XOR scrambling spreads strides over
// TRANS shards, and same-queue same-LBA order holds across the cache bypass.
//
// Rig: Firmware -> CacheLayer (none, or burst) -> StoreFtl (answers 10 us
// after submission, keeps the data), 100 ns SSD DRAM. Clock 1 GHz, so one
// cycle is 1 ns. Costs unless a test says otherwise (cycles):
//   fetch_batch 50, fetch 100, parse 300, lock 40, lock_level 10,
//   cache_lookup 20, cache 1000, trans 200, compose 70, complete 30,
//   cq_flush 60, message 5.
// Cores never preempt: an item waits for the one its core is running, even
// an urgent one (a lock reply). An NVMQ fetch starts at the doorbell and
// takes what the SQ holds then, so of commands submitted one after the other
// at t = 0 the first is fetched alone.
// Threads are placed round robin over the cores role by role (nvmq, trans,
// fcmd, cache, ilock); with 16 cores every thread has a core to itself.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <catch2/catch.hpp>
#include <map>
#include <systemc>
#include <vector>

#include "tests/ssd/CacheRig.hpp"
#include "tests/ssd/FirmwareTestCosts.hpp"
#include "vp/ssd/Drive.hpp"
#include "vp/ssd/firmware/Firmware.hpp"
#include "vp/ssd/ftl/PageMappingFtl.hpp"
#include "vp/ssd/ShardHash.hpp"

using namespace vp;
using namespace vp::test;

namespace {

constexpr Tick kNs = 1000;

Sets costs(Sets more) {
  Sets s = {{"ssd.fw.cores", "16"},           {"ssd.fw.cost.lock", "40"},        {"ssd.fw.cost.lock_level", "10"},
            {"ssd.fw.cost.cache", "1000"},     {"ssd.fw.organisation", "deepflash"},
            {"ssd.fw.threads.nvmq", "1"},      {"ssd.fw.threads.cache", "1"},     {"ssd.fw.threads.fcmd", "1"},
            {"ssd.fw.threads.ilock", "1"},     {"ssd.fw.threads.log", "0"},       {"ssd.fw.threads.bgc", "0"}};
  s.insert(s.end(), more.begin(), more.end());
  return firmware_test_costs(s);
}

struct Cmd {
  Tick at;
  ssd::IoOp op;
  uint64_t lpn;
  uint16_t sqid = 1;
  uint8_t fill = 0;
  uint8_t attr = 0;  // the workload attribute (non-zero: latency-critical)
};

struct FwRig : ModelServices, ssd::FirmwareClient {
  explicit FwRig(const Sets& sets)
      : ModelServices(model_config("", {}, costs(sets))),
        ftl("ftl"),
        dram("dram"),
        cache("cache", svc, static_cast<uint32_t>(svc.cfg.get_size("ssd.flash.page_size")), vp::ssd::Drive::write_buffer_bytes(vp::ScopedConfig(svc.cfg, "ssd")), vp::ssd::Drive::stripe_pages(vp::ScopedConfig(svc.cfg, "ssd"))),
        fw("fw", svc, ssd::PageMappingFtl::shard_map_from(ScopedConfig(svc.cfg, ssd::PageMappingFtl::kScope))) {
    fw.ftl.bind(cache.target);
    cache.ftl.bind(ftl);
    cache.dram.bind(dram.target);
    cache.set_base(dram.reserve(cache.dram_bytes(), "cache"));
  }
  void firmware_issued(ssd::HostCommand& c) override { issued[c.slot] = now_ps(); }
  void firmware_done(ssd::HostCommand& c) override { done[c.slot] = now_ps(); }

  void run(const std::vector<Cmd>& cmds) {
    hc.resize(cmds.size());
    bufs.resize(cmds.size());
    for (size_t i = 0; i < cmds.size(); ++i) {
      bufs[i].assign(kCachePage, cmds[i].fill);
      hc[i].op = cmds[i].op;
      hc[i].byte_offset = cmds[i].lpn * kCachePage;
      hc[i].bytes = kCachePage;
      hc[i].data = bufs[i].data();
      hc[i].sqid = cmds[i].sqid;
      hc[i].attr = cmds[i].attr;
      hc[i].client = this;
      hc[i].slot = static_cast<uint32_t>(i);
    }
    submit_in_time(cmds.size(), [cmds](size_t i) { return cmds[i].at; }, [this](size_t i) { fw.submit(hc[i]); });
    REQUIRE(done.size() == cmds.size());
  }
  Tick issued_ns(uint32_t i) const { return issued.at(i) / kNs; }
  Tick done_ns(uint32_t i) const { return done.at(i) / kNs; }
  uint64_t busy_ns(const std::string& thread) const { return stat("ssd.fw.thread." + thread + ".busy_ps") / kNs; }

  StoreFtl ftl;
  FixedDram dram;
  ssd::CacheLayer cache;
  ssd::Firmware fw;
  std::vector<ssd::HostCommand> hc;
  std::vector<std::vector<uint8_t>> bufs;
  std::map<uint32_t, Tick> issued, done;
};

using ssd::IoOp;

}  // namespace

TEST_CASE("deepflash a single read's firmware time is the sum of its tasks", "[ssd][firmware]") {
  FwRig rig({});
  rig.run({{0, IoOp::Read, 5}});
  // NVMQ fetch 50 + 100 = 150; parse 300 -> 450; ILOCK acquire on an empty
  // tree 40 + 5 (message) -> 495; reply to NVMQ 5 -> 500; NVMQ's own cache
  // lookup (the bypass) 20 -> 520, a miss; TRANS 5 + 200 -> 725: issued.
  CHECK(rig.issued_ns(0) == 725);
  // The FTL answers 10 us later, 10,725; the NVMQ writes the CQ entry and
  // flushes: 5 + 30 + 60 = 95 -> 10,820.
  CHECK(rig.done_ns(0) == 10'820);
  CHECK(rig.busy_ns("nvmq0") == 150 + 300 + 5 + 20 + 95);
  CHECK(rig.busy_ns("trans0") == 205);
  // ILOCK: the acquire (45) and the release, which walks a one-node tree:
  // 40 + 5 + 10 = 55.
  CHECK(rig.busy_ns("ilock0") == 45 + 55);
  CHECK(rig.busy_ns("cache0") == 0);  // a miss never reaches CACHE with the bypass
  CHECK(rig.stat("ssd.fw.cache.bypassed") == 1);
  CHECK(rig.stat("ssd.fw.busy_ps") == (570 + 205 + 100) * kNs);
  CHECK(rig.fw.threads().size() == 5);  // nvmq, trans, fcmd, cache, ilock
}

TEST_CASE("layered firmware runs one request as one task of all its steps", "[ssd][firmware]") {
  FwRig rig({{"ssd.fw.organisation", "layered"}, {"ssd.fw.cores", "1"}});
  rig.run({{0, IoOp::Read, 5}});
  // fetch_batch + fetch + parse + cache_lookup + trans + compose = 50 + 100 +
  // 300 + 20 + 200 + 70 = 740; completion: complete + cq_flush = 90, no message.
  CHECK(rig.issued_ns(0) == 740);
  CHECK(rig.done_ns(0) == 10'740 + 90);
  CHECK(rig.busy_ns("layered0") == 830);
  CHECK(rig.fw.threads().size() == 1);
}

namespace {
// One layered instance on one core: four throughput reads at 0, then a
// latency-critical read at 100 ns. Each is one 740 ns task (see above).
std::vector<Cmd> four_then_latency() {
  std::vector<Cmd> c;
  for (uint64_t i = 0; i < 4; ++i) c.push_back({0, IoOp::Read, 10 + i});
  c.push_back({100 * kNs, IoOp::Read, 20, 1, 0, 1});
  return c;
}
}  // namespace

TEST_CASE("with latency-first queues a latency-critical command's task runs next", "[ssd][firmware][priority]") {
  FwRig rig({{"ssd.fw.organisation", "layered"}, {"ssd.fw.cores", "1"}});
  rig.fw.set_latency_first(true);
  rig.run(four_then_latency());
  // Read 0 runs 0-740 ns; the latency-critical read goes next, 740-1,480;
  // then reads 1, 2, 3.
  CHECK(rig.issued_ns(0) == 740);
  CHECK(rig.issued_ns(4) == 2 * 740);
  CHECK(rig.issued_ns(1) == 3 * 740);
  CHECK(rig.issued_ns(3) == 5 * 740);
}

TEST_CASE("without latency-first queues a latency-critical command's task waits its turn", "[ssd][firmware][priority]") {
  FwRig rig({{"ssd.fw.organisation", "layered"}, {"ssd.fw.cores", "1"}});
  rig.run(four_then_latency());
  CHECK(rig.issued_ns(1) == 2 * 740);
  CHECK(rig.issued_ns(4) == 5 * 740);
}

TEST_CASE("an out-of-order core runs a task in the cycles over its speedup", "[ssd][firmware]") {
  FwRig rig({{"ssd.fw.organisation", "layered"}, {"ssd.fw.cores", "1"}, {"ssd.fw.core_type", "ooo"},
             {"ssd.fw.ooo_speedup", "2.5"}});
  rig.run({{0, IoOp::Read, 5}});
  // 740 cycles / 2.5 = 296 ns; the completion's 90 cycles 36 ns.
  CHECK(rig.issued_ns(0) == 296);
  CHECK(rig.done_ns(0) == 10'296 + 36);
}

TEST_CASE("layered instances on two cores pay memory contention on the shared map cache and flash controller",
          "[ssd][firmware]") {
  FwRig rig({{"ssd.fw.organisation", "layered"}, {"ssd.fw.cores", "2"}, {"ssd.fw.contention", "0.5"}});
  rig.run({{0, IoOp::Read, 5}});
  // Two cores touch the map, the cache and the flash controller: those tasks
  // cost 1 + 0.5 x (2 - 1) = 1.5 times: 50 + 100 + 300 + 1.5 x (20 + 200 +
  // 70) = 885. Fetch and parse touch the SQ's own instance only.
  CHECK(rig.issued_ns(0) == 885);
}

TEST_CASE("manylayered hands a command from its SQ's instance to the instance owning its pages",
          "[ssd][firmware]") {
  FwRig rig({{"ssd.fw.organisation", "manylayered"}, {"ssd.ftl.shards", "2"},
             {"ssd.ftl.shard_partition", "channel"}});
  rig.run({{0, IoOp::Read, 1}, {0, IoOp::Read, 2}});
  // SQ 1 belongs to instance 0, which fetches and parses both: 50 + 100 +
  // 300 = 450 each, 0-450 and 450-900. Page 1 is shard 1's: a message to
  // layered1, which looks it up and translates it, 450-675 (5 + 20 + 200).
  // Page 2 is instance 0's own: 900-1120 (20 + 200), no message.
  CHECK(rig.issued_ns(0) == 675);
  CHECK(rig.issued_ns(1) == 1120);
  // Each completes on its owner: complete + flush + message 95 (layered1,
  // 10,675-10,770; layered0, 11,120-11,215).
  CHECK(rig.done_ns(0) == 10'770);
  CHECK(rig.done_ns(1) == 11'215);
  CHECK(rig.busy_ns("layered0") == 2 * 450 + 220 + 95);
  CHECK(rig.busy_ns("layered1") == 225 + 95);
  CHECK(rig.fw.threads().size() == 4);  // two layered threads, two FCMD threads
}

namespace {
// Two reads of SQ 1 at t = 0, A to page 0 and B to a page given by the
// test, with two NVMQ threads (DIOS) and two TRANS shards (modulo: an odd
// page goes to trans1). NVMQ0 fetches A alone (0-150) and parses it
// (150-450) while NVMQ1 fetches B (150-300) and parses it (300-600). A's
// acquire at ILOCK, 450-495 (empty tree), is granted: reply on NVMQ0
// 495-500, its cache lookup 500-520 (a miss), trans0 520-725: issued. B's
// acquire at ILOCK is 600-655 (a one-node tree: 40 + 5 + 10).
Sets two_nvmq(Sets more) {
  Sets s = {{"ssd.fw.threads.nvmq", "2"}, {"ssd.ftl.shards", "2"}};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}
}  // namespace

TEST_CASE("ilock forwards a request to the thread holding its 256 KiB range", "[ssd][firmware]") {
  FwRig rig(two_nvmq({}));
  rig.run({{0, IoOp::Read, 0}, {0, IoOp::Read, 1}});
  // Page 1 is in page 0's range (64 pages of 4 KiB): ILOCK answers NVMQ1
  // with the holder, NVMQ0 (reply 655-660); NVMQ1 forwards B to NVMQ0
  // (660-665), which serves it under its lock: lookup 665-685, trans1
  // 685-890.
  CHECK(rig.issued_ns(0) == 725);
  CHECK(rig.issued_ns(1) == 890);
  CHECK(rig.stat("ssd.fw.ilock.forwards") == 1);
  CHECK(rig.stat("ssd.fw.ilock.waits") == 0);
  // B is NVMQ0's now: NVMQ1 only fetched and parsed it and read the reply.
  CHECK(rig.busy_ns("nvmq1") == 150 + 300 + 5);
  // NVMQ0: fetch 150, parse 300, reply 5, lookup 20, forward 5, lookup 20,
  // and both completions, 5 + 30 + 60 = 95 each (A's 10,725-10,820, B's
  // 10,890-10,985).
  CHECK(rig.busy_ns("nvmq0") == 150 + 300 + 5 + 20 + 5 + 20 + 2 * 95);
  CHECK(rig.done_ns(0) == 10'820);
  CHECK(rig.done_ns(1) == 10'985);
}

TEST_CASE("without forwarding a request to a held range waits until the holder's request completes",
          "[ssd][firmware]") {
  FwRig rig(two_nvmq({{"ssd.fw.ilock.forwarding", "false"}}));
  rig.run({{0, IoOp::Read, 0}, {0, IoOp::Read, 1}});
  CHECK(rig.issued_ns(0) == 725);
  // A completes at 10,725 + 95 = 10,820 and releases its range at ILOCK
  // (one node: 55) -> 10,875; B, waiting since 655 with NVMQ1 blocked, takes
  // it: reply 10,875-10,880, lookup 10,880-10,900, trans1 10,900-11,105.
  CHECK(rig.done_ns(0) == 10'820);
  CHECK(rig.issued_ns(1) == 11'105);
  CHECK(rig.stat("ssd.fw.ilock.waits") == 1);
  CHECK(rig.stat("ssd.fw.ilock.forwards") == 0);
  // While it waits, NVMQ1 asks ILOCK again every 2 us (ssd.fw.ilock.retry):
  // at 2,655 (ILOCK 2,655-2,710, "still held" 2,710-2,715), 4,715, 6,775
  // and 8,835; the next would be at 10,895, after the grant.
  CHECK(rig.busy_ns("nvmq1") == 150 + 300 + 4 * 5 + 5 + 20 + 95);
  // ILOCK: A's acquire 45, B's 55, four polls of 55, both releases 55.
  CHECK(rig.busy_ns("ilock0") == 45 + 55 + 4 * 55 + 2 * 55);
}

TEST_CASE("requests to different ilock ranges proceed in parallel", "[ssd][firmware]") {
  FwRig rig(two_nvmq({}));
  rig.run({{0, IoOp::Read, 0}, {0, IoOp::Read, 65}});
  // Page 65 is in range 1 (and shard 1): B's acquire 600-655 is granted,
  // NVMQ1 gets the reply 655-660, looks up 660-680, trans1 680-885, while A
  // goes on as before; B completes on NVMQ1.
  CHECK(rig.issued_ns(0) == 725);
  CHECK(rig.issued_ns(1) == 885);
  CHECK(rig.stat("ssd.fw.ilock.forwards") == 0);
  CHECK(rig.stat("ssd.fw.ilock.waits") == 0);
  CHECK(rig.busy_ns("nvmq1") == 150 + 300 + 5 + 20 + 95);
}

namespace {
// Four reads of SQ 1 at t = 0 to pages 0, 64, 128, 192 (four ranges), two
// NVMQ threads, only fetch (batch 50 + 100 each) and parse (300) costing.
Sets fetch_parse_only(const std::string& dispatch) {
  return two_nvmq({{"ssd.fw.dispatch", dispatch}, {"ssd.fw.cost.lock", "0"}, {"ssd.fw.cost.lock_level", "0"},
                   {"ssd.fw.cost.cache_lookup", "0"}, {"ssd.fw.cost.trans", "0"}, {"ssd.fw.cost.complete", "0"},
                   {"ssd.fw.cost.cq_flush", "0"}, {"ssd.fw.cost.message", "0"}});
}
const std::vector<Cmd> kFourReads = {
    {0, IoOp::Read, 0}, {0, IoOp::Read, 64}, {0, IoOp::Read, 128}, {0, IoOp::Read, 192}};
}  // namespace

TEST_CASE("static queue allocation leaves one SQ's commands to one NVMQ thread", "[ssd][firmware]") {
  FwRig rig(fetch_parse_only("per_sq"));
  rig.run(kFourReads);
  // SQ 1 -> NVMQ0 only. Fetch A 0-150, parse A 150-450, fetch B C D
  // 450-800 (50 + 3 x 100); A's lock reply waits for that fetch: A at 800.
  // Parses B 800-1100, C 1100-1400, D 1400-1700; B's reply waits for C's
  // parse: B and C at 1400, D at 1700.
  CHECK(rig.issued_ns(0) == 800);
  CHECK(rig.issued_ns(1) == 1400);
  CHECK(rig.issued_ns(2) == 1400);
  CHECK(rig.issued_ns(3) == 1700);
  CHECK(rig.busy_ns("nvmq0") == 150 + 350 + 4 * 300);
  CHECK(rig.busy_ns("nvmq1") == 0);
}

TEST_CASE("dios lets an idle NVMQ thread parse commands of a busy SQ", "[ssd][firmware]") {
  FwRig rig(fetch_parse_only("dios"));
  rig.run(kFourReads);
  // NVMQ0 fetches A 0-150 and parses it 150-450 (A at 450) while NVMQ1
  // fetches B C D 150-500. Then NVMQ0 parses B and NVMQ1 C, 500-800; C's
  // reply finds NVMQ1 free (C at 800), B's waits for NVMQ0's parse of D,
  // 800-1100 (B and D at 1100).
  CHECK(rig.issued_ns(0) == 450);
  CHECK(rig.issued_ns(1) == 1100);
  CHECK(rig.issued_ns(2) == 800);
  CHECK(rig.issued_ns(3) == 1100);
  CHECK(rig.busy_ns("nvmq0") == 150 + 3 * 300);
  CHECK(rig.busy_ns("nvmq1") == 350 + 300);
}

TEST_CASE("xor scrambling spreads a stride of the shard count evenly over the shards", "[ssd][firmware]") {
  // Pages 8k for k = 0..63 with 8 shards: modulo puts all on shard 0; the
  // XOR of the 3-bit groups of 8k is the XOR of k's two 3-bit groups, which
  // takes each value 0..7 for 8 of the 64 k.
  std::vector<int> mod(8), xr(8);
  for (uint64_t k = 0; k < 64; ++k) {
    ++mod[ssd::shard_index(8 * k, 8, false)];
    ++xr[ssd::shard_index(8 * k, 8, true)];
  }
  CHECK(mod == std::vector<int>{64, 0, 0, 0, 0, 0, 0, 0});
  CHECK(xr == std::vector<int>(8, 8));
}

namespace {
std::vector<Cmd> strided_reads() {
  std::vector<Cmd> v;
  for (uint64_t k = 0; k < 64; ++k) v.push_back({0, IoOp::Read, 8 * k});
  return v;
}
}  // namespace

TEST_CASE("with xor scrambling a strided pattern keeps every TRANS thread equally busy", "[ssd][firmware]") {
  FwRig rig({{"ssd.ftl.shards", "8"}, {"ssd.ftl.shard_hash", "xor"}, {"ssd.fw.cores", "24"}});
  rig.run(strided_reads());
  // Each TRANS thread translates 8 of the 64 one-page reads: 8 x (5 + 200).
  for (int t = 0; t < 8; ++t) CHECK(rig.busy_ns(fmt::format("trans{}", t)) == 8 * 205);
}

TEST_CASE("with modulo sharding a strided pattern lands on one TRANS thread", "[ssd][firmware]") {
  FwRig rig({{"ssd.ftl.shards", "8"}, {"ssd.ftl.shard_hash", "modulo"}, {"ssd.fw.cores", "24"}});
  rig.run(strided_reads());
  CHECK(rig.busy_ns("trans0") == 64 * 205);
  for (int t = 1; t < 8; ++t) CHECK(rig.busy_ns(fmt::format("trans{}", t)) == 0);
}

TEST_CASE("a read after a write to the same LBA in one SQ returns the written data across the cache bypass",
          "[ssd][firmware]") {
  // A burst buffer below. The write W goes through CACHE (1000 cycles); the
  // read R of the same page, forwarded to W's NVMQ thread, misses at its
  // lookup (W is not in the buffer yet) and takes the shorter path through
  // TRANS: as the two_nvmq cases, W's lookup ends at 520 and CACHE holds it
  // 520-1525, while R's lookup ends at 685 and trans1... here trans0 (page 7
  // is odd only with two shards; one shard here) ends at 890. Without the
  // ordering R would reach the buffer first, miss, and read flash's old
  // 0x11; R waits until W has left (1525), then hits.
  FwRig rig(small_burst({{"ssd.fw.threads.nvmq", "2"}}));
  rig.ftl.store[7].assign(kCachePage, 0x11);  // what flash holds before W
  rig.run({{0, IoOp::Write, 7, 1, 0xAB}, {0, IoOp::Read, 7, 1, 0}});
  CHECK(rig.stat("ssd.fw.order_waits") == 1);
  CHECK(rig.issued_ns(0) == 1525);
  CHECK(rig.issued_ns(1) == 1525);
  CHECK(std::all_of(rig.bufs[1].begin(), rig.bufs[1].end(), [](uint8_t b) { return b == 0xAB; }));
  CHECK(rig.ftl.count(IoOp::Read) == 0);  // R was served by the burst buffer
}

TEST_CASE("deepflash charges every flash transaction to FCMD and GC's and the journal's first to BGC and LOG",
          "[ssd][firmware][platform]") {
  // Random writes over the full quick drive make GC reclaim blocks (copy-back:
  // one transaction per moved page, one erase per block) and a 1 ms
  // checkpoint writes the map. No cache: every host page is one program
  // transaction. GC only in the foreground, and a last read 20 ms later, so
  // no flash work is still in flight when the run ends.
  auto s = run("quick",
               {{"ssd.fw.organisation", "deepflash"}, {"ssd.fw.clock", "1GHz"}, {"ssd.fw.cores", "4"},
                {"ssd.fw.threads.nvmq", "2"}, {"ssd.fw.threads.fcmd", "2"}, {"ssd.ftl.shards", "2"},
                {"ssd.fw.cost.gc", "600"}, {"ssd.fw.cost.journal", "400"}, {"ssd.fw.cost.compose", "70"},
                {"ssd.fw.cost.message", "100"}, {"ssd.ftl.checkpoint_interval", "1ms"},
                {"ssd.ftl.gc.bg_threshold", "0"}},
               "[w]\ndirect=1\nrw=randwrite\nbs=4k\niodepth=8\nnumber_ios=20000\n"
               "[r]\ndirect=1\nstonewall\nstartdelay=20ms\nrw=randread\nbs=4k\nnumber_ios=1\n");
  const auto& c = s["counters"];
  auto n = [&](const std::string& k) { return c[k].get<uint64_t>(); };
  uint64_t gc_txns = n("ssd.ftl.gc.pages_moved") + n("ssd.ftl.gc.invocations") + n("ssd.ftl.wl.migrations");
  REQUIRE(n("ssd.ftl.gc.invocations") > 0);
  REQUIRE(n("ssd.ftl.checkpoint_pages") > 0);
  CHECK(n("ssd.ftl.gc.copybacks") == n("ssd.ftl.gc.pages_moved"));
  CHECK(n("ssd.fw.thread.bgc0.items") == gc_txns);
  CHECK(n("ssd.fw.thread.bgc0.busy_ps") == gc_txns * 700 * kNs);  // (600 + 100) cycles at 1 GHz
  // LOG: each checkpoint page, and an erase whenever the log wraps to a block.
  uint64_t log = n("ssd.fw.thread.log0.items");
  CHECK(log >= n("ssd.ftl.checkpoint_pages"));
  CHECK(n("ssd.fw.thread.log0.busy_ps") == log * 500 * kNs);
  // FCMD composes all of them: 2 KiB pages, so a 4 KiB write is two
  // programs; the last job reads one 4 KiB block, two pages.
  uint64_t fcmd = n("ssd.fw.thread.fcmd0.items") + n("ssd.fw.thread.fcmd1.items");
  CHECK(n("ssd.ftl.page_reads") == 2);
  CHECK(fcmd == n("ssd.ftl.page_writes") + 2 + gc_txns + log);
  CHECK(n("ssd.fw.thread.fcmd0.busy_ps") + n("ssd.fw.thread.fcmd1.busy_ps") == fcmd * 170 * kNs);
}

TEST_CASE("ssd.fw.pin puts a role's threads on the cores it lists and balanced placement fills the rest",
          "[ssd][firmware]") {
  FwRig rig({{"ssd.fw.cores", "4"}, {"ssd.fw.threads.nvmq", "2"}, {"ssd.fw.pin", "nvmq=3 trans=1-2"},
             {"ssd.ftl.shards", "2"}});
  std::map<std::string, unsigned> at;
  for (const auto& t : rig.fw.threads()) at[t->name()] = t->core().index();
  // nvmq0 and nvmq1 dealt over {3}; trans0, trans1 over {1, 2}.
  CHECK(at["nvmq0"] == 3);
  CHECK(at["nvmq1"] == 3);
  CHECK(at["trans0"] == 1);
  CHECK(at["trans1"] == 2);
  // Balanced, heaviest first onto the least loaded core. Cycles per request
  // over a role's threads: nvmq (100 + 300 + 20 + 30 + 60 + 3 x 5) / 2 =
  // 262.5 each, both on core 3; trans (200 + 5) / 2 = 102.5 on cores 1 and
  // 2; then cache0 (0.5 x 1000 + 5 = 505) to empty core 0, ilock0 (2 x 40 +
  // 16 x 10 + 2 x 5 = 250) to core 1 (102.5, tied with 2, lower index),
  // fcmd0 (70 + 5 = 75) to core 2 (102.5).
  CHECK(at["cache0"] == 0);
  CHECK(at["ilock0"] == 1);
  CHECK(at["fcmd0"] == 2);
}

TEST_CASE("a malformed ssd.fw.pin is a configuration error naming it", "[ssd][firmware]") {
  for (const char* bad : {"nvme=0", "nvmq", "nvmq=9", "nvmq=0 nvmq=1"})
    CHECK_THROWS_WITH(run("quick", {{"ssd.fw.organisation", "deepflash"}, {"ssd.fw.cores", "4"},
                                    {"ssd.fw.threads.fcmd", "2"}, {"ssd.fw.pin", bad}},
                          "[r]\nrw=randread\nbs=4k\nnumber_ios=10\n"),
                      Catch::Contains("ssd.fw.pin"));
}

TEST_CASE("the summary reports each firmware core's and thread's utilisation", "[ssd][firmware][platform]") {
  auto s = run("quick",
               {{"ssd.fw.organisation", "deepflash"}, {"ssd.fw.cores", "3"}, {"ssd.fw.threads.nvmq", "2"},
                {"ssd.fw.threads.fcmd", "2"}, {"ssd.fw.cost.message", "50"}},
               "[r]\ndirect=1\nrw=randread\nbs=4k\niodepth=8\nnumber_ios=500\n");
  const auto& f = drive(s)["firmware"];
  const auto& c = s["counters"];
  CHECK(f["organisation"] == "deepflash");
  CHECK(f["dispatch"] == "dios");
  REQUIRE(f["cores"].size() == 3);
  double elapsed_ps = s["sim_time_s"].get<double>() * 1e12;
  double sum = 0, max = 0;
  for (unsigned i = 0; i < 3; ++i) {
    double u = c[fmt::format("ssd.fw.core{}.busy_ps", i)].get<double>() / elapsed_ps;
    CHECK(f["cores"][i]["utilisation"].get<double>() == Approx(u).epsilon(1e-6));
    sum += u, max = std::max(max, u);
  }
  CHECK(f["mean_core_utilisation"].get<double>() == Approx(sum / 3).epsilon(1e-6));
  CHECK(f["max_core_utilisation"].get<double>() == Approx(max).epsilon(1e-6));
  CHECK(f["threads"]["nvmq1"]["utilisation"].get<double>() ==
        Approx(c["ssd.fw.thread.nvmq1.busy_ps"].get<double>() / elapsed_ps).epsilon(1e-6));
  CHECK(f["threads"]["nvmq1"]["items"] == c["ssd.fw.thread.nvmq1.items"]);
}
