// SPDX-License-Identifier: BSD-3-Clause
// The host's physical memory map: DRAM below the PCI hole and above 4 GiB,
// as PC firmware lays it out, so any host.dram.size in range works.
#include <catch2/catch.hpp>
#include <fstream>

#include "tests/TestSupport.hpp"
#include "vp/host/HostMemoryMap.hpp"

using namespace vp;
using namespace vp::test;
using host::HostMemoryMap;

namespace {
constexpr uint64_t GiB = 1ull << 30;
}

TEST_CASE("host DRAM lies below the PCI hole and the rest above 4 GiB", "[host][memmap]") {
  // The hole runs from the ECAM window at 0xB000_0000 (2.75 GiB) to 4 GiB.
  HostMemoryMap small(2 * GiB);
  CHECK(small.low_bytes() == 2 * GiB);
  CHECK(small.high_bytes() == 0);
  CHECK(small.phys_of(2 * GiB - 1) == 2 * GiB - 1);

  HostMemoryMap four(4 * GiB);
  CHECK(four.low_bytes() == 0xB0000000ull);
  CHECK(four.high_bytes() == 4 * GiB - 0xB0000000ull);  // 1.25 GiB
  CHECK(four.phys_of(0xAFFFFFFFull) == 0xAFFFFFFFull);
  CHECK(four.phys_of(0xB0000000ull) == 0x100000000ull);  // the first byte past the hole's worth of DRAM
  CHECK(four.offset_of(0x100000000ull + 5) == 0xB0000005ull);
  CHECK(four.is_dram(0xAFFFF000ull, 4096));
  CHECK_FALSE(four.is_dram(0xAFFFF000ull, 4097));       // runs into the hole
  CHECK_FALSE(four.is_dram(HostMemoryMap::kPcieConfigBase, 1));
  CHECK_FALSE(four.is_dram(HostMemoryMap::kPcieMmioBase, 4));
  CHECK(four.is_dram(0x100000000ull + 1.25 * GiB - 1, 1));
  CHECK_FALSE(four.is_dram(0x100000000ull + 1.25 * GiB, 1));  // past the end of DRAM
  CHECK(four.largest_region() == 0xB0000000ull);

  HostMemoryMap big(64 * GiB);
  CHECK(big.high_bytes() == 64 * GiB - 0xB0000000ull);
  CHECK(big.phys_of(big.dram_bytes() - 1) == 0x100000000ull + 64 * GiB - 0xB0000000ull - 1);
  CHECK(big.largest_region() == big.high_bytes());
}

TEST_CASE("the driver's buffers go below the hole while they fit, then above 4 GiB", "[host][memmap]") {
  with_driver({{"host.dram.size", "8GiB"}}, [](platform::ServerTop& top) {
    uint64_t a = top.driver.alloc(4096);
    CHECK(a < HostMemoryMap::kHoleBase);
    uint64_t big = top.driver.alloc(3 * GiB);  // fits only above 4 GiB
    CHECK(big >= HostMemoryMap::kHighBase);
    CHECK(top.driver.alloc(4096) < HostMemoryMap::kHoleBase);  // low memory still serves small buffers
    // The driver's pointer to high memory is the DRAM array past its low part.
    CHECK(top.driver.host_ptr(big) == top.dram.data() + 0xB0000000ull + (big - HostMemoryMap::kHighBase));
    CHECK(top.driver.host_ptr(a) == top.dram.data() + a);
  });
}

TEST_CASE("4 GiB and 64 GiB hosts run, with the page cache above 4 GiB", "[host][memmap][platform]") {
  // Before the map, 3 GiB and more overlapped the ECAM window: "PCI function has class 000000".
  std::string dir = scratch("memmap");
  std::ofstream(dir + "/j.fio") << "[d]\nrw=randrw\nbs=4k\nsize=8m\niodepth=8\nverify=1\nnumber_ios=4000\n"
                                  "[b]\nrw=randrw\nbs=4k\nsize=8m\noffset=16m\ndirect=0\nverify=1\nnumber_ios=4000\n";
  // 8 GiB of page frames fit only above 4 GiB: every buffered I/O's data crosses there.
  for (const char* sets : {"--set host.dram.size=4GiB", "--set host.dram.size=64GiB --set host.pagecache.size=8GiB"}) {
    INFO(sets);
    Shell s = shell(std::string(VP_SERVER_BIN) + " --preset quick --job " + dir + "/j.fio " + sets + " --overwrite --out " + dir);
    INFO(s.out);
    REQUIRE(s.status == 0);
    auto j = nlohmann::json::parse(slurp(dir + "/summary.json"));
    CHECK(j["verify"]["blocks_checked"].get<uint64_t>() > 3000);
    CHECK(j["verify"]["mismatches"].get<uint64_t>() == 0);
  }
  // Page frames that fit in neither region are refused before the run, naming both keys.
  Shell s = shell(std::string(VP_SERVER_BIN) + " --preset quick --job " + dir +
                  "/j.fio --set host.dram.size=4GiB --set host.pagecache.size=3GiB --overwrite --out " + dir);
  CHECK(s.status == 2);
  CHECK(s.out.find("host.pagecache.size = '3GiB'") != std::string::npos);
  CHECK(s.out.find("host.dram.size = '4GiB' (--set)") != std::string::npos);
}
