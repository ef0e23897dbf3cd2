// SPDX-License-Identifier: BSD-3-Clause
// The SSD DRAM's timing worked out by hand: row hit, miss and closed bank,
// the bus shared first come first served, the refresh stretch, an access
// spanning rows, and the regions it hands out.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"
#include "vp/ssd/SsdDram.hpp"

using namespace vp;
using namespace vp::test;

namespace {
// 32 bits at 1000 MT/s: 4 bytes a nanosecond. Rows of 1 KiB over 4 banks:
// row g = addr / 1024 is in bank g mod 4. No refresh unless a test sets it.
const Sets kRound = {{"ssd.dram.size", "1MiB"},          {"ssd.dram.bus_width", "32"},
                     {"ssd.dram.data_rate", "1000MT/s"}, {"ssd.dram.banks", "4"},
                     {"ssd.dram.row_size", "1KiB"},      {"ssd.dram.t_rcd", "10ns"},
                     {"ssd.dram.t_cl", "15ns"},          {"ssd.dram.t_rp", "12ns"},
                     {"ssd.dram.refresh_overhead", "0"}};

struct Rig {
  Config cfg;
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  Services svc;
  ssd::SsdDram dram;
  explicit Rig(const Sets& sets)
      : cfg(model_config("", kRound, sets)), svc{cfg, stats, waves, tracker, 1}, dram("dram", svc) {}
};
}  // namespace

TEST_CASE("SSD DRAM: row hit costs CAS and a miss precharges and activates", "[ssd][dram]") {
  Rig r({});
  // Closed bank 0: t_rcd + t_cl + 64 B / 4 B/ns = 10 + 15 + 16 = 41 ns.
  CHECK(r.dram.access(0, 64, false, 0) == 41 * NS);
  // Row 0 is open: t_cl + 16 = 31 ns after 1000 ns.
  CHECK(r.dram.access(64, 64, false, 1000 * NS) == 1031 * NS);
  // Address 4096 is row 4: bank 0 again, its row 1, while row 0 is open:
  // t_rp + t_rcd + t_cl + 16 = 12 + 10 + 15 + 16 = 53 ns.
  CHECK(r.dram.access(4096, 64, false, 2000 * NS) == 2053 * NS);
  // Address 1024 is row 1 in bank 1, closed: 41 ns.
  CHECK(r.dram.access(1024, 64, false, 3000 * NS) == 3041 * NS);
  CHECK(r.stats.value("ssd.dram.row_hits") == 1);
  CHECK(r.stats.value("ssd.dram.row_misses") == 3);
  CHECK(r.stats.value("ssd.dram.reads") == 4);
  CHECK(r.stats.value("ssd.dram.writes") == 0);
  CHECK(r.stats.value("ssd.dram.read_bytes") == 256);
  CHECK(r.stats.value("ssd.dram.busy_ps") == (41 + 31 + 53 + 41) * NS);  // 166 ns
  // Utilisation: 166 ns busy over 4000 ns.
  CHECK(r.dram.summary(4000 * NS)["utilisation"].get<double>() == Approx(166.0 / 4000.0));
}

TEST_CASE("SSD DRAM: two accesses ready at once share the bus first come first served", "[ssd][dram]") {
  Rig r({});
  // Bank 0 closed: 25 + 256 / 4 = 89 ns.
  CHECK(r.dram.access(0, 256, true, 0) == 89 * NS);
  // Bank 1 (address 1024), also closed, waits for the bus until 89 ns: 89 + 89 = 178 ns.
  CHECK(r.dram.access(1024, 256, false, 0) == 178 * NS);
  // Ready after the bus freed: starts at its own time, 300 + 31 (row 0 open: 15 + 16).
  CHECK(r.dram.access(0, 64, false, 300 * NS) == 331 * NS);
  CHECK(r.stats.value("ssd.dram.writes") == 1);
  CHECK(r.stats.value("ssd.dram.write_bytes") == 256);
  CHECK(r.stats.value("ssd.dram.reads") == 2);
  CHECK(r.stats.value("ssd.dram.read_bytes") == 320);
  CHECK(r.dram.busy_total() == (89 + 89 + 31) * NS);
}

TEST_CASE("SSD DRAM: refresh overhead stretches the transfer", "[ssd][dram]") {
  Rig r({{"ssd.dram.refresh_overhead", "0.2"}, {"ssd.dram.row_size", "8KiB"}});
  // 4096 B at 4 B/ns = 1024 ns, stretched by 1 / (1 - 0.2): 1280 ns.
  CHECK(r.dram.transfer_time(4096) == 1280 * NS);
  // Closed bank: 10 + 15 + 1280 = 1305 ns (the row timing is not stretched).
  CHECK(r.dram.access(0, 4096, false, 0) == 1305 * NS);
  // 4 B: 1 ns / 0.8 = 1.25 ns; a row hit: 15 + 1.25 = 16.25 ns after 2000 ns.
  CHECK(r.dram.access(4096, 4, true, 2000 * NS) == 2000 * NS + 16250);
}

