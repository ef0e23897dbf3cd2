// SPDX-License-Identifier: BSD-3-Clause
// The host's physical memory map: DRAM below the PCI hole and above 4 GiB,
// as PC firmware lays it out, so any host.dram.size in range works.
#include <catch2/catch.hpp>
#include <fstream>

#include "tests/TestSupport.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/mm/HostMemoryMap.hpp"

using namespace vp;
using namespace vp::test;
// host(s) is written test::host(s): with using namespace vp, host also names vp::host.
using host::HostMemoryAllocator;
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

TEST_CASE("the allocator places buffers below the hole while they fit, then above 4 GiB, many as one at a time",
          "[host][memmap]") {
  // 3 GiB of DRAM: 2.75 GiB (0xB0000000) below the hole, 0.25 GiB from 4 GiB.
  HostMemoryAllocator a(HostMemoryMap(3 * GiB));
  CHECK(a.alloc("q", 100) == 1 << 20);          // after the reserved first MiB
  CHECK(a.alloc("q", 4096) == (1 << 20) + 4096);  // 4 KiB aligned: 100 bytes take a page
  CHECK(a.used_low() == 4096 + 4096);
  // 0xB0000000 - 0x102000 bytes remain below: two 1 GiB buffers fit there,
  // placed the same whether asked for together or one at a time.
  HostMemoryAllocator many = a, one = a;
  CHECK(many.alloc_many("b", 2, GiB) == (1 << 20) + 8192);
  for (int k = 0; k < 2; ++k) one.alloc("b", GiB);
  CHECK(many.used_low() == one.used_low());
  CHECK(many.used_low() == 8192 + 2 * GiB);
  CHECK(many.allocations() == 4);
  // A third goes above 4 GiB, but only 0.25 GiB is there: four are refused
  // whole, naming what they were for, and nothing is taken.
  CHECK_THROWS_WITH(a.alloc_many("I/O buffers of job 'j'", 4, GiB),
                    Catch::StartsWith("host memory: 2 allocations of 1GiB for I/O buffers of job 'j' fit neither below "
                                      "the PCI hole at 0xb0000000"));
  CHECK(a.used_low() == 8192);
  CHECK(a.allocations() == 2);
  // 5 GiB: 2.25 GiB above 4 GiB. After 2 GiB below, a third 1 GiB goes
  // above, and a small buffer still goes below; then 0.75 GiB is more than
  // the 0xB0000000 - 1 MiB - 2 GiB - 4 KiB = 804,253,696 bytes left below
  // (0.75 GiB is 805,306,368) and goes above, after the 1 GiB there.
  HostMemoryAllocator b(HostMemoryMap(5 * GiB));
  CHECK(b.alloc_many("x", 3, GiB) == 1 << 20);
  CHECK(b.used_low() == 2 * GiB);
  CHECK(b.used_high() == GiB);
  CHECK(b.alloc("y", 4096) == (1 << 20) + 2 * GiB);
  CHECK(b.alloc("z", 3 * GiB / 4) == HostMemoryMap::kHighBase + GiB);
}

namespace {
// The driver's allocations after bring-up against what the configuration
// check reserves for it: everything but the PRP lists (one pair of pages per
// command id of every I/O SQ, taken on first use) is already taken.
void check_reserve(const Sets& sets, uint64_t io_sqs) {
  Config cfg = model_config("quick", {{"workload.fio", "[global]\n"}}, sets);
  HostMemoryAllocator plan(HostMemoryMap(cfg.get_size("host.dram.size")));
  ScopedConfig driver_cfg(cfg, host::NvmeDriver::kScope);
  auto cores = static_cast<unsigned>(cfg.get_int("host.cores"));
  host::NvmeDriver::reserve_memory(driver_cfg, cores, plan);
  REQUIRE(host::NvmeDriver::sq_ids(driver_cfg, cores) - 1 == io_sqs);
  uint64_t qd = cfg.get_int("host.nvme.queue_depth");
  with_driver(sets, [&](platform::ServerTop& top) {
    CHECK(top.memory.allocations() == plan.allocations() - io_sqs * qd);
    CHECK(top.memory.used_low() <= plan.used_low() - io_sqs * qd * 8192);
    CHECK(top.memory.used_low() + 4096 > plan.used_low() - io_sqs * qd * 8192);  // at most alignment apart
  });
}
}  // namespace

