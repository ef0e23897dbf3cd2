// SPDX-License-Identifier: BSD-3-Clause
// Limits that appear when load exceeds them, and Little's law.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
// A cheap host so that only the flash limits throughput; 4 KiB pages so one
// I/O is one page.
Sets small_device(const std::string& dies) {
  return {{"host.cores", "1"},
          {"host.core.submit_cost", "0.2us"},
          {"host.core.isr_cost", "0.3us"},
          {"host.core.complete_cost", "0.1us"},
          {"host.core.ctx_switch_cost", "0.3us"},
          {"ssd.flash.channels", "1"},
          {"ssd.flash.dies_per_package", dies},
          {"ssd.flash.planes_per_die", "1"},
          {"ssd.flash.blocks_per_plane", "64"},
          {"ssd.flash.page_size", "4KiB"},
          {"ssd.flash.block_size", "256KiB"},
          {"ssd.flash.t_cmd", "35ns"},
          {"ssd.flash.t_read", "3us"},
          {"ssd.flash.bus_rate", "800MT/s"}};
}
}  // namespace

TEST_CASE("one die limits reads to one page per (command + tR + transfer)", "[platform][throughput]") {
  auto s = run("zssd", small_device("1"), "[r]\ndirect=1\nrw=randread\nbs=4k\niodepth=16\nnumber_ios=20000\n");
  // The die is held for 35 ns + 3 us + 4096 B / 800 MB/s = 8.155 us per read.
  double limit = 1e6 / 8.155;  // 122,624 IOPS
  CHECK(s["jobs"][0]["iops"].get<double>() == Approx(limit).epsilon(0.01));
  CHECK(s["jobs"][0]["iops"].get<double>() <= limit * 1.0001);
}

TEST_CASE("a shared channel limits reads to one page per bus occupancy", "[platform][throughput]") {
  auto s = run("zssd", small_device("8"), "[r]\ndirect=1\nrw=randread\nbs=4k\niodepth=64\nnumber_ios=40000\n");
  // Eight dies could give 8 / 8.155 us = 981k IOPS, but each read holds the
  // bus for 35 ns + 5.12 us: 1 / 5.155 us = 193,986 IOPS.
  double bus_limit = 1e6 / 5.155;
  CHECK(s["jobs"][0]["iops"].get<double>() == Approx(bus_limit).epsilon(0.02));
  CHECK(s["jobs"][0]["iops"].get<double>() <= bus_limit * 1.0001);
  // The bus was the busy one: bytes over it equal the pages read.
  CHECK(s["counters"]["ssd.flash.bus_bytes"].get<uint64_t>() == 40000ull * 4096);
}

namespace {
// N = X * R: requests in flight = throughput * time each spends in flight.
// A slot is in flight from issue to the thread seeing its completion; at QD 32
// a completed slot also waits for the core to re-submit it, out of flight.
void check_little(int qd, int ios, double tolerance) {
  // A cheap host, so that the device, not the core re-submitting completed
  // slots, is where requests wait.
  Sets cheap_host = {{"host.cores", "1"},
                     {"host.core.submit_cost", "0.2us"},
                     {"host.core.isr_cost", "0.3us"},
                     {"host.core.complete_cost", "0.1us"},
                     {"host.core.ctx_switch_cost", "0.3us"}};
  auto s = run("zssd", cheap_host,
               fmt::format("[r]\ndirect=1\nrw=randread\nbs=4k\niodepth={}\nnumber_ios={}\n", qd, ios));
  double iops = s["jobs"][0]["iops"].get<double>();
  double lat_s = s["jobs"][0]["latency_us"]["read"]["mean"].get<double>() / 1e6;
  INFO("qd " << qd << " iops " << iops << " mean latency s " << lat_s);
  CHECK(iops * lat_s == Approx(qd).epsilon(tolerance));
  CHECK(iops * lat_s <= qd * 1.0001);
}
}  // namespace

TEST_CASE("queue depth 1 obeys Little's law: IOPS = 1 / latency", "[platform][throughput]") {
  check_little(1, 2000, 0.01);
}

TEST_CASE("queue depth 32 obeys Little's law: IOPS = 32 / latency", "[platform][throughput]") {
  check_little(32, 40000, 0.05);
}

TEST_CASE("the PCIe link limits large reads to its payload bandwidth", "[platform][throughput][pcie]") {
  // 128 KiB reads from 16 channels (12.8 GB/s of flash bus) through PCIe 3.0
  // x4: 3.938 GB/s on the wire, of which 256 of every 280 bytes are payload.
  auto s = run("zssd", {{"host.cores", "1"}}, "[big]\ndirect=1\nrw=randread\nbs=128k\niodepth=16\nnumber_ios=4000\n");
  double payload_limit = 8e9 * 4 * 128.0 / 130.0 / 8.0 * 256.0 / 280.0 / 1e6;  // 3600.7 MB/s
  CHECK(s["jobs"][0]["bandwidth_MBps"].get<double>() == Approx(payload_limit).epsilon(0.02));
  CHECK(s["jobs"][0]["bandwidth_MBps"].get<double>() <= payload_limit * 1.0001);
}

namespace {
const std::string kQd32Reads = "[r]\ndirect=1\nrw=randread\nbs=4k\niodepth=32\nnumber_ios=4000\n";
// MSI-X messages for I/O: bring-up's admin commands each sent one too.
double io_messages(const nlohmann::json& s) {
  return s["counters"]["ssd.nvme.msix_sent"].get<double>() - s["counters"]["ssd.nvme.admin_commands"].get<double>();
}
}  // namespace

TEST_CASE("without coalescing every completion sends its own interrupt", "[platform][irq]") {
  auto s = run("quick", {{"host.cores", "1"}}, kQd32Reads);
  CHECK(io_messages(s) == 4000);
  CHECK(s["counters"]["ssd.nvme.irq_coalesced"].get<double>() == 0);
}

TEST_CASE("asking for interrupt coalescing by eight sends an eighth of the I/O interrupts", "[platform][irq]") {
  auto s = run("quick",
               {{"host.cores", "1"},
                {"host.nvme.irq_coalescing_threshold", "8"},
                {"host.nvme.irq_coalescing_time", "100us"}},
               kQd32Reads);
  // 4000 completions, eight per message, at QD32 never 100 us apart: 500,
  // plus at most one message when the aggregation time ends a short batch.
  CHECK(io_messages(s) >= 500);
  CHECK(io_messages(s) <= 501);
  CHECK(s["counters"]["ssd.nvme.irq_coalesced"].get<double>() >= 3499);
}
