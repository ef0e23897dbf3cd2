// SPDX-License-Identifier: BSD-3-Clause
// Statistics: registered once, named by their group, distributions exact.
#include <catch2/catch.hpp>
#include <string>

#include "vp/core/Stats.hpp"

using vp::StatError;
using vp::StatGroup;
using vp::StatRegistry;

TEST_CASE("a second registration of a statistic is an error naming it and both kinds", "[core][stats]") {
  StatRegistry reg;
  StatGroup nvme(reg, "ssd.nvme");
  vp::Counter& c = nvme.counter("io_commands", "commands", "I/O commands completed");
  ++c;
  c += 2;
  CHECK(reg.value("ssd.nvme.io_commands") == 3);
  CHECK_THROWS_WITH(nvme.counter("io_commands", "commands", "again"),
                    "statistic 'ssd.nvme.io_commands' registered twice (as a counter, then as a counter)");
  CHECK_THROWS_WITH(reg.distribution("ssd.nvme.io_commands", "ps", "x"),
                    "statistic 'ssd.nvme.io_commands' registered twice (as a counter, then as a distribution)");
  // A renamed counter read under its old name is an error, not a silent 0.
  CHECK_THROWS_WITH(reg.value("ssd.nvme.io_cmds"), "no counter named 'ssd.nvme.io_cmds' is registered");
  CHECK_THROWS_AS(reg.counter("ssd..x", "u", "d"), StatError);
}

TEST_CASE("a total is shared by the instances that add to it, and they must agree on its unit", "[core][stats]") {
  StatRegistry reg;
  StatGroup fw(reg, "ssd.fw");
  vp::Counter& a = fw.total("busy_ps", "ps", "busy time, summed over cores");
  vp::Counter& b = fw.total("busy_ps", "ps", "busy time, summed over cores");
  CHECK(&a == &b);
  a += 5;
  b += 7;
  CHECK(reg.value("ssd.fw.busy_ps") == 12);
  CHECK_THROWS_WITH(fw.total("busy_ps", "ns", "busy time, summed over cores"),
                    "total 'ssd.fw.busy_ps' registered with unit 'ps' (busy time, summed over cores) and again with "
                    "unit 'ns' (busy time, summed over cores)");
  CHECK_THROWS_AS(fw.counter("busy_ps", "ps", "x"), StatError);
}

TEST_CASE("groups nest by name and a second instance gets its own statistics", "[core][stats]") {
  StatRegistry reg;
  StatGroup a(reg, "link0"), b(reg, "link1");
  ++a.group("tx").counter("tlps", "TLPs", "sent");
  b.group("tx").counter("tlps", "TLPs", "sent") += 4;
  CHECK(reg.value("link0.tx.tlps") == 1);
  CHECK(reg.value("link1.tx.tlps") == 4);
  auto d = reg.describe();
  REQUIRE(d.size() == 2);
  CHECK(d[0]["name"] == "link0.tx.tlps");
  CHECK(d[0]["kind"] == "counter");
  CHECK(d[0]["unit"] == "TLPs");
  CHECK(reg.units_json()["link1.tx.tlps"] == "TLPs");
  // The reference table lists per-instance statistics once.
  CHECK(reg.markdown() ==
        "| statistic | kind | unit | meaning |\n| --- | --- | --- | --- |\n| `link<n>.tx.tlps` | counter | TLPs | sent |\n");
}

TEST_CASE("a distribution's percentiles are nearest rank over every sample", "[core][stats]") {
  StatRegistry reg;
  vp::Distribution& d = reg.distribution("host.lat", "ps", "latency");
  CHECK(d.summary() == nlohmann::json{{"count", 0}});
  // 1000, 999, ..., 1 ps, added in descending order: sorting is the distribution's job.
  for (uint64_t v = 1000; v >= 1; --v) d.add(v);
  CHECK(d.count() == 1000);
  CHECK(d.percentile(0.50) == 500);   // ceil(0.5 x 1000) = 500th smallest
  CHECK(d.percentile(0.999) == 999);  // ceil(999.0)
  CHECK(d.min() == 1);
  CHECK(d.max() == 1000);
  CHECK(d.mean() == 500.5);  // (1 + 1000) / 2
  auto s = reg.distributions_json()["host.lat"];
  CHECK(s["unit"] == "ps");
  CHECK(s["p99"] == 990.0);
  CHECK(d.summary(1e3)["p95"] == 0.95);  // 950 ps, scaled by 1,000
  d.add(2000);  // a sample after a read: the distribution sorts again
  CHECK(d.max() == 2000);
  CHECK(d.percentile(1.0) == 2000);
}

