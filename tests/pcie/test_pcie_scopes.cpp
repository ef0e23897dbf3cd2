// SPDX-License-Identifier: BSD-3-Clause
// A second PCIe link (as an accelerator's, beside the SSD's) is a link of
// its own: it reads its own keys, its rules name its own keys, and its
// traffic counts into its own statistics and summary section.
#include <catch2/catch.hpp>
#include <systemc>

#include "tests/ModelRig.hpp"
#include "tests/pcie/LinkRig.hpp"
#include "vp/core/ParamScope.hpp"

using namespace vp;
using namespace vp::test;

TEST_CASE("a second PCIe link in its own scope reads its own keys and counts into its own statistics",
          "[pcie][scope]") {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  ParamRegistry reg;
  pcie::PcieLink::declare_params(ParamScope(reg, "pcie"));
  pcie::PcieLink::declare_params(ParamScope(reg, "accel.pcie"));
  Config cfg(reg);
  // The SSD's link keeps its defaults (gen3 x4); the accelerator's is gen1 x1.
  cfg.set("accel.pcie.gen", "1", "test");
  cfg.set("accel.pcie.lanes", "1", "test");
  // The link's own rule, checked per instance and naming that instance's key.
  cfg.set("accel.pcie.max_payload", "384B", "test");
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("accel.pcie.max_payload") && !Catch::Contains(" pcie."));
  cfg.set("accel.pcie.max_payload", "256B", "test");
  REQUIRE_NOTHROW(cfg.validate());

  ModelServices m(cfg);
  Services& svc = m.svc;
  StatRegistry& stats = m.stats;
  BoundLink ssd("ssd", svc, "pcie"), accel("accel", svc, "accel.pcie");
  CHECK(ssd.link.timing().bytes_per_s == Approx(3.938461538e9));  // 8 GT/s x 4 x 128/130 / 8
  CHECK(accel.link.timing().bytes_per_s == Approx(250e6));        // 2.5 GT/s x 1 x 8/10 / 8

  // One 4 KiB posted write up the accelerator's link: 16 TLPs of 256 + 24 B,
  // 4480 B at 4 ns a byte = 17,920 ns, then rc 150 + link 150 ns.
  Tick done = 0;
  sc_core::sc_spawn([&] { done = accel.init.access(accel.init.device, tlm::TLM_WRITE_COMMAND, 0, 4096); });
  sc_core::sc_start();
  CHECK(done == 17920000 + 300000);
  CHECK(accel.host_mem.arrivals == std::vector<Tick>{done});
  CHECK(ssd.host_mem.arrivals.empty());

  CHECK(stats.value("accel.pcie.bytes_up") == 4096);
  CHECK(stats.value("accel.pcie.wire_bytes_up") == 4480);
  CHECK(stats.value("accel.pcie.tlps_up") == 16);
  CHECK(stats.value("accel.pcie.busy_ps_up") == 17920000);
  // The host answers 16 TLPs with 4 ACKs and 4 UpdateFCs down the same link.
  CHECK(stats.value("accel.pcie.dllps_down") == 8);
  for (const char* c : {"pcie.bytes_up", "pcie.wire_bytes_up", "pcie.tlps_up", "pcie.dllps_down", "pcie.busy_ps_down"})
    CHECK(stats.value(c) == 0);

  // Each link reports "pcie" in its part: the drive's (scope "pcie"), the accelerator's (under "accel").
  stats.part_in("drives", {{"name", "ssd"}}, {"ssd", "pcie"});
  stats.part_in("accelerators", {{"name", "accel"}}, {"accel"});
  auto sections = stats.sections_json();
  const auto& drive_link = sections.at("drives").at(0).at("pcie");
  const auto& accel_link = sections.at("accelerators").at(0).at("pcie");
  CHECK(drive_link["up"]["payload_bytes"] == 0);
  CHECK(accel_link["up"]["payload_bytes"] == 4096);
  CHECK(accel_link["raw_GBps"].get<double>() == Approx(0.25));
}
