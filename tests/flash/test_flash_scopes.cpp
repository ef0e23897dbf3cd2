// SPDX-License-Identifier: BSD-3-Clause
// A component declared in two scopes is two components: each instance reads
// its own keys, its rules name its own keys, and its statistics are its own.
#include <catch2/catch.hpp>
#include <systemc>

#include "tests/ModelRig.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/flash/FlashArray.hpp"

using namespace vp;
using flash::FlashArray;
using test::ModelServices;

namespace {
struct Recorder : flash::FlashClient {
  Tick finished = 0;
  void flash_done(flash::FlashTransaction& t) override { finished = t.finished; }
};

void small(Config& cfg, const std::string& scope, const std::string& channels) {
  for (auto [k, v] : {std::pair{"channels", channels}, {"dies_per_package", "1"}, {"planes_per_die", "1"},
                      {"blocks_per_plane", "16"}})
    cfg.set(scoped_key(scope, k), v, "test");
}
}  // namespace

TEST_CASE("a second flash array in its own scope reads its own keys and counts into its own statistics",
          "[flash][scope]") {
  ParamRegistry reg;
  FlashArray::declare_params(ParamScope(reg, "ssd.flash"));
  FlashArray::declare_params(ParamScope(reg, "aux.flash"));
  Config cfg(reg);
  small(cfg, "ssd.flash", "1");
  small(cfg, "aux.flash", "2");
  cfg.set("aux.flash.t_read", "9us", "test");
  FlashArray::apply_cell(cfg, "ssd.flash");
  FlashArray::apply_cell(cfg, "aux.flash");
  // The array's own rule, checked per instance and naming that instance's key.
  cfg.set("aux.flash.block_size", "1025KiB", "test");
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("aux.flash.block_size") && !Catch::Contains("ssd.flash"));
  cfg.set("aux.flash.block_size", "1MiB", "test");
  REQUIRE_NOTHROW(cfg.validate());

  ModelServices m(cfg);
  Services& svc = m.svc;
  StatRegistry& stats = m.stats;
  FlashArray main_flash("main_flash", svc);
  FlashArray aux("aux", svc, "aux.flash");
  CHECK(main_flash.geometry().channels == 1);
  CHECK(aux.geometry().channels == 2);
  CHECK(main_flash.timing().t_read[0] == 3 * US);
  CHECK(aux.timing().t_read[0] == 9 * US);

  // One read on the second array's channel 1: command cycles 35 ns, its
  // own tR of 9 us, then 2 KiB over 800 MB/s, 2.56 us.
  Recorder rec;
  flash::FlashTransaction t;
  t.op = flash::FlashOp::Read;
  t.addr.channel = 1;
  t.client = &rec;
  std::vector<uint8_t> page(2048);
  t.data = page.data();
  aux.submit(t);
  sc_core::sc_start();
  CHECK(rec.finished == 35 * NS + 9 * US + 2560 * NS);
  CHECK(stats.value("aux.flash.reads") == 1);
  CHECK(stats.value("ssd.flash.reads") == 0);
  CHECK(stats.value("aux.flash.ch1.bus_busy") > 0);
  CHECK(stats.value("ssd.flash.ch0.bus_busy") == 0);
  // Each instance reports "flash" in the part holding its scope.
  stats.part_in("drives", {{"name", "ssd"}}, {"ssd"});
  stats.part_in("drives", {{"name", "aux"}}, {"aux"});
  auto sections = stats.sections_json();
  CHECK(sections.at("drives").at(0).contains("flash"));
  CHECK(sections.at("drives").at(1).contains("flash"));
  CHECK(stats.section_path("aux.flash", "flash") == "drives[1].flash");
}
