// SPDX-License-Identifier: BSD-3-Clause
// Block traces: parsing MSR Cambridge CSV, blkparse text and fio iologs,
// errors naming file:line, format detection and placing a trace in a region.
#include <catch2/catch.hpp>

#include "vp/host/workload/BlockTrace.hpp"
#include "vp/host/workload/FioJob.hpp"

using namespace vp::host;
using Catch::Matchers::Contains;

namespace {

void check(const TraceRecord& r, uint64_t time_ps, bool write, uint64_t offset, uint64_t bytes, size_t line) {
  CHECK(r.time_ps == time_ps);
  CHECK(r.write == write);
  CHECK(r.offset == offset);
  CHECK(r.bytes == bytes);
  CHECK(r.line == line);
}

std::string error_of(const std::string& text, const std::string& origin, TraceFormat f = TraceFormat::Auto) {
  try {
    BlockTrace::parse(text, origin, f);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("MSR Cambridge CSV records convert filetime to picoseconds from the first record", "[host][trace]") {
  auto t = BlockTrace::parse(
      "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
      "128166372000000000,hm,0,Read,3551379456,4096,7317\n"
      "128166372000000010,hm,0,Write,3154116608,512,1270\n"
      "\n"
      "128166372000025000,hm,0,write,1024,65536,5000\n",
      "hm_0.csv");
  CHECK(t.format() == TraceFormat::Msr);
  REQUIRE(t.records().size() == 3);
  // 10 filetime units of 100 ns = 1 us = 1,000,000 ps; 25,000 units = 2.5 ms = 2,500,000,000 ps.
  check(t.records()[0], 0, false, 3551379456, 4096, 2);
  check(t.records()[1], 1000000, true, 3154116608, 512, 3);
  check(t.records()[2], 2500000000, true, 1024, 65536, 5);
  CHECK(t.extent() == 3551379456 + 4096);  // the first record ends highest
  CHECK(t.max_bytes() == 65536);
  CHECK(t.skipped() == 0);
}

TEST_CASE("blkparse text replays Q events and skips the rest", "[host][trace]") {
  auto t = BlockTrace::parse(
      "  8,0    3        1     0.000100000   697  Q   W 223490 + 8 [kjournald]\n"
      "  8,0    3        2     0.000101200   697  G   W 223490 + 8 [kjournald]\n"
      "  8,0    3        3     0.000120000   697  D   W 223490 + 8 [kjournald]\n"
      "  8,0    0        4     0.001600000  1234  Q   R 1000 + 16 [fio]\n"
      "  8,0    0        5     0.002000000  1234  Q FWS [kworker/0:1]\n"
      "  8,0    0        6     0.002500000  1234  Q  DS 5000 + 8 [fstrim]\n"
      "  8,0    0        7     0.003000000  1234  m   N cfq1234 insert_request\n"
      "  8,0    1        8     0.004100250  1234  Q  WS 2048 + 1 [jbd2/sda1-8]\n"
      "CPU0 (8,0):\n"
      " Reads Queued:           1,        8KiB\t Writes Queued:           2,        4KiB\n"
      "Total (8,0):\n",
      "sda.txt");
  CHECK(t.format() == TraceFormat::Blkparse);
  REQUIRE(t.records().size() == 3);
  // Times from the first Q at 0.0001 s: 1.5 ms and 4.00025 ms. Offsets and
  // sizes in 512-byte sectors: 223490 * 512 = 114426880, 8 * 512 = 4096,
  // 1000 * 512 = 512000, 16 * 512 = 8192, 2048 * 512 = 1048576.
  check(t.records()[0], 0, true, 114426880, 4096, 1);
  check(t.records()[1], 1500000000, false, 512000, 8192, 4);
  check(t.records()[2], 4000250000, true, 1048576, 512, 8);
  // G, the data-less flush, the discard, the message and the one D event.
  CHECK(t.skipped() == 5);
}

TEST_CASE("blkparse text without Q events replays the D events", "[host][trace]") {
  auto t = BlockTrace::parse(
      "259,0 1 1 2.000000000 50 D RS 16 + 256 [fio]\n"
      "259,0 1 2 2.000010000 50 C RS 16 + 256 [0]\n"
      "259,0 1 3 2.000300000 50 D W 4096 + 8 [fio]\n",
      "nvme.txt", TraceFormat::Blkparse);
  REQUIRE(t.records().size() == 2);
  // 16 * 512 = 8192, 256 * 512 = 131072; 4096 * 512 = 2097152; 0.3 ms after the first.
  check(t.records()[0], 0, false, 8192, 131072, 1);
  check(t.records()[1], 300000000, true, 2097152, 4096, 3);
  CHECK(t.skipped() == 1);
}

TEST_CASE("fio iolog version 2 replays reads and writes and honours wait", "[host][trace]") {
  auto t = BlockTrace::parse(
      "fio version 2 iolog\n"
      "/dev/nvme0n1 add\n"
      "/dev/nvme0n1 open\n"
      "/dev/nvme0n1 write 0 4096\n"
      "/dev/nvme0n1 sync 0 0\n"
      "/dev/nvme0n1 wait 5 0\n"
      "/dev/nvme0n1 read 8192 16384\n"
      "/dev/nvme0n1 trim 0 4096\n"
      "/dev/nvme0n1 close\n",
      "v2.log");
  CHECK(t.format() == TraceFormat::Iolog);
  REQUIRE(t.records().size() == 2);
  // `wait 5` holds what follows until 5 ms = 5,000,000,000 ps after the start.
  check(t.records()[0], 0, true, 0, 4096, 4);
  check(t.records()[1], 5000000000, false, 8192, 16384, 7);
  CHECK(t.skipped() == 6);  // add, open, sync, wait, trim, close
}

TEST_CASE("fio iolog version 3 times are microseconds from the first line", "[host][trace]") {
  auto t = BlockTrace::parse(
      "fio version 3 iolog\n"
      "100 /dev/sdb add\n"
      "100 /dev/sdb open\n"
      "1100 /dev/sdb read 4096 4096\n"
      "2600 /dev/sdb write 1048576 131072\n"
      "2100 /dev/sdb read 0 512\n"
      "9000 /dev/sdb close\n",
      "v3.log");
  REQUIRE(t.records().size() == 3);
  // 1100 - 100 = 1000 us = 1,000,000,000 ps; 2600 - 100 = 2500 us; the
  // record stamped 2100 (before 2600) keeps trace order at 2500 us.
  check(t.records()[0], 1000000000, false, 4096, 4096, 4);
  check(t.records()[1], 2500000000, true, 1048576, 131072, 5);
  check(t.records()[2], 2500000000, false, 0, 512, 6);
}

TEST_CASE("a malformed MSR line names the file and line", "[host][trace]") {
  std::string ok = "128166372000000000,hm,0,Read,0,4096,10\n";
  CHECK_THAT(error_of(ok + "128166372000000010,hm,0,Read,abc,4096,10\n", "t.csv"),
             Contains("t.csv:2: offset 'abc' is not a whole number"));
  CHECK_THAT(error_of(ok + ok + "128166372000000010,hm,0,Read,0,-512,10\n", "t.csv"),
             Contains("t.csv:3: size '-512' is negative"));
  CHECK_THAT(error_of(ok + "128166372000000010,hm,0,Write,0,0,10\n", "t.csv"), Contains("t.csv:2: size is 0"));
  CHECK_THAT(error_of(ok + "128166372000000010,hm,0,Flush,0,4096,10\n", "t.csv"),
             Contains("t.csv:2: type 'Flush' is neither Read nor Write"));
  CHECK_THAT(error_of(ok + "\n128166372000000010,hm,0\n", "t.csv"), Contains("t.csv:3: 3 fields"));
}

TEST_CASE("a malformed blkparse line names the file and line", "[host][trace]") {
  std::string ok = "8,0 0 1 0.000000000 1 Q R 0 + 8 [fio]\n";
  CHECK_THAT(error_of(ok + ok + "8,0 0 3 0.000100000 1 Q R 100 - 8 [fio]\n", "b.txt"),
             Contains("b.txt:3: expected 'sector + sectors'"));
  CHECK_THAT(error_of(ok + "garbage\n", "b.txt"), Contains("b.txt:2: not a blkparse event"));
  CHECK_THAT(error_of(ok + "8,0 0 2 0.5s 1 Q R 0 + 8 [fio]\n", "b.txt"),
             Contains("b.txt:2: time '0.5s' is not seconds.nanoseconds"));
  CHECK_THAT(error_of(ok + "8,16 0 2 0.1 1 Q W 0 + 8 [fio]\n", "b.txt"),
             Contains("b.txt:2: events of a second device 8,16"));
}

TEST_CASE("a malformed fio iolog line names the file and line", "[host][trace]") {
  CHECK_THAT(error_of("fio version 2 iolog\nf add\nf frobnicate 0 4096\n", "i.log"),
             Contains("i.log:3: unknown action 'frobnicate'"));
  CHECK_THAT(error_of("fio version 3 iolog\nx f read 0 4096\n", "i.log"),
             Contains("i.log:2: timestamp 'x' is not a whole number"));
  CHECK_THAT(error_of("fio version 2 iolog\nf read 0\n", "i.log"), Contains("i.log:2: expected 'filename action"));
  CHECK_THAT(error_of("fio version 2 iolog\nf read 0 4096\ng write 0 4096\n", "i.log"),
             Contains("i.log:3: a second file 'g'"));
  CHECK_THAT(error_of("fio version 2 iolog\n\nf read 0 0\n", "i.log"), Contains("i.log:3: length is 0"));
  CHECK_THAT(error_of("fio version 3 iolog\n0 f add\n", "i.log"), Contains("i.log: no reads or writes to replay"));
}

TEST_CASE("the trace format is detected from the first non-empty line", "[host][trace]") {
  CHECK(BlockTrace::detect("fio version 2 iolog") == TraceFormat::Iolog);
  CHECK(BlockTrace::detect("fio version 3 iolog") == TraceFormat::Iolog);
  CHECK(BlockTrace::detect("  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]") ==
        TraceFormat::Blkparse);
  CHECK(BlockTrace::detect("128166372003061629,hm,0,Read,3551379456,4096,7317") == TraceFormat::Msr);
  CHECK(BlockTrace::detect("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime") == TraceFormat::Msr);
  CHECK(BlockTrace::detect("fio version 1 iolog") == TraceFormat::Auto);
  CHECK_THAT(error_of("\n\nhello trace\n", "x.trace"), Contains("x.trace:3: unknown trace format"));
  // A forced format reads the file as that format, whatever it looks like.
  CHECK_THAT(error_of("fio version 3 iolog\n0 f read 0 4096\n", "x.log", TraceFormat::Msr),
             Contains("x.log:1: 1 fields where an MSR Cambridge record has 7"));
  CHECK_THAT(error_of("", "e.log"), Contains("e.log: the trace is empty"));
}

TEST_CASE("an unreadable trace file names its path", "[host][trace]") {
  CHECK_THROWS_WITH(BlockTrace::load("/nonexistent/dir/trace.csv"),
                    Contains("/nonexistent/dir/trace.csv: cannot read block trace"));
}

TEST_CASE("replay_fit scale shrinks offsets by region over extent aligned to the LBA", "[host][trace]") {
  auto t = BlockTrace::parse(
      "fio version 2 iolog\n"
      "d write 2101248 4096\n"   // 2 MiB + 4 KiB
      "d write 4186112 8192\n"   // 4 MiB - 8 KiB: ends at the extent, 4194304
      "d read 512 512\n",        // not LBA aligned
      "s.log");
  REQUIRE(t.extent() == 4194304);
  auto m = t.fit(1048576, 4096, ReplayFit::Scale);  // 1 MiB region: factor 1/4
  REQUIRE(m.size() == 3);
  // 2101248 / 4 = 525312 = 128.25 LBAs -> 128 * 4096 = 524288.
  check(m[0], 0, true, 524288, 4096, 2);
  // 4186112 / 4 = 1046528 = 255.5 LBAs -> 1044480; + 8192 = 1052672 > 1048576,
  // so it moves back to end at the region's end: 1048576 - 8192 = 1040384.
  check(m[1], 0, true, 1040384, 8192, 3);
  // 512 / 4 = 128 -> LBA 0; 512 bytes at 512 widen to the whole LBA: 4096.
  check(m[2], 0, false, 0, 4096, 4);
  // A trace that fits is left where it is (offset aligned down, end up).
  auto same = t.fit(8388608, 4096, ReplayFit::Scale);
  CHECK(same[0].offset == 2101248);
  CHECK(same[1].offset == 4186112);
}

TEST_CASE("replay_fit wrap takes offsets modulo the region and none rejects what is outside", "[host][trace]") {
  auto t = BlockTrace::parse(
      "fio version 2 iolog\n"
      "d read 3158016 4096\n"  // 3 MiB + 12 KiB
      "d read 1044480 8192\n"  // 1 MiB - 4 KiB: crosses the 1 MiB region's end
      "d write 5000 100\n",    // inside, unaligned
      "w.log");
  auto m = t.fit(1048576, 4096, ReplayFit::Wrap);
  // 3158016 mod 1048576 = 12288.
  check(m[0], 0, false, 12288, 4096, 2);
  // 1044480 + 8192 > 1048576: moved back to 1048576 - 8192 = 1040384.
  check(m[1], 0, false, 1040384, 8192, 3);
  // 5000 -> LBA 1 = 4096; 5000 + 100 = 5100 ends in LBA 1 too: 4096 bytes.
  check(m[2], 0, true, 4096, 4096, 4);
  CHECK_THROWS_WITH(t.fit(1048576, 4096, ReplayFit::None),
                    Contains("w.log:2: the I/O at offset 3158016 of 4096 bytes ends beyond the job's region of 1048576"));
  CHECK_THROWS_WITH(t.fit(4096, 4096, ReplayFit::Wrap), Contains("w.log:3: an I/O of 8192 bytes"));
}

TEST_CASE("fio replay options parse and round trip through to_fio", "[host][fio][trace]") {
  auto jobs = parse_fio(
      "[r]\nread_iolog=/tmp/hm_0.csv\nreplay_no_stall\nreplay_time_scale=250\nreplay_format=msr\n"
      "replay_fit=wrap\niodepth=16\n",
      "r.fio");
  REQUIRE(jobs.size() == 1);
  const FioJob& j = jobs[0];
  CHECK(j.read_iolog == "/tmp/hm_0.csv");
  CHECK(j.replay_no_stall);
  CHECK(j.replay_time_scale == 250);
  CHECK(j.replay_format == TraceFormat::Msr);
  CHECK(j.replay_fit == ReplayFit::Wrap);
  auto back = parse_fio(j.to_fio(), "to_fio");
  REQUIRE(back.size() == 1);
  CHECK(back[0] == j);
  FioJob d;
  CHECK(d.replay_time_scale == 100);
  CHECK(d.replay_fit == ReplayFit::None);
  CHECK(d.replay_format == TraceFormat::Auto);
  back[0].replay_fit = ReplayFit::Scale;
  CHECK(back[0] != j);
  CHECK_THROWS_WITH(parse_fio("[r]\nreplay_fit=stretch\n", "r.fio"),
                    Contains("r.fio:2: option 'replay_fit': value 'stretch' is not one of none, scale, wrap"));
  CHECK_THROWS_WITH(parse_fio("[r]\nreplay_format=csv\n", "r.fio"), Contains("r.fio:2: option 'replay_format'"));
  CHECK_THROWS_WITH(parse_fio("[r]\nreplay_time_scale=0\n", "r.fio"), Contains("out of range (1..1000000)"));
}
