// SPDX-License-Identifier: BSD-3-Clause
// Sub-page mapping (ssd.ftl.map_unit below the flash page): units packed
// into whole page programs, a unit read reading its page, GC moving units,
// recovery by unit. Timings worked by hand from the quick preset's Z-NAND
// (3 us read, 100 us program, 35 ns command, 800 MB/s bus) on 8 KiB pages:
// an 8 KiB page crosses the bus in 8192 / 800e6 s = 10.24 us.
#include <catch2/catch.hpp>

#include "tests/ssd/FtlRig.hpp"

using namespace vp;
using namespace vp::test;
// host(s) is written test::host(s): with using namespace vp, host also names vp::host.

namespace {
// One plane of 256 blocks of 16 pages of 8 KiB, mapped in 4 KiB units.
Sets one_plane_units(Sets extra = {}) {
  Sets s = {{"ssd.flash.channels", "1"},        {"ssd.flash.dies_per_package", "1"},
            {"ssd.flash.planes_per_die", "1"},  {"ssd.flash.blocks_per_plane", "256"},
            {"ssd.flash.block_size", "128KiB"}, {"ssd.flash.page_size", "8KiB"},
            {"ssd.ftl.map_unit", "4KiB"},       {"ssd.ftl.gc.migration", "read_program"},
            {"ssd.ftl.overprovision", "0.25"},  {"ssd.ftl.gc.bg_threshold", "0"}};
  s.insert(s.end(), extra.begin(), extra.end());
  return s;
}
double counter(FtlRig& rig, const char* name) { return double(rig.stats.value(name)); }
constexpr Tick kPageWrite = 35 * NS + 10240 * NS + 100 * US;  // command, 8 KiB on the bus, program
constexpr Tick kPageRead = 35 * NS + 3 * US + 10240 * NS;     // command, read, 8 KiB out
}  // namespace

TEST_CASE("sub-page mapping: the map has an entry per 4 KiB unit, twice the pages", "[ssd][ftl][subpage]") {
  FtlRig units(one_plane_units());
  CHECK(units.ftl.page_size() == 4096);
  CHECK(units.ftl.units_per_page() == 2);
  // Page mapping of the same flash: floor(256 x 16 x 0.75) = 3,072 pages of 8 KiB.
  CHECK(units.ftl.logical_pages() == 6144);  // floor(256 x 32 x 0.75): the same bytes in 4 KiB units
  CHECK(units.ftl.map_dram_bytes() == 6144 * 4);
}

TEST_CASE("sub-page mapping: two units written together share one program", "[ssd][ftl][subpage]") {
  FtlRig rig(one_plane_units({{"ssd.ftl.pack_wait", "1ms"}}));
  uint64_t lpns[] = {17, 4000};  // far apart: only the write buffer puts them together
  int k = 0;
  Tick elapsed = 0;
  simulate(rig, [&] {
    Tick t0 = now_ps();
    rig.run(2, 2, [&] { return rig.write(lpns[k++]); });
    elapsed = now_ps() - t0;
  });
  CHECK(counter(rig, "ssd.flash.programs") == 1);
  CHECK(counter(rig, "ssd.ftl.padded_units") == 0);
  CHECK(elapsed == kPageWrite);  // the page went out when its second unit came: no wait
  uint32_t u0 = 9, u1 = 9;
  auto a = rig.ftl.where(17, &u0), b = rig.ftl.where(4000, &u1);
  CHECK(a.block == b.block);
  CHECK(a.page == b.page);
  CHECK(u0 + u1 == 1);  // the page's two units
  CHECK(rig.check_all() == 0);
}

namespace {
// One unit written alone at QD1: it waits `wait`, then its page goes out padded.
void lone_unit(Tick wait) {
  FtlRig rig(one_plane_units({{"ssd.ftl.pack_wait", std::to_string(wait / NS) + "ns"}}));
  Tick elapsed = 0;
  simulate(rig, [&] {
    Tick t0 = now_ps();
    rig.run(1, 1, [&] { return rig.write(5); });
    elapsed = now_ps() - t0;
  });
  CHECK(elapsed == wait + kPageWrite);
  CHECK(counter(rig, "ssd.flash.programs") == 1);
  CHECK(counter(rig, "ssd.ftl.padded_units") == 1);
  CHECK(rig.check_all() == 0);
}
}  // namespace

TEST_CASE("sub-page mapping: a unit alone goes out padded at once with pack_wait 0", "[ssd][ftl][subpage]") {
  lone_unit(0);
}

TEST_CASE("sub-page mapping: a unit alone waits pack_wait, then goes out padded", "[ssd][ftl][subpage]") {
  lone_unit(40 * US);
}

