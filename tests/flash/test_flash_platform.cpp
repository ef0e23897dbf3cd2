// SPDX-License-Identifier: BSD-3-Clause
// A cell preset through the whole server platform.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;

TEST_CASE("the server runs an mlc drive and counts its page types", "[flash][cell][platform]") {
  auto s = run("quick", {{"ssd.flash.cell", "mlc"}},
               "[m]\ndirect=1\nrw=randrw\nrwmixread=50\nbs=4k\niodepth=8\nnumber_ios=400\n");
  const auto& c = s["counters"];
  uint64_t reads = c["ssd.flash.reads"], programs = c["ssd.flash.programs"];
  CHECK(reads > 0);
  CHECK(programs > 0);
  // An MLC block has LSB and MSB pages only, and random pages hit both.
  CHECK(c["ssd.flash.reads_lsb"].get<uint64_t>() + c["ssd.flash.reads_msb"].get<uint64_t>() == reads);
  CHECK(c["ssd.flash.reads_csb"].get<uint64_t>() == 0);
  CHECK(c["ssd.flash.reads_lsb"].get<uint64_t>() > 0);
  CHECK(c["ssd.flash.reads_msb"].get<uint64_t>() > 0);
  CHECK(c["ssd.flash.programs_lsb"].get<uint64_t>() + c["ssd.flash.programs_msb"].get<uint64_t>() == programs);
  // No read can beat an idle die: 35 ns + 53 us + 2.56 us = 55.595 us in
  // flash; no write beats 35 ns + 2.56 us + 900 us.
  const auto& b = s["jobs"][0]["breakdown_us"];
  CHECK(b["read"]["flash"].get<double>() >= 55.595);
  CHECK(b["write"]["flash"].get<double>() >= 902.595);
}
