// SPDX-License-Identifier: BSD-3-Clause
// The latency of one 4 KiB read on an idle device, worked out by hand from the
// parameters below, stage by stage.
#include <catch2/catch.hpp>

#include "tests/platform/IdleDevice.hpp"

using namespace vp::test;


TEST_CASE("one 4 KiB read on an idle device takes the sum of its stage costs", "[platform][latency]") {
  // Ten reads, each alone on the device (think time far above the latency).
  auto s = run("zssd", kIdle, "[idle]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=10\nthinktime=200\n");
  const auto& job = s["jobs"][0];
  REQUIRE(job["reads"] == 10);
  const auto& b = job["breakdown_us"]["read"];

  double submit = 1.0;                                // host.core.submit_cost
  double sq_wait = (wire_ns(4 + 24) + 300) / 1e3;     // doorbell: posted 4-byte write + one-way latency
  double fetch = (wire_ns(24) + 300 + 60 + wire_ns(64 + 24) + 300) / 1e3;  // read request up, DRAM, 64 B back
  double firmware = (400 + 2 * (160 + 80)) / 800.0;   // 4 KiB = two 2 KiB pages: 880 cycles at 800 MHz
  // The two pages sit on two channels: in parallel, the second issued
  // after both map lookups.
  double flash = (kMapNs + 35 + 3000 + 2048 / 0.8) / 1e3;
  // The media's 4 KiB written into the staging buffer (a miss: the map was
  // touched last) and read out of it (a hit), then 16 TLPs of 256 B.
  double dma = (kStageMissNs + kStageHitNs + wire_ns(4096 + 16 * 24) + 300) / 1e3;
  double cq_post = wire_ns(16 + 24) / 1e3;            // queued behind the data on the same link
  double irq = wire_ns(4 + 24) / 1e3 + 2.0 + 0.5;     // MSI-X behind the CQE, ISR, one completion
  double wakeup = 3.0;                                 // the thread was blocked: context switch

  const double tol = 0.002;  // 2 ns: ps rounding of each wire time
  CHECK(b["host_submit"].get<double>() == Approx(submit).margin(tol));
  CHECK(b["driver_queue"].get<double>() == Approx(0).margin(tol));
  CHECK(b["sq_wait"].get<double>() == Approx(sq_wait).margin(tol));
  CHECK(b["fetch"].get<double>() == Approx(fetch).margin(tol));
  CHECK(b["firmware"].get<double>() == Approx(firmware).margin(tol));
  CHECK(b["flash"].get<double>() == Approx(flash).margin(tol));
  CHECK(b["data_dma"].get<double>() == Approx(dma).margin(tol));
  CHECK(b["cq_post"].get<double>() == Approx(cq_post).margin(tol));
  CHECK(b["interrupt"].get<double>() == Approx(irq).margin(tol));
  CHECK(b["wakeup"].get<double>() == Approx(wakeup).margin(tol));

  // 15.645 us without the SSD DRAM, plus 0.0425 (map) + 1.305 + 1.295 (staging) = 18.2875 us.
  double total = submit + sq_wait + fetch + firmware + flash + dma + cq_post + irq + wakeup;
  const auto& lat = job["latency_us"]["read"];
  CHECK(lat["mean"].get<double>() == Approx(total).margin(0.01));
  CHECK(lat["min"].get<double>() == Approx(total).margin(0.01));
  CHECK(lat["max"].get<double>() == Approx(total).margin(0.01));
  CHECK(total == Approx(18.2875).margin(0.001));
  // Per read: three DRAM reads (two map entries and the staged data out),
  // one write (the data in), two row hits and two misses.
  const auto& c = s["counters"];
  CHECK(c["ssd.dram.reads"] == 30);
  CHECK(c["ssd.dram.writes"] == 10);
  CHECK(c["ssd.dram.read_bytes"] == 10 * (8 + 4096));
  CHECK(c["ssd.dram.write_bytes"] == 10 * 4096);
  CHECK(c["ssd.dram.row_hits"] == 20);
  CHECK(c["ssd.dram.row_misses"] == 20);
  CHECK(c["ssd.dram.busy_ps"] == 10 * 2642500);  // (42.5 + 1305 + 1295) ns each
  CHECK(drive(s)["dram"]["utilisation"].get<double>() ==
        Approx(10 * 2642500e-12 / s["sim_time_s"].get<double>()).epsilon(1e-9));
}

TEST_CASE("a 4 KiB write on an idle device waits for the program", "[platform][latency]") {
  auto s = run("zssd", kIdle, "[w]\ndirect=1\nrw=randwrite\nbs=4k\niodepth=1\nnumber_ios=4\nthinktime=400\n");
  const auto& b = s["jobs"][0]["breakdown_us"]["write"];
  // Data comes first: a 4 KiB read of host memory = 8 request headers? No: one
  // 512 B-limited request per 512 B (MRRS) = 8 header TLPs up, DRAM, 16 TLPs back.
  // Then the data is written into its staging buffer: a miss (the last
  // access was a map update), 1305 ns.
  double dma = (8 * wire_ns(24) + 300 + 60 + wire_ns(4096 + 16 * 24) + 300 + kStageMissNs) / 1e3;
  // Each page is programmed on its own channel: command + 2 KiB in, then
  // tPROG; the second is issued after both map updates.
  double flash = (kMapNs + 35 + 2048 / 0.8 + 100000) / 1e3;
  CHECK(b["data_dma"].get<double>() == Approx(dma).margin(0.002));
  CHECK(b["firmware"].get<double>() == Approx(1.1).margin(0.002));
  CHECK(b["flash"].get<double>() == Approx(flash).margin(0.002));
}

namespace {
// Under load every stage is non-negative, in order, and the stages of each
// I/O add up to its latency, so the means add up to the mean latency.
void check_stages_add_up(const nlohmann::json& s) {
  CHECK(s["stage_order_violations"].get<uint64_t>() == 0);
  for (const auto& j : s["jobs"])
    for (const char* op : {"read", "write"}) {
      const auto& lat = j["latency_us"][op];
      if (lat["count"].get<uint64_t>() == 0) continue;
      double sum = 0;
      for (const auto& [stage, v] : j["breakdown_us"][op].items()) {
        INFO(op << " " << stage);
        CHECK(v.get<double>() >= 0.0);
        CHECK(v.get<double>() <= lat["max"].get<double>());
        sum += v.get<double>();
      }
      CHECK(sum == Approx(lat["mean"].get<double>()).epsilon(1e-9));
    }
}
}  // namespace

TEST_CASE("stages add up to the latency under a mixed load", "[platform][latency]") {
  check_stages_add_up(run("zssd", {},
                          "[m]\ndirect=1\nrw=randrw\nrwmixread=60\nbs=4k\niodepth=64\nnumber_ios=30000\nnumjobs=3\n"));
}

TEST_CASE("stages add up to the latency when PCIe is saturated by large transfers", "[platform][latency]") {
  check_stages_add_up(run("zssd", {{"host.cores", "2"}},
                          "[big]\ndirect=1\nrw=randrw\nbs=128k\niodepth=16\nnumber_ios=2000\nnumjobs=2\n"));
}
