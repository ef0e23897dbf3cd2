// SPDX-License-Identifier: BSD-3-Clause
// The controller's queues in the waveform: every queue it supports is in
// the VCD (SystemC takes no signal once the run has begun), but the GTKWave
// save file has rows only for the queues the host created; a CQ's occupancy
// counts the entries posted that the host has not freed yet.
#include <catch2/catch.hpp>
#include <set>

#include "tests/VcdChanges.hpp"
#include "tests/ssd/NvmeRig.hpp"

using namespace vp;
using namespace vp::test;

TEST_CASE("the waveform has a row per queue the host created, and a CQ holds its entries until the head doorbell",
          "[ssd][nvme][vcd]") {
  const std::string base = scratch("nvme-waves") + "/waves";
  Tick reaped = 0, freed = 0;
  run_rig<NvmeRig>(
      {}, [](Services& svc) { return std::make_unique<NvmeRig>("rig", svc); },
      [&](NvmeRig& r) {
        r.pci_enable();
        REQUIRE((r.enable() & nvme::CSTS_RDY) == nvme::CSTS_RDY);
        NvmeRig::Queue q = r.create_pair(3, 16, 1);  // queue 3 alone: 1 and 2 are never created
        uint64_t buf = r.alloc(4096);
        r.push(q, NvmeRig::io(nvme::IO_READ, 0, 1, buf));
        nvme::Cqe e{};
        REQUIRE(r.reap(q, e, 50 * MS, false));  // consumed, the head doorbell not rung yet
        reaped = now_ps();
        r.sleep(10 * US);
        freed = now_ps();
        r.set_reg(nvme::cq_head_doorbell(q.qid, 0), q.head);
        r.sleep(10 * US);
      },
      base);
  const std::string vcd = slurp(base + ".vcd"), gtkw = slurp(base + ".gtkw");
  std::set<std::string> in_vcd, rows;
  for (const auto& s : vcd_signals(vcd)) in_vcd.insert(s.first);
  for (const char* name : {"ssd.nvme.sq1.occupancy", "ssd.nvme.cq2.occupancy", "ssd.nvme.sq3.occupancy",
                           "ssd.nvme.cq3.occupancy", "ssd.nvme.doorbell_writes", "ssd.nvme.interrupts_sent"}) {
    INFO(name);
    CHECK(in_vcd.count(name));
  }
  std::istringstream lines(gtkw);
  for (std::string line; std::getline(lines, line);)
    if (line.find("occupancy") != std::string::npos) rows.insert(line.substr(line.find("SystemC.")));
  CHECK(rows == std::set<std::string>{"SystemC.ssd.nvme.sq0.occupancy[63:0]", "SystemC.ssd.nvme.cq0.occupancy[63:0]",
                                      "SystemC.ssd.nvme.sq3.occupancy[63:0]", "SystemC.ssd.nvme.cq3.occupancy[63:0]"});
  // The completion's entry: in the CQ from when it was posted (before the
  // host saw it) until the head doorbell reached the controller.
  auto cq = vcd_changes_ps(vcd, "ssd.nvme.cq3.occupancy");
  REQUIRE(cq.size() == 3);
  CHECK(cq[0] == std::pair<uint64_t, std::string>{0, "0"});
  CHECK(cq[1].second == "1");
  CHECK(cq[1].first <= reaped);
  CHECK(cq[2].second == "0");
  CHECK(cq[2].first > freed);
  CHECK(cq[2].first < freed + 2 * US);
  // The SQ held the command from its doorbell until it was fetched.
  auto sq = vcd_changes_ps(vcd, "ssd.nvme.sq3.occupancy");
  REQUIRE(sq.size() == 3);
  CHECK(sq[1].second == "1");
  CHECK(sq[2].second == "0");
  CHECK(sq[2].first <= cq[1].first);
}