TEST_CASE("SSD DRAM: an access spanning rows pays each row", "[ssd][dram]") {
  Rig r({});
  // 2048 B from 512: 512 B of row 0 (bank 0), 1024 B of row 1 (bank 1), 512
  // B of row 2 (bank 2), all closed: 3 x 25 + (128 + 256 + 128) = 587 ns.
  CHECK(r.dram.access(512, 2048, true, 0) == 587 * NS);
  CHECK(r.stats.value("ssd.dram.row_misses") == 3);
  // Row 2 stays open: 512 B from 2560 hits it behind the first access,
  // 587 + 15 + 128 = 730 ns.
  CHECK(r.dram.access(2560, 512, false, 0) == 730 * NS);
  CHECK(r.stats.value("ssd.dram.row_hits") == 1);
  CHECK(r.stats.value("ssd.dram.writes") == 1);
  CHECK(r.stats.value("ssd.dram.write_bytes") == 2048);
}

TEST_CASE("SSD DRAM: regions are consecutive and one that does not fit names ssd.dram.size", "[ssd][dram]") {
  Rig r({});
  CHECK(r.dram.reserve(512 * 1024, "staging") == 0);
  CHECK(r.dram.reserve(256 * 1024, "map") == 512 * 1024);
  CHECK(r.dram.reserved() == 768 * 1024);
  // 1 MiB = 1048576 bytes; 786432 reserved, 262144 left; 524288 asked for.
  try {
    r.dram.reserve(512 * 1024, "write cache");
    FAIL("a region larger than what is left was handed out");
  } catch (const ConfigError& e) {
    std::string m = e.what();
    INFO(m);
    CHECK(m.find("ssd.dram.size") != std::string::npos);
    CHECK(m.find("write cache") != std::string::npos);
    CHECK(m.find("524288") != std::string::npos);
    CHECK(m.find("262144") != std::string::npos);
    CHECK(m.find("1048576") != std::string::npos);
  }
  CHECK(r.dram.reserved() == 768 * 1024);  // a failed reservation takes nothing
  CHECK(r.dram.reserve(256 * 1024, "rest") == 768 * 1024);  // exactly what is left fits
}

TEST_CASE("SSD DRAM: a bus width that is not whole bytes is a configuration error", "[ssd][dram]") {
  REQUIRE_THROWS_WITH(model_config("", kRound, {{"ssd.dram.bus_width", "12"}}),
                      Catch::Contains("ssd.dram.bus_width"));
}

TEST_CASE("SSD DRAM: a platform whose DRAM cannot hold the staging buffers is a configuration error", "[ssd][dram]") {
  // The quick preset's staging: 64 slots (ssd.nvme.max_outstanding) x (4 KiB << 5)
  // = 8 MiB = 8388608 bytes, more than 4 MiB = 4194304.
  try {
    run("quick", {{"ssd.dram.size", "4MiB"}}, "[r]\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=1\n");
    FAIL("the platform was built with a DRAM too small for its staging buffers");
  } catch (const ConfigError& e) {
    std::string m = e.what();
    INFO(m);
    CHECK(m.find("ssd.dram.size") != std::string::npos);
    CHECK(m.find("nvme data staging") != std::string::npos);
    CHECK(m.find("8388608") != std::string::npos);
    CHECK(m.find("4194304") != std::string::npos);
  }
}

TEST_CASE("SSD DRAM: the platform reserves the staging buffers then the mapping table", "[ssd][dram]") {
  auto s = run("quick", {}, "[r]\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=10\n");
  const auto& d = drive(s)["dram"];
  // 64 slots (the quick preset's max_outstanding) x 128 KiB = 8388608 bytes,
  // then the map as the FTL reports it; no cache, so no write buffer.
  CHECK(d["regions"]["nvme data staging"] == 8388608);
  uint64_t map = s["counters"]["ssd.ftl.map_table_bytes"].get<uint64_t>();
  CHECK(d["regions"]["ftl mapping table"] == map);
  CHECK(!d["regions"].contains("the write buffer"));
  CHECK(d["reserved_bytes"] == 8388608 + map);
  // Ten reads, each of its two map entries and the data in and out.
  CHECK(d["reads"] == 30);
  CHECK(d["writes"] == 10);
  CHECK(d["utilisation"].get<double>() > 0.0);
}