TEST_CASE("sub-page mapping: a unit read reads its whole page, and reads of one page in flight share it", "[ssd][ftl][subpage]") {
  FtlRig rig(one_plane_units({{"ssd.ftl.pack_wait", "1ms"}}));
  Tick one = 0, both = 0;
  double reads_one = 0, reads_both = 0;
  int k = 0;
  simulate(rig, [&] {
    rig.run(2, 2, [&] { return rig.write(k++); });  // units 0 and 1 fill one page
    double r0 = counter(rig, "ssd.flash.reads");
    Tick t0 = now_ps();
    rig.run(1, 1, [&] { return rig.read(0); });
    one = now_ps() - t0;
    reads_one = counter(rig, "ssd.flash.reads") - r0;
    k = 0;
    t0 = now_ps();
    rig.run(2, 2, [&] { return rig.read(k++); });
    both = now_ps() - t0;
    reads_both = counter(rig, "ssd.flash.reads") - r0 - reads_one;
  });
  CHECK(one == kPageRead);  // 8 KiB out on the bus for a 4 KiB unit
  CHECK(reads_one == 1);
  CHECK(both == kPageRead);
  CHECK(reads_both == 1);
  CHECK(rig.read_mismatches() == 0);
  CHECK(rig.reads_checked() == 3);
}

TEST_CASE("sub-page mapping: GC moves valid units, every page programmed whole, data intact", "[ssd][ftl][subpage][gc]") {
  FtlRig rig(one_plane_units());
  const uint64_t lpns = rig.ftl.logical_pages();
  Rng rng(11);
  simulate(rig, [&] {
    rig.run(4 * lpns, 8, [&] { return rig.write(rng.below(lpns)); });
    rig.run(2000, 8, [&] { return rig.read(rng.below(lpns)); });
  });
  const double host = counter(rig, "ssd.ftl.page_writes"), moved = counter(rig, "ssd.ftl.gc.pages_moved");
  const double padded = counter(rig, "ssd.ftl.padded_units"), programs = counter(rig, "ssd.flash.programs");
  CHECK(moved > 0);
  CHECK(counter(rig, "ssd.ftl.gc.invocations") > 0);
  // Each program is one page of two unit slots: a host unit, a moved unit or padding.
  CHECK(2 * programs == host + moved + padded);
  CHECK(rig.check_all() == 0);
  CHECK(rig.read_mismatches() == 0);
}

TEST_CASE("sub-page mapping: a power loss loses no acknowledged unit", "[ssd][ftl][subpage][power]") {
  FtlRig rig(one_plane_units({{"ssd.ftl.pack_wait", "20us"}}));
  const uint64_t lpns = rig.ftl.logical_pages();
  Rng rng(5);
  simulate(rig, [&] {
    rig.run(2 * lpns, 8, [&] { return rig.write(rng.below(lpns)); });
    rig.run_then_power_loss(now_ps() + 3 * MS, 8, [&] { return rig.write(rng.below(lpns)); });
  });
  CHECK(rig.check_all() == 0);
}

TEST_CASE("sub-page mapping: the drive's rules name the keys", "[ssd][ftl][subpage][config]") {
  CHECK_THROWS_WITH(model_config("quick", {}, {{"ssd.flash.page_size", "8KiB"}, {"ssd.ftl.map_unit", "3KiB"}}),
                    Catch::Contains("ssd.ftl.map_unit") && Catch::Contains("divides"));
  CHECK_THROWS_WITH(model_config("quick", {}, {{"ssd.flash.page_size", "8KiB"}, {"ssd.ftl.map_unit", "4KiB"}}),
                    Catch::Contains("ssd.ftl.gc.migration") && Catch::Contains("read_program"));
  CHECK_THROWS_WITH(model_config("quick", {}, {{"ssd.flash.page_size", "16KiB"}}),
                    Catch::Contains("ssd.nvme.lba_size") && Catch::Contains("ssd.ftl.map_unit"));
  CHECK_NOTHROW(model_config("quick", {},
                             {{"ssd.flash.page_size", "16KiB"},
                              {"ssd.ftl.map_unit", "4KiB"},
                              {"ssd.ftl.gc.migration", "read_program"}}));
}

TEST_CASE("the tlc16k preset serves 4 KiB I/O from 16 KiB pages, intact, a page read per unit read",
          "[ssd][ftl][subpage][preset]") {
  // A 4 KiB write then read of every unit of 8 MiB, at QD8: the writes pack
  // four units a page (2,048 units, 512 pages; the preset's pack_wait lets a
  // page wait 100 us for its units); each random unit read reads
  // its page, unless a read of the same page is in flight.
  const auto s = run("tlc16k", {},
                     "[w]\ndirect=1\nrw=randwrite\nbs=4k\niodepth=8\nsize=8m\nverify=1\n"
                     "[r]\ndirect=1\nstonewall\nrw=randread\nbs=4k\niodepth=8\nsize=8m\nnumber_ios=2048\nverify=1\n");
  INFO(test::host(s)["verify"].dump());
  CHECK(test::host(s)["verify"]["mismatches"].get<uint64_t>() == 0);
  CHECK(test::host(s)["verify"]["blocks_checked"].get<uint64_t>() > 0);
  const auto& c = s["counters"];
  CHECK(c["ssd.ftl.page_writes"].get<uint64_t>() == 2048);
  CHECK(c["ssd.flash.programs"].get<uint64_t>() * 4 == 2048 + c["ssd.ftl.padded_units"].get<uint64_t>());
  CHECK(c["ssd.flash.programs"].get<uint64_t>() <= 600);  // 512 pages whole, a few padded
  CHECK(c["ssd.flash.reads"].get<uint64_t>() <= 2048);
  CHECK(c["ssd.flash.reads"].get<uint64_t>() >= 1500);
}
