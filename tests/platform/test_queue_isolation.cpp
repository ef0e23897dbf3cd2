// SPDX-License-Identifier: BSD-3-Clause
// Read/write queue isolation (IMCOM'17): with in-order fetch, a read queued
// behind a write in its SQ waits for that write, and a write waits while
// the drive's write buffer is full. A reader and a writer on one core share
// an SQ, so reads wait behind stalled writes; on two cores each has its own
// SQ, and only the writer's SQ is ever held.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
// 20 ms of 4 KiB random reads and writes, two of each in flight, through a
// 1 MiB uni cache with a 64 KiB (32-page) write buffer and a controller
// that holds 4 commands; the writer on core `writer_core`.
nlohmann::json reader_and_writer(int writer_core) {
  return run_server("isolation-" + std::to_string(writer_core), "quick",
                    {{"host.cores", "2"},
                     {"ssd.cache.organisation", "uni"},
                     {"ssd.cache.size", "1MiB"},
                     {"ssd.write_buffer.size", "64KiB"},
                     {"ssd.nvme.max_outstanding", "4"},
                     {"ssd.nvme.in_order_fetch", "true"}},
                    "[global]\ndirect=1\nruntime=20ms\ntime_based=1\nbs=4k\niodepth=2\n[r]\nrw=randread\ncpus_allowed=0\n"
                    "[w]\nrw=randwrite\ncpus_allowed=" + std::to_string(writer_core) + "\n");
}
double read_mean_us(const nlohmann::json& s) { return s["jobs"][0]["latency_us"]["read"]["mean"].get<double>(); }
}  // namespace

TEST_CASE("with in-order fetch reads sharing an SQ with stalled writes wait for them", "[platform][nvme][in_order]") {
  auto shared = reader_and_writer(0), isolated = reader_and_writer(1);
  // The write buffer filled in both runs: writes waited for room.
  CHECK(drive(shared)["write_buffer"]["stalled_writes"].get<uint64_t>() > 0);
  CHECK(drive(isolated)["write_buffer"]["stalled_writes"].get<uint64_t>() > 0);
  // Isolated: SQ 1 (core 0, the reader) is never held; SQ 2, the writer's, is.
  const auto& iso = drive(isolated)["nvme"]["hol_stall_s"];
  CHECK_FALSE(iso.contains("1"));
  CHECK(iso["2"].get<double>() > 0);
  // Shared: the one SQ is held behind writes, and the reads behind them wait.
  const auto& sh = drive(shared)["nvme"]["hol_stall_s"];
  CHECK(sh["1"].get<double>() > 0);
  CHECK_FALSE(sh.contains("2"));
  CHECK(read_mean_us(shared) > 1.1 * read_mean_us(isolated));
  CHECK(shared["jobs"][0]["ios"].get<uint64_t>() < isolated["jobs"][0]["ios"].get<uint64_t>());
}
