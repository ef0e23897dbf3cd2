// SPDX-License-Identifier: BSD-3-Clause
// fsync's NVMe Flush: sent after the written-back region when the controller
// reports a volatile write cache (Identify VWC bit 0), not otherwise.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"
#include "platforms/server/ServerTop.hpp"
#include "tests/ssd/NvmeRig.hpp"
#include "vp/core/RequestLog.hpp"

using namespace vp;
using namespace vp::test;

namespace {
constexpr uint64_t kUs = 1000000;
// Round costs: submit 1 us, ISR 2 us, reap 0.5 us, switch 3 us, 1 us per
// page copied into the cache. Three 4 KiB (one page) buffered writes on
// core 1, each followed by an fsync.
const Sets kSets = with(kRoundHostCosts, {{"host.pagecache.size", "4MiB"},
                    {"host.pagecache.write_cost", "1us"},
                    {"workload.fio",
                     "[w]\nrw=write\nbs=4k\nsize=1m\ndirect=0\nfsync=1\nnumber_ios=3\ncpus_allowed=1\n"}});

struct Outcome {
  std::vector<ssd::IoOp> ops;  // as the firmware saw them
  std::vector<CsvRow> rows;
  uint64_t flushes, fsyncs, ctxsw, irq, kernel;  // core 1's times
  uint64_t irq0, kernel0, ctxsw0;                 // core 0's
};

// The host in front of RecordingFirmware (each command done 1 us after it
// reaches the firmware), with or without a volatile write cache.
Outcome run_on_firmware(bool vwc, const std::string& dir, const Sets& more = {}) {
  Config cfg = model_config("quick", kSets, more);
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  RequestLog log(dir + "/requests.csv");
  Services svc{cfg, stats, waves, tracker, 1, &log};
  RecordingFirmware fw("fw", 0, vwc);
  platform::ServerTop rig("rig", svc, &fw);  // the server's host and controller in front of it
  for (int i = 0; i < 100 && !rig.workload.finished(); ++i) sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
  REQUIRE(rig.workload.finished());
  Outcome o;
  for (const auto& s : fw.seen) o.ops.push_back(s.op);
  o.flushes = stats.value("host.nvme.flushes");
  o.fsyncs = rig.workload.runners()[0]->result().fsyncs;
  o.ctxsw = stats.value("host.core1.cpu_ctxsw_ps");
  o.irq = stats.value("host.core1.cpu_irq_ps");
  o.kernel = stats.value("host.core1.cpu_kernel_ps");
  o.irq0 = stats.value("host.core0.cpu_irq_ps");
  o.kernel0 = stats.value("host.core0.cpu_kernel_ps");
  o.ctxsw0 = stats.value("host.core0.cpu_ctxsw_ps");
  sc_core::sc_stop();
  log.close();  // requests.csv appears complete
  return o;
}
}  // namespace

TEST_CASE("with a volatile write cache each fsync ends with one Flush from the job's core",
          "[host][pagecache][flush]") {
  std::string dir = scratch("fsync_vwc");
  Outcome o = run_on_firmware(true, dir);
  // Write-back of the page, then the Flush, three times.
  using ssd::IoOp;
  CHECK(o.ops == std::vector<IoOp>{IoOp::Write, IoOp::Flush, IoOp::Write, IoOp::Flush, IoOp::Write, IoOp::Flush});
  CHECK(o.flushes == 3);
  CHECK(o.fsyncs == 3);
  // Core 1 per fsync: the write-back's completion (ISR 2 us + reap 0.5 us)
  // wakes the fsyncing thread (3 us), which sends the Flush (1 us); the
  // Flush's completion (2 + 0.5 us) wakes it again (3 us). Plus the page's
  // 1 us copy per write and 1.1 us to submit each write-back (1 us plus
  // blk-mq's 100 ns insert into the plug, host.blkmq.insert_cost); the
  // Flush, unplugged with a free tag, goes straight to the driver (1 us).
  // irq = 3 x 2 x 2 us = 12 us; ctxsw = 3 x 2 x 3 us = 18 us;
  // kernel = 3 x (1 + 1.1 + 1 + 2 x 0.5) us = 12.3 us.
  CHECK(o.irq == 12 * kUs);
  CHECK(o.ctxsw == 18 * kUs);
  CHECK(o.kernel == 12300000);
  // requests.csv: the Flushes as op flush, no data, through core 1's SQ 2.
  auto rows = csv_rows(dir + "/requests.csv");
  REQUIRE(rows.size() == 6);
  unsigned flushes = 0;
  for (const CsvRow& r : rows) {
    if (r.at("op") != "flush") continue;
    ++flushes;
    CHECK(r.at("bytes") == "0");
    CHECK(r.at("sqid") == "2");
    // The firmware answers 1 us after the command reached it.
    CHECK(u64(r, "firmware_end_ps") - u64(r, "fetch_end_ps") == 1 * kUs);
  }
  CHECK(flushes == 3);
}

