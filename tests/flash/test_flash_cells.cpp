// SPDX-License-Identifier: BSD-3-Clause
// Cell presets: the times of each page type, and the configuration errors.
#include "tests/flash/FlashRig.hpp"

using namespace vp;
using namespace vp::test;
using Catch::Matchers::Contains;

TEST_CASE("tlc-fastdrain reads and programs take the time of their page type", "[flash][cell]") {
  // Six channels, one die each, so nothing waits: pages 0, 1, 2 of a block
  // are LSB, CSB, MSB. 384 pages of 2 KiB per block: a multiple of 3.
  FlashRig rig(Sets{{"ssd.flash.cell", "tlc-fastdrain"}, {"ssd.flash.channels", "6"}, {"ssd.flash.block_size", "768KiB"}});
  FlashTransaction* t[6];
  for (uint32_t p = 0; p < 3; ++p) {
    t[p] = &rig.txn(FlashOp::Read, addr(p, 0, 0, 0, p));
    t[3 + p] = &rig.txn(FlashOp::Program, addr(3 + p, 0, 0, 0, p));
  }
  rig.submit(0, {t[0], t[1], t[2], t[3], t[4], t[5]});
  rig.run();
  REQUIRE(rig.done.size() == 6);
  // Read: command, tR of the page type, data out. FastDrain: 58/78/107 us.
  CHECK(t[0]->finished == kCmd + 58 * US + kXfer2K);   // 60.595 us
  CHECK(t[1]->finished == kCmd + 78 * US + kXfer2K);   // 80.595 us
  CHECK(t[2]->finished == kCmd + 107 * US + kXfer2K);  // 109.595 us
  // Program: command and data in, then tPROG: 0.56/2.2/5 ms.
  CHECK(t[3]->finished == kCmd + kXfer2K + 560 * US);   // 562.595 us
  CHECK(t[4]->finished == kCmd + kXfer2K + 2200 * US);  // 2202.595 us
  CHECK(t[5]->finished == kCmd + kXfer2K + 5000 * US);  // 5002.595 us
  for (const char* type : {"lsb", "csb", "msb"}) {
    CHECK(rig.stats.value(std::string("ssd.flash.reads_") + type) == 1);
    CHECK(rig.stats.value(std::string("ssd.flash.programs_") + type) == 1);
  }
}

TEST_CASE("the slc cell reads in 25us, programs in 300us and erases in 2ms", "[flash][cell]") {
  FlashRig rig(Sets{{"ssd.flash.cell", "slc"}, {"ssd.flash.channels", "3"}});
  auto& r = rig.txn(FlashOp::Read, addr(0, 0, 0, 0, 5));
  auto& p = rig.txn(FlashOp::Program, addr(1, 0, 0, 0, 5));
  auto& e = rig.txn(FlashOp::Erase, addr(2, 0, 0, 3, 0));
  rig.submit(0, {&r, &p, &e});
  rig.run();
  CHECK(r.finished == kCmd + 25 * US + kXfer2K);   // 27.595 us (DeepFlash Table 1, SLC)
  CHECK(p.finished == kCmd + kXfer2K + 300 * US);  // 302.595 us
  CHECK(e.finished == kCmd + 2 * MS);              // 2000.035 us
  CHECK(rig.stats.value("ssd.flash.reads_lsb") == 1);
  // Channel 2's only plane holds blocks 2 x 16 = 32 to 47: its block 3 is block 35.
  CHECK(rig.flash.erase_count(35) == 1);
  CHECK(rig.flash.erase_count(3) == 0);
}

TEST_CASE("the mlc cell pairs LSB and MSB pages at 53us and 0.9ms", "[flash][cell]") {
  FlashRig rig(Sets{{"ssd.flash.cell", "mlc"}, {"ssd.flash.channels", "3"}});
  auto& r = rig.txn(FlashOp::Read, addr(0, 0, 0, 0, 1));  // page 1 of an MLC block: MSB
  auto& p = rig.txn(FlashOp::Program, addr(1, 0, 0, 0, 1));
  auto& e = rig.txn(FlashOp::Erase, addr(2, 0, 0, 0, 0));
  rig.submit(0, {&r, &p, &e});
  rig.run();
  CHECK(r.finished == kCmd + 53 * US + kXfer2K);   // 55.595 us
  CHECK(p.finished == kCmd + kXfer2K + 900 * US);  // 902.595 us
  CHECK(e.finished == kCmd + 2300 * US);           // 2300.035 us
  CHECK(rig.stats.value("ssd.flash.reads_msb") == 1);
  CHECK(rig.stats.value("ssd.flash.programs_msb") == 1);
  CHECK(rig.stats.value("ssd.flash.reads_lsb") == 0);
}

