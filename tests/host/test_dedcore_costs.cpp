// SPDX-License-Identifier: BSD-3-Clause
// DedCore's communication costs (host.core.dedcore_*): a QD1 reader on
// core 0 with core 1 polling every CQ. Worked out from the defaults: the
// submission takes the queue's lock from the polling core (+0.3 us, in
// host_submit); the polling core moves the completion's 4 lines over and
// hands the lock back (+4 x 0.1 + 0.3 = 0.7 us) and the reader's core takes
// the 4 lines in (+0.4 us), both before the reader sees its I/O (wakeup):
// 1.4 us more per I/O than with the costs at zero.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
nlohmann::json dedcore_reader(bool costs) {
  Sets sets{{"host.cores", "2"}, {"host.nvme.completion", "dedcore"}};
  if (!costs) {
    sets.push_back({"host.core.dedcore_line_transfer", "0ns"});
    sets.push_back({"host.core.dedcore_lock_handoff", "0ns"});
  }
  return run_server(std::string("dedcore-") + (costs ? "costs" : "free"), "quick", sets,
                    "[r]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=2000\ncpus_allowed=0\n");
}
}  // namespace

TEST_CASE("dedcore's cache-line transfers and lock handoffs add 1.4 us to each I/O", "[host][dedcore]") {
  auto free = dedcore_reader(false), costs = dedcore_reader(true);
  const auto& f = free["jobs"][0];
  const auto& c = costs["jobs"][0];
  REQUIRE(c["latency_us"]["read"]["count"].get<uint64_t>() == 2000);
  CHECK(c["latency_us"]["read"]["mean"].get<double>() - f["latency_us"]["read"]["mean"].get<double>() ==
        Approx(1.4).margin(0.005));
  CHECK(c["breakdown_us"]["read"]["host_submit"].get<double>() -
            f["breakdown_us"]["read"]["host_submit"].get<double>() ==
        Approx(0.3).margin(0.005));
  CHECK(c["breakdown_us"]["read"]["wakeup"].get<double>() - f["breakdown_us"]["read"]["wakeup"].get<double>() ==
        Approx(1.1).margin(0.005));
}