TEST_CASE("without a volatile write cache fsync sends no Flush", "[host][pagecache][flush]") {
  std::string dir = scratch("fsync_novwc");
  Outcome o = run_on_firmware(false, dir);
  using ssd::IoOp;
  CHECK(o.ops == std::vector<IoOp>{IoOp::Write, IoOp::Write, IoOp::Write});
  CHECK(o.flushes == 0);
  CHECK(o.fsyncs == 3);
  // Per fsync one completion (2 us ISR, 0.5 us reap) and one wake-up (3 us):
  // irq 6 us, ctxsw 9 us, kernel 3 x (1 copy + 1.1 submit + 0.5 reap) us = 7.8 us.
  CHECK(o.irq == 6 * kUs);
  CHECK(o.ctxsw == 9 * kUs);
  CHECK(o.kernel == 7800000);
  CHECK(csv_rows(dir + "/requests.csv").size() == 3);
}

TEST_CASE("the server platform's firmware has no volatile write cache so fsync sends no Flush",
          "[host][pagecache][flush]") {
  auto s = run("quick", {{"host.pagecache.size", "4MiB"}},
               "[w]\nrw=write\nbs=8k\nsize=1m\ndirect=0\nfsync=1\nnumber_ios=4\n");
  CHECK(s["jobs"][0]["fsyncs"] == 4);
  CHECK(s["counters"]["host.nvme.flushes"] == 0);
  CHECK(drive(s)["device"]["write_commands"] == 4);
}

TEST_CASE("an fsync whose completions another core takes still sends its Flush from the job's core",
          "[host][pagecache][flush][irq]") {
  // irq_affinity 0: core 0 takes every interrupt, reaps, and wakes core 1,
  // which sends the Flush itself and is woken again when it completes.
  std::string dir = scratch("fsync_vwc_remote");
  Outcome o = run_on_firmware(true, dir, {{"host.nvme.irq_affinity", "0"}});
  CHECK(o.flushes == 3);
  CHECK(o.fsyncs == 3);
  // Core 1 per fsync: copy 1 us, write-back 1.1 us, Flush 1 us (kernel
  // 3 x 3.1 = 9.3 us) and two wake-ups (ctxsw 3 x 2 x 3 = 18 us), no irq.
  CHECK(o.irq == 0);
  CHECK(o.kernel == 9300000);
  CHECK(o.ctxsw == 18 * kUs);
  // Core 0: 8 admin + 6 I/O interrupts x 2 us = 28 us, 6 reaps x 0.5 us = 3 us, no switch.
  CHECK(o.irq0 == 28 * kUs);
  CHECK(o.kernel0 == 3 * kUs);
  CHECK(o.ctxsw0 == 0);
  for (const CsvRow& r : csv_rows(dir + "/requests.csv"))
    if (r.at("op") == "flush") CHECK(r.at("sqid") == "2");  // core 1's queue
}
