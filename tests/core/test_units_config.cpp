// SPDX-License-Identifier: BSD-3-Clause
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "vp/core/Config.hpp"
#include "vp/core/Rng.hpp"
#include "vp/core/Units.hpp"

using namespace vp;

TEST_CASE("quantities parse with their units", "[core][units]") {
  CHECK(parse_time("3us") == 3'000'000);
  CHECK(parse_time("100ns") == 100'000);
  CHECK(parse_time("1.5ms") == 1'500'000'000);
  CHECK(parse_time("2s") == 2'000'000'000'000);
  CHECK(parse_size("4KiB") == 4096);
  CHECK(parse_size("1.5GiB") == 1610612736);
  CHECK(parse_size("2KB") == 2000);
  CHECK(parse_size("512") == 512);
  CHECK(parse_rate("8GT/s") == 8e9);
  CHECK(parse_freq("800MHz") == 800e6);
  CHECK(parse_bandwidth("3.2GB/s") == 3.2e9);
  CHECK_THROWS_AS(parse_time("3"), UnitError);       // a time needs a unit
  CHECK(parse_time("0") == 0);                       // but zero is zero in every unit
  CHECK(parse_time(" 0.0 ") == 0);
  CHECK(parse_freq("0") == 0);
  CHECK_THROWS_AS(parse_time("3 parsecs"), UnitError);
  CHECK_THROWS_AS(parse_size("1.5B"), UnitError);
  CHECK_THROWS_AS(parse_size("-4KiB"), UnitError);
  CHECK(format_time(parse_time("1.25us")) == "1.25us");
  CHECK(format_size(parse_size("1536KiB")) == "1.5MiB");
}

TEST_CASE("round_ps rounds as std::llround, halves away from zero", "[core][units]") {
  // Worked by hand: halves go up, the double just below a half goes down.
  CHECK(round_ps(0.0) == 0);
  CHECK(round_ps(0.49999999999999994) == 0);
  CHECK(round_ps(0.5) == 1);
  CHECK(round_ps(2.5) == 3);
  CHECK(round_ps(3.4999999) == 3);
  CHECK(round_ps(1e15 + 0.5) == 1'000'000'000'000'001);
  CHECK(round_ps(4503599627370495.5) == 4503599627370496);  // 2^52 - 0.5
  // And as llround on wire times of every size a link is asked for, and on
  // doubles next to each half.
  for (uint64_t bytes = 0; bytes < 70000; ++bytes) {
    double x = double(bytes) * 1e12 / 3.938e9;
    REQUIRE(round_ps(x) == static_cast<Tick>(std::llround(x)));
  }
  for (uint64_t k = 0; k < 100000; ++k) {
    double h = double(k) + 0.5;
    for (double x : {h, std::nextafter(h, 0.0), std::nextafter(h, 1e300)})
      REQUIRE(round_ps(x) == static_cast<Tick>(std::llround(x)));
  }
}

TEST_CASE("the configuration names the key, the value and what is allowed", "[core][config]") {
  ParamRegistry reg;
  reg.integer("a.count", 4, "a count").range(1, 8);
  reg.time("a.delay", "3us", "a delay");
  reg.size("a.page", "2KiB", "a page");
  reg.size("a.block", "8KiB", "a block");
  reg.rule([](const Config& c) {
    if (c.get_size("a.block") % c.get_size("a.page")) c.fail("a.block", "must be a whole number of pages");
  });
  Config cfg(reg);
  CHECK(cfg.get_int("a.count") == 4);
  CHECK(cfg.get_time("a.delay") == 3'000'000);
  cfg.load_yaml_text("a:\n  count: 8\n  delay: 1ms\n", "t.yaml");
  CHECK(cfg.get_int("a.count") == 8);
  CHECK(cfg.origin("a.delay") == "t.yaml:3");
  CHECK_THROWS_WITH(cfg.set("a.count", "9"), Catch::Contains("a.count") && Catch::Contains("'9'") &&
                                                 Catch::Contains("[1, 8]"));
  CHECK_THROWS_WITH(cfg.set("a.cuont", "2"), Catch::Contains("unknown parameter 'a.cuont'") &&
                                                 Catch::Contains("count"));
  CHECK_THROWS_WITH(cfg.load_yaml_text("a:\n  delay: [1, 2]\n", "l.yaml"), Catch::Contains("l.yaml:2"));
  cfg.set("a.block", "5KiB");
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("a.block") && Catch::Contains("5KiB") &&
                                        Catch::Contains("whole number of pages"));
  cfg.set("a.block", "6KiB");
  CHECK_NOTHROW(cfg.validate());
  // Written back whole, defaults included, and read back the same.
  Config again(reg);
  again.load_yaml_text(cfg.to_yaml(), "again");
  for (const auto& [k, _] : reg.all()) CHECK(again.get_string(k) == reg.find(k)->canonical(cfg.get_string(k)));
}

TEST_CASE("a choice parameter is parsed once into an enum, and a mapping that drifts from the choices is caught",
          "[core][config]") {
  enum class Org { Layered, Many, Deep };
  ParamRegistry reg;
  reg.choice("fw.org", "layered", {"layered", "many", "deep"}, "organisation");
  reg.choice("fw.bypass", "off", {"off", "on"}, "a switch");
  reg.integer("fw.n", 1, "not a choice");
  Config cfg(reg);
  auto org = [&] { return cfg.get_enum<Org>("fw.org", {{"layered", Org::Layered}, {"many", Org::Many}, {"deep", Org::Deep}}); };
  CHECK(org() == Org::Layered);
  cfg.set("fw.org", "deep");
  CHECK(org() == Org::Deep);
  CHECK(cfg.is("fw.org", "deep"));
  CHECK_FALSE(cfg.is("fw.org", "many"));
  CHECK_FALSE(cfg.get_switch("fw.bypass"));
  cfg.set("fw.bypass", "on");
  CHECK(cfg.get_switch("fw.bypass"));
  // A model that forgets a choice, misspells one, or asks about one that
  // does not exist fails at once instead of reading a silent default.
  CHECK_THROWS_AS(cfg.get_enum<Org>("fw.org", {{"layered", Org::Layered}, {"deep", Org::Deep}}), std::logic_error);
  CHECK_THROWS_WITH(cfg.get_enum<Org>("fw.org", {{"layered", Org::Layered}, {"mny", Org::Many}, {"deep", Org::Deep}}),
                    "choice parameter 'fw.org': the model's mapping and the declared choices differ (mny)");
  CHECK_THROWS_AS(cfg.is("fw.org", "dep"), std::logic_error);
  CHECK_THROWS_AS(cfg.is("fw.n", "1"), std::logic_error);
}

TEST_CASE("a random permutation is a bijection with its inverse", "[core][rng]") {
  for (uint64_t n : {1ull, 2ull, 7ull, 1000ull, 4097ull}) {
    vp::RandomPermutation p(n, 42);
    std::vector<bool> seen(n, false);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t x = p(i);
      REQUIRE(x < n);
      CHECK_FALSE(seen[x]);
      seen[x] = true;
      CHECK(p.inverse(x) == i);
    }
  }
  // Different seeds, different orders; the same seed, the same order.
  vp::RandomPermutation a(1000, 1), b(1000, 2), c(1000, 1);
  int same = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    same += a(i) == b(i);
    CHECK(a(i) == c(i));
  }
  CHECK(same < 20);
}