// quick: 2 cores, so 2 I/O SQs; 4 with dual SQs (two per core) or with poll
// queues (one more pair per core); 6 with both.
TEST_CASE("the configuration check reserves what the driver allocates", "[host][memmap]") { check_reserve({}, 2); }
TEST_CASE("the configuration check reserves the second SQ of dual SQs", "[host][memmap]") {
  check_reserve({{"host.nvme.dual_sq", "on"}}, 4);
}
TEST_CASE("the configuration check reserves Select-ISR's poll queues", "[host][memmap]") {
  check_reserve({{"host.nvme.completion", "select_isr"}}, 4);
}
TEST_CASE("the configuration check reserves dual SQs and poll queues together", "[host][memmap]") {
  check_reserve({{"host.nvme.dual_sq", "on"}, {"host.nvme.poll_queues", "on"}}, 6);
}

TEST_CASE("the driver's buffers go below the hole while they fit, then above 4 GiB", "[host][memmap]") {
  with_driver({{"host.dram.size", "8GiB"}}, [](platform::ServerTop& top) {
    uint64_t a = top.memory.alloc("test buffer", 4096);
    CHECK(a < HostMemoryMap::kHoleBase);
    uint64_t big = top.memory.alloc("test buffer", 3 * GiB);  // fits only above 4 GiB
    CHECK(big >= HostMemoryMap::kHighBase);
    CHECK(top.memory.alloc("test buffer", 4096) < HostMemoryMap::kHoleBase);  // low memory still serves small buffers
    // The driver's pointer to high memory is the DRAM array past its low part.
    CHECK(top.driver.host_ptr(big) == top.dram.data() + 0xB0000000ull + (big - HostMemoryMap::kHighBase));
    CHECK(top.driver.host_ptr(a) == top.dram.data() + a);
  });
}

TEST_CASE("4 GiB and 64 GiB hosts run, with the page cache above 4 GiB", "[host][memmap][platform]") {
  // Before the map, 3 GiB and more overlapped the ECAM window: "PCI function has class 000000".
  std::string dir = scratch("memmap");
  std::ofstream(dir + "/j.fio") << "[d]\ndirect=1\nrw=randrw\nbs=4k\nsize=8m\niodepth=8\nverify=1\nnumber_ios=4000\n"
                                  "[b]\nrw=randrw\nbs=4k\nsize=8m\noffset=16m\ndirect=0\nverify=1\nnumber_ios=4000\n";
  // 8 GiB of page frames fit only above 4 GiB: every buffered I/O's data crosses there.
  for (const char* sets : {"--set host.dram.size=4GiB", "--set host.dram.size=64GiB --set host.pagecache.size=8GiB"}) {
    INFO(sets);
    Shell s = shell(std::string(VP_SERVER_BIN) + " --preset quick --job " + dir + "/j.fio " + sets + " --overwrite --out " + dir);
    INFO(s.out);
    REQUIRE(s.status == 0);
    auto j = nlohmann::json::parse(slurp(dir + "/summary.json"));
    CHECK(test::host(j)["verify"]["blocks_checked"].get<uint64_t>() > 3000);
    CHECK(test::host(j)["verify"]["mismatches"].get<uint64_t>() == 0);
  }
  // Page frames that fit in neither region are refused before the run, naming both keys.
  Shell s = shell(std::string(VP_SERVER_BIN) + " --preset quick --job " + dir +
                  "/j.fio --set host.dram.size=4GiB --set host.pagecache.size=3GiB --overwrite --out " + dir);
  CHECK(s.status == 2);
  CHECK(s.out.find("host.pagecache.size = '3GiB'") != std::string::npos);
  CHECK(s.out.find("host.dram.size = '4GiB' (--set)") != std::string::npos);
}

TEST_CASE("ECAM: each PCI function's configuration space has its own 4 KiB slot in the window", "[host][memmap]") {
  using host::HostMemoryMap;
  // ECAM offset = bus << 20 | device << 15 | function << 12 (PCIe base spec 7.2.2).
  CHECK(HostMemoryMap::config_address(0, 0, 0) == 0xB0000000ull);
  CHECK(HostMemoryMap::config_address(0, 1, 0) == 0xB0008000ull);   // the next device on bus 0
  CHECK(HostMemoryMap::config_address(0, 0, 7) == 0xB0007000ull);   // the last function of device 0
  CHECK(HostMemoryMap::config_address(1, 2, 3) == 0xB0113000ull);   // 0x100000 + 0x10000 + 0x3000
  CHECK(HostMemoryMap::config_address(0, 31, 7) == 0xB00FF000ull);  // bus 0's last slot, below bus 1
}