TEST_CASE("a cell fills only the keys the configuration leaves unset", "[flash][cell][config]") {
  Config cfg(platform::server_params());
  cfg.set("ssd.flash.cell", "tlc-fastdrain");
  cfg.set("ssd.flash.block_size", "768KiB");
  cfg.set("ssd.flash.t_read", "50us");
  flash::FlashArray::apply_cell(cfg);
  cfg.validate();
  auto t = flash::FlashArray::timing_from(ScopedConfig(cfg, "ssd.flash"));
  CHECK(t.t_read[0] == 50 * US);  // the explicit value wins
  CHECK(t.t_read[1] == 78 * US);
  CHECK(t.t_prog[2] == 5 * MS);
  CHECK(t.cache_read);
  CHECK(cfg.origin("ssd.flash.t_read") == "--set");
  CHECK(cfg.origin("ssd.flash.t_read_csb") == "cell tlc-fastdrain from ssd.flash.cell");
  CHECK(flash::FlashArray::geometry_from(ScopedConfig(cfg, "ssd.flash")).bits_per_cell == 3);
}

TEST_CASE("the default cell keeps the Z-NAND defaults", "[flash][cell][config]") {
  Config cfg(platform::server_params());
  flash::FlashArray::apply_cell(cfg);
  cfg.validate();
  auto t = flash::FlashArray::timing_from(ScopedConfig(cfg, "ssd.flash"));
  CHECK(t.t_read[0] == 3 * US);
  CHECK(t.t_prog[0] == 100 * US);
  // An SLC has no CSB or MSB pages: their slots repeat the LSB times.
  CHECK(t.t_read[2] == 3 * US);
  CHECK(t.t_prog[1] == 100 * US);
  CHECK(t.t_erase == 1 * MS);
  CHECK_FALSE(t.cache_read);
  CHECK(flash::FlashArray::geometry_from(ScopedConfig(cfg, "ssd.flash")).bits_per_cell == 1);
}

namespace {
void expect_error(const Sets& sets, const std::vector<std::string>& mentions) {
  Config cfg(platform::server_params());
  try {
    for (const auto& [k, v] : sets) cfg.set(k, v);
    flash::FlashArray::apply_cell(cfg);
    cfg.validate();
    FAIL("no error for a bad configuration");
  } catch (const ConfigError& e) {
    INFO(e.what());
    for (const auto& m : mentions) CHECK_THAT(e.what(), Contains(m));
  }
}
}  // namespace

TEST_CASE("bad cells and geometries are refused with the key named", "[flash][cell][config]") {
  Config cfg(platform::server_params());
  CHECK_THROWS_WITH(cfg.set("ssd.flash.cell", "qlc"), Contains("ssd.flash.cell") && Contains("qlc"));
  // 1 MiB / 2 KiB = 512 pages per block: not whole TLC word lines.
  expect_error({{"ssd.flash.cell", "tlc-fastdrain"}}, {"ssd.flash.bits_per_cell", "512", "multiple of 3"});
  expect_error({{"ssd.flash.cell", "mlc"}, {"ssd.flash.t_read_msb", "0us"}}, {"ssd.flash.t_read_msb", "msb"});
  expect_error({{"ssd.flash.cell", "tlc"}, {"ssd.flash.block_size", "768KiB"}, {"ssd.flash.t_prog_csb", "0us"}},
               {"ssd.flash.t_prog_csb", "csb"});
  expect_error({{"ssd.flash.t_prog_csb", "1ms"}}, {"ssd.flash.t_prog_csb", "no csb pages"});
  expect_error({{"ssd.flash.bits_per_cell", "4"}}, {"ssd.flash.bits_per_cell", "'4'", "out of range"});
  CHECK_THROWS_WITH(flash::FlashArray::apply_cell_text(cfg, "mine", "ssd:\n  flash:\n    t_raed: 3us\n"),
                    Contains("cell mine:3") && Contains("ssd.flash.t_raed"));
  CHECK_THROWS_WITH(flash::FlashArray::apply_cell_text(cfg, "mine", "host:\n  cores: 3\n"),
                    Contains("cell mine") && Contains("host.cores") && Contains("not a cell parameter"));
}
