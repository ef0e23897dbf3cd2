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
  reg.section("ftl", [&] { ++calls; return nlohmann::json{{"free_blocks", 7}}; });
  reg.section("write_buffer", [] { return nlohmann::json(); });  // no buffer in this organisation
  CHECK_THROWS_WITH(reg.section("ftl", [] { return nlohmann::json(); }), "summary section 'ftl' registered twice");
  CHECK(calls == 0);  // reported at the end, not when registered
  CHECK(reg.sections_json() == nlohmann::json{{"ftl", {{"free_blocks", 7}}}});
  CHECK(calls == 1);
}