TEST_CASE("summary sections are registered once and a section with nothing to report is left out", "[core][stats]") {
  StatRegistry reg;
  int calls = 0;
  reg.section("ssd.ftl", "ftl", "the FTL", [&] { ++calls; return nlohmann::json{{"free_blocks", 7}}; });
  reg.section("ssd.cache", "write_buffer", "the buffer", [] { return nlohmann::json(); });  // no buffer here
  CHECK_THROWS_WITH(reg.section("ssd.ftl", "ftl", "again", [] { return nlohmann::json(); }),
                    "summary section 'ftl' of 'ssd.ftl' registered twice");
  CHECK(calls == 0);  // reported at the end, not when registered
  CHECK(reg.sections_json() == nlohmann::ordered_json{{"ftl", {{"free_blocks", 7}}}});  // no part holds it: top level
  CHECK(calls == 1);
}

TEST_CASE("summary sections go into the part of the platform whose scope holds them", "[core][stats]") {
  StatRegistry reg;
  auto report = [](int v) { return [v] { return nlohmann::json{{"v", v}}; }; };
  reg.section("ssd.ftl", "ftl", "", report(1));
  reg.section("pcie", "pcie", "", report(2));        // drive 0's link, outside the drive's scope
  reg.section("ssd1.ftl", "ftl", "", report(3));
  reg.section("ssd1.pcie", "pcie", "", report(4));
  reg.section("host", "cpu", "", report(5));
  reg.section("host.pagecache", "pagecache", "", report(6));
  reg.section("accel", "accel", "", report(7));
  reg.section("accel.pcie", "pcie", "", report(8));
  reg.section("", "jobs", "", report(9));
  reg.section("ssd1.cache", "write_buffer", "", [] { return nlohmann::json(); });
  reg.part("host", {"host"});
  reg.part_in("drives", {{"name", "ssd"}}, {"ssd", "pcie"});
  reg.part_in("drives", {{"name", "ssd1"}}, {"ssd1"});
  reg.part_in("accelerators", {{"name", "accel"}}, {"accel"});
  reg.part_in("switches", {{"name", "sw"}}, {"sw"});  // declared, nothing reports: an entry with its name
  auto v = [](int x) { return nlohmann::json{{"v", x}}; };
  // In order (an ordered_json compares its keys' order too): the parts as
  // declared, each entry's name first, then the sections as registered.
  CHECK(reg.sections_json() ==
        nlohmann::ordered_json{{"host", {{"cpu", v(5)}, {"pagecache", v(6)}}},
                               {"drives", {{{"name", "ssd"}, {"ftl", v(1)}, {"pcie", v(2)}},
                                           {{"name", "ssd1"}, {"ftl", v(3)}, {"pcie", v(4)}}}},
                               {"accelerators", {{{"name", "accel"}, {"accel", v(7)}, {"pcie", v(8)}}}},
                               {"switches", {{{"name", "sw"}}}},
                               {"jobs", v(9)}});
  CHECK(reg.section_path("ssd1.ftl", "ftl") == "drives[1].ftl");
  CHECK(reg.section_path("host.pagecache", "pagecache") == "host.pagecache");
  CHECK(reg.section_path("", "jobs") == "jobs");
  // A prefix of a name is not its scope: "ssd10" is not under "ssd1".
  CHECK(reg.section_path("ssd10.ftl", "ftl") == "ftl");
  // --list-stats --json lists each section at its place.
  bool listed = false;
  for (const auto& e : reg.describe())
    if (e["kind"] == "section" && e["name"] == "drives[1].pcie") listed = e["scope"] == "ssd1.pcie";
  CHECK(listed);
  // A scope in two parts, and two sections meeting at one place, are model errors.
  CHECK_THROWS_WITH(reg.part_in("drives", {{"name", "x"}}, {"pcie"}),
                    "scope 'pcie' declared in two parts ('drives' and 'drives')");
  reg.section("ssd.fw", "ftl", "", report(10));
  CHECK_THROWS_WITH(reg.sections_json(),
                    "summary section 'ftl' of 'ssd.fw' has the place of another (drives[0].ftl)");
}
