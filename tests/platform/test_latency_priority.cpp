// SPDX-License-Identifier: BSD-3-Clause
// The workload attribute inside the drive (ssd.priority.flash): a
// latency-critical reader (workload_attr=1, QD1) next to a throughput reader
// at QD32 on the quick preset. With latency-first dies, a latency-critical
// read waits at a die for at most the read in progress there (a Z-NAND read
// holds its die 35 ns + 3 us + 2.56 us = 5.595 us), so none takes more than
// two such reads longer than the median; without, it queues behind the
// throughput reads at the die.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
constexpr double kReadUs = 5.595;

nlohmann::json two_readers(bool priority) {
  return run_server(std::string("priority-") + (priority ? "on" : "off"), "quick",
                    {{"host.cores", "2"}, {"ssd.priority.flash", priority ? "true" : "false"}},
                    "[global]\ndirect=1\nruntime=100ms\ntime_based=1\nbs=4k\nrw=randread\n"
                    "[lat]\niodepth=1\nworkload_attr=1\ncpus_allowed=0\n"
                    "[thr]\niodepth=32\ncpus_allowed=1\n");
}
}  // namespace

TEST_CASE("latency-first dies bound a latency-critical read's wait to the read in progress", "[platform][priority]") {
  auto off = two_readers(false), on = two_readers(true);
  const auto& lon = on["jobs"][0]["latency_us"]["read"];
  const auto& loff = off["jobs"][0]["latency_us"]["read"];
  REQUIRE(lon["count"].get<uint64_t>() >= 1000);
  REQUIRE(loff["count"].get<uint64_t>() >= 1000);
  CHECK(lon["max"].get<double>() <= lon["p50"].get<double>() + 2 * kReadUs);
  CHECK(loff["max"].get<double>() > loff["p50"].get<double>() + 2 * kReadUs);
  CHECK(lon["p99"].get<double>() < loff["p99"].get<double>());
  // The throughput reader keeps its rate (the platform's ceiling, ~222,000 IOPS).
  CHECK(on["jobs"][1]["iops"].get<double>() == Approx(off["jobs"][1]["iops"].get<double>()).epsilon(0.01));
}

// ssd.priority.dma on a link slow enough to be the bottleneck (gen1 x1: a
// 4 KiB read's data takes 17.92 us on the wire, worked out in
// test_pcie_scopes.cpp), so the throughput reader's data queues for it.
// Without ordering, every finished read is booked on the link at once and
// the latency-critical read's data waits behind the throughput reader's 32;
// with it, the engine has two transfers on the link and the
// latency-critical one goes next: two transfers, then its own, plus the
// Z-NAND read (5.595 us) and a few microseconds of host and controller.
namespace {
constexpr double kWireUs = 17.92;

nlohmann::json two_readers_on_slow_link(bool priority) {
  return run_server(std::string("dma-priority-") + (priority ? "on" : "off"), "quick",
                    {{"host.cores", "2"}, {"pcie.gen", "1"}, {"pcie.lanes", "1"},
                     {"ssd.priority.dma", priority ? "true" : "false"}},
                    "[global]\ndirect=1\nruntime=100ms\ntime_based=1\nbs=4k\nrw=randread\n"
                    "[lat]\niodepth=1\nworkload_attr=1\ncpus_allowed=0\n"
                    "[thr]\niodepth=32\ncpus_allowed=1\n");
}
}  // namespace

TEST_CASE("a latency-first DMA engine sends a latency-critical read's data after the transfers on the link",
          "[platform][priority]") {
  auto off = two_readers_on_slow_link(false), on = two_readers_on_slow_link(true);
  const auto& lon = on["jobs"][0]["latency_us"]["read"];
  const auto& loff = off["jobs"][0]["latency_us"]["read"];
  REQUIRE(lon["count"].get<uint64_t>() >= 1000);
  CHECK(lon["p99"].get<double>() <= 3 * kWireUs + kReadUs + 5);
  CHECK(lon["p50"].get<double>() >= 3 * kWireUs);
  CHECK(loff["p50"].get<double>() >= 30 * kWireUs);
  CHECK(drive(on)["nvme"]["dma"]["waits"].get<uint64_t>() > 0);
  CHECK_FALSE(drive(off)["nvme"].contains("dma"));
  // The link stays saturated: one 4 KiB transfer per 17.92 us plus the
  // commands' and completions' small TLPs, with or without ordering.
  auto total = [](const nlohmann::json& s) {
    return s["jobs"][0]["iops"].get<double>() + s["jobs"][1]["iops"].get<double>();
  };
  CHECK(total(on) == Approx(total(off)).epsilon(0.01));
  CHECK(total(on) <= 1e6 / kWireUs);
  CHECK(total(on) >= 0.95e6 / kWireUs);
}
