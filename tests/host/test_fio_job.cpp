// SPDX-License-Identifier: BSD-3-Clause
// The fio job parser: what users write must mean what fio means, and bad input
// must point at the file, line and option.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "vp/host/workload/FioJob.hpp"

using namespace vp::host;

namespace {
FioJob named(const std::string& n) {
  FioJob j;
  j.name = n;
  return j;
}
FioJob one(const std::string& opts) {
  auto jobs = parse_fio("[j]\n" + opts + "\n", "t.fio");
  REQUIRE(jobs.size() == 1);
  return jobs[0];
}
std::string error_of(const std::string& text) {
  try {
    parse_fio(text, "jobs.fio");
  } catch (const FioError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("fio defaults match fio", "[fio]") {
  FioJob j = one("");
  CHECK(j == named("j"));
  CHECK(j.rw == RwMode::Read);
  CHECK(j.bs == 4096);
  CHECK(j.iodepth == 1);
  CHECK(j.size == 0);
  CHECK(j.size_percent == 100.0);
  CHECK_FALSE(j.direct);  // buffered, as fio's direct=0
  CHECK(j.ioengine == "libaio");
  CHECK(j.cpus_allowed.empty());
}

TEST_CASE("fio global options apply to the jobs after them, in file order", "[fio]") {
  auto jobs = parse_fio(R"(
; comment
# another
[global]
ioengine = io_uring
bs=16k
iodepth=8

[a]
rw=randread
[b]
iodepth = 32   ; trailing comment
time_based
[global]
rw=write
[c]
)",
                        "t.fio");
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].name == "a");
  CHECK(jobs[0].rw == RwMode::RandRead);
  CHECK(jobs[0].bs == 16384);
  CHECK(jobs[0].iodepth == 8);
  CHECK(jobs[0].ioengine == "io_uring");
  CHECK_FALSE(jobs[0].time_based);
  CHECK(jobs[1].name == "b");
  CHECK(jobs[1].rw == RwMode::Read);
  CHECK(jobs[1].iodepth == 32);
  CHECK(jobs[1].time_based);
  CHECK(jobs[2].name == "c");
  CHECK(jobs[2].rw == RwMode::Write);
  CHECK(jobs[2].bs == 16384);
  CHECK(parse_fio("[global]\nbs=8k\n", "t.fio").empty());
}

TEST_CASE("fio rw modes and mix", "[fio]") {
  CHECK(one("rw=randrw").rw == RwMode::RandRW);
  CHECK(one("readwrite=rw").rw == RwMode::SeqRW);
  CHECK(one("rw=randtrimwrite").rw == RwMode::RandTrimWrite);
  CHECK(one("rw=randtrimwrite").is_random());
  CHECK(one("rw=trimwrite").has_writes());
  CHECK(!one("rw=trim").has_writes());
  CHECK(one("rw=trim").has_trims());
  CHECK(!one("rw=trim\ndirect=0").buffered_io());  // a trim is an ioctl, whatever direct says
  CHECK(one("rw=readwrite").rw_name() == "rw");
  CHECK(one("rw=randwrite").is_random());
  CHECK_FALSE(one("rw=write").has_reads());
  CHECK(one("rw=randrw\nrwmixread=70").rwmixread == 70);
  CHECK(one("rw=randrw\nrwmixwrite=30").rwmixread == 70);
  CHECK_FALSE(one("rw=randrw\nrwmixread=100").has_writes());
  CHECK(one("rw=rw").has_writes());
}

TEST_CASE("fio size units", "[fio]") {
  CHECK(one("bs=512").bs == 512);
  for (const char* k : {"4k", "4K", "4KiB", "4kb", "4KB"}) CHECK(one(std::string("bs=") + k).bs == 4096);
  for (const char* m : {"1m", "1M", "1MiB", "1mb"}) CHECK(one(std::string("blocksize=") + m).bs == 1 << 20);
  for (const char* g : {"2g", "2G", "2GiB", "2gb"}) CHECK(one(std::string("size=") + g).size == (2ull << 30));
  CHECK(one("size=1t").size == (1ull << 40));
  FioJob p = one("size=50%\noffset=25%");
  CHECK(p.size == 0);
  CHECK(p.size_percent == 50.0);
  CHECK(p.offset == 0);
  CHECK(p.offset_percent == 25.0);
  CHECK(one("offset=1m").offset == 1 << 20);
  CHECK(one("offset_increment=2m").offset_increment == 2 << 20);
  FioJob inc = one("offset=1m\noffset_increment=10%");
  CHECK(inc.offset_increment_percent == 10.0);
  inc.clone = 3;  // 1 MiB + 3 x 10% of 100 MiB
  CHECK(inc.start_offset(100 << 20) == (1 << 20) + 3 * 10485760ull);
  CHECK(one("size=12.5%").size_percent == 12.5);
}

TEST_CASE("fio time units", "[fio]") {
  const uint64_t s = 1000000000000ull;
  CHECK(one("runtime=10").runtime_ps == 10 * s);  // plain runtime: seconds
  CHECK(one("runtime=5ns").runtime_ps == 5000);
  CHECK(one("runtime=5us").runtime_ps == 5000000);
  CHECK(one("runtime=5ms").runtime_ps == 5000000000ull);
  CHECK(one("runtime=5s").runtime_ps == 5 * s);
  CHECK(one("runtime=2m").runtime_ps == 120 * s);
  CHECK(one("runtime=1h").runtime_ps == 3600 * s);
  CHECK(one("thinktime=7").thinktime_ps == 7000000);  // plain thinktime: microseconds
  CHECK(one("thinktime=2ms").thinktime_ps == 2000000000ull);
  CHECK(one("startdelay=3").startdelay_ps == 3 * s);
  CHECK(one("startdelay=100us").startdelay_ps == 100000000ull);
}

TEST_CASE("phases: DURATION:INTENSITY lists, none, and what is wrong with a bad one", "[fio]") {
  const uint64_t s = 1000000000000ull;
  FioJob j = one("thinktime_insts=1000\nphases=2800ms:1.5, 3:0.25");
  REQUIRE(j.phases.size() == 2);
  CHECK(j.phases[0].duration_ps == 2800000000000ull);
  CHECK(j.phases[0].intensity == 1.5);
  CHECK(j.phases[1].duration_ps == 3 * s);  // plain: seconds, as runtime
  CHECK(j.insts_between_ios(0) == 667);           // 1000 / 1.5 = 666.7
  CHECK(j.insts_between_ios(2800000000000ull) == 4000);
  CHECK(j.insts_between_ios(5800000000000ull - 1) == 4000);
  CHECK(j.insts_between_ios(5800000000000ull) == 667);  // 5.8 s: the list again
  CHECK(j.phases_text() == "2800ms:1.5,3s:0.25");
  CHECK(parse_fio(j.to_fio(), "again")[0] == j);
  CHECK(one("app=PR\nphases=none").phases.empty());
  CHECK(one("app=PR\nphases=none").insts_between_ios(123) == 2724796);
  CHECK(parse_fio(one("app=PR\nphases=none").to_fio(), "again")[0].phases.empty());  // none survives app= there
  CHECK_THROWS_WITH(one("phases=1s"), Catch::Contains("'phases'") && Catch::Contains("without a ':'"));
  CHECK_THROWS_WITH(one("phases=1s:0"), Catch::Contains("above 0 and at most 1000"));
  CHECK_THROWS_WITH(one("phases=0s:1"), Catch::Contains("zero duration"));
  CHECK_THROWS_WITH(one("phases=1.5s:1"), Catch::Contains("whole numbers with a unit"));
  CHECK_THROWS_WITH(one("phases=1s:x"), Catch::Contains("intensity 'x'"));
  CHECK_THROWS_WITH(one("phases=1q:2"), Catch::Contains("unknown unit"));
}

TEST_CASE("fio other options", "[fio]") {
  FioJob j = one(
      "number_ios=1000\nnumjobs=4\nrate_iops=500\nrandseed=18446744073709551615\ndirect=0\n"
      "verify=meta\nwait_for_previous\ngroup_reporting\nfilename=/dev/nvme0n1\nname=renamed\n"
      "description=some words here\nioengine=psync");
  CHECK(j.number_ios == 1000);
  CHECK(j.numjobs == 4);
  CHECK(j.rate_iops == 500);
  CHECK(j.randseed == 18446744073709551615ull);
  CHECK_FALSE(j.direct);
  CHECK(j.verify);
  CHECK(j.stonewall);
  CHECK(j.filename == "/dev/nvme0n1");
  CHECK(j.name == "renamed");
  CHECK(j.ioengine == "psync");
  CHECK_FALSE(one("verify=none").verify);
  CHECK(one("verify=1").verify);
  CHECK_FALSE(one("stonewall=0").stonewall);
}

TEST_CASE("fio cpus_allowed lists and ranges", "[fio]") {
  CHECK(one("cpus_allowed=0").cpus_allowed == std::vector<unsigned>{0});
  CHECK(one("cpus_allowed=0-3").cpus_allowed == std::vector<unsigned>{0, 1, 2, 3});
  CHECK(one("cpus_allowed=0,2,5-7").cpus_allowed == std::vector<unsigned>{0, 2, 5, 6, 7});
  CHECK(one("cpus_allowed=3,1,1-2").cpus_allowed == std::vector<unsigned>{1, 2, 3});
  for (const char* bad : {"3-1", "a", "1,", "", "1-", "0-5000"})
    CHECK_THROWS_AS(one(std::string("cpus_allowed=") + bad), FioError);
}

TEST_CASE("fio errors name file, line, option and value", "[fio]") {
  CHECK(error_of("[j]\n\nfoo=1\n").find("jobs.fio:3: unknown option 'foo': fio has no such option") == 0);
  CHECK(error_of("[j]\nrw=read\nrw=trimread\n").find("jobs.fio:3: option 'rw': value 'trimread' is not one of") !=
        std::string::npos);
  CHECK(error_of("[j]\nrw=randomread\n") ==
        "jobs.fio:2: option 'rw': value 'randomread' is not one of read, write, randread, randwrite, randrw, rw, "
        "readwrite, trim, randtrim, trimwrite, randtrimwrite");
  CHECK(error_of("[a]\n[b]\n\n\n\n\niodepth=0\n") == "jobs.fio:7: option 'iodepth': value '0' out of range (1..65536)");
  CHECK(error_of("[j]\nrwmixread=101") == "jobs.fio:2: option 'rwmixread': value '101' out of range (0..100)");
  CHECK(error_of("[j]\niodepth=abc") == "jobs.fio:2: option 'iodepth': value 'abc' is not a whole number");
  CHECK(error_of("# c\nbs=4k\n[j]\n") == "jobs.fio:2: option 'bs' appears before any [section] header");
  CHECK(error_of("[j]\nbs=1000") ==
        "jobs.fio:2: option 'bs': value '1000' has block size '1000': must be a positive multiple of 512 bytes");
  CHECK(error_of("[j]\nbs=4x") == "jobs.fio:2: option 'bs': value '4x' has an unknown unit (allowed: none, "
                                  "k/KiB/kb, m/MiB, g/GiB, t/TiB)");
  CHECK(error_of("[j]\nruntime=5y").find("jobs.fio:2: option 'runtime': value '5y' has an unknown unit") == 0);
  CHECK(error_of("[j]\nsize=150%") == "jobs.fio:2: option 'size': value '150%' out of range (0%..100%)");
  CHECK(error_of("[j]\nbs") == "jobs.fio:2: option 'bs' needs a value");
  CHECK(error_of("[j]\ntime_based=yes").find("jobs.fio:2: option 'time_based': value 'yes'") == 0);
  CHECK(error_of("[j]\ndirect=2") == "jobs.fio:2: option 'direct': value '2' out of range (0..1)");
  CHECK(error_of("[j]\nverify=md5").find("jobs.fio:2: option 'verify': value 'md5'") == 0);
  CHECK(error_of("[j]\nnumjobs=0").find("jobs.fio:2: option 'numjobs': value '0' out of range") == 0);
  CHECK(error_of("[j\n").find("jobs.fio:1: malformed section header") == 0);
  CHECK(error_of("[j]\nruntime=99999999999999h") == "jobs.fio:2: option 'runtime': value '99999999999999h' is too large");
}

TEST_CASE("fio file errors name the path", "[fio]") {
  const std::string path = "/nonexistent-dir/x.fio";
  try {
    parse_fio_file(path);
    FAIL("expected FioError");
  } catch (const FioError& e) {
    CHECK(std::string(e.what()).find(path) != std::string::npos);
  }
  const std::string tmp = "/tmp/vp_test_fio_job.fio";
  std::ofstream(tmp) << "[j]\nbs=8k\nbogus\n";
  CHECK_THROWS_WITH(parse_fio_file(tmp), Catch::StartsWith(tmp + ":3: unknown option 'bogus'"));
  std::remove(tmp.c_str());
}

TEST_CASE("fio to_fio round trips", "[fio]") {
  auto jobs = parse_fio(R"(
[global]
thinktime=5
runtime=250ms
[mixed]
rw=randrw
rwmixwrite=30
bs=128k
iodepth=64
size=50%
offset=12.5%
number_ios=12345
time_based
numjobs=3
cpus_allowed=0,2-4,7
rate_iops=1000
randseed=42
direct=0
ioengine=io_uring
verify=meta
stonewall
startdelay=1500ms
filename=/dev/nvme0n1
[plain]
size=1g
offset=4k
)",
                        "t.fio");
  REQUIRE(jobs.size() == 2);
  std::string text;
  for (const auto& j : jobs) text += j.to_fio() + "\n";
  auto back = parse_fio(text, "round trip");
  CHECK(back == jobs);
  // Self-contained: a [global] in front must not change a serialised job.
  auto shielded = parse_fio("[global]\nbs=64k\ntime_based\nrw=write\nrwmixread=0\n" + text, "round trip");
  CHECK(shielded == jobs);
  // Times not expressible in fio's units still round trip.
  FioJob odd = named("odd");
  odd.thinktime_ps = 1234567;
  odd.runtime_ps = 90ull * 1000000000000ull;
  odd.cpus_allowed = {1, 2, 3, 5};
  CHECK(odd.to_fio().find("runtime=90s\n") != std::string::npos);
  CHECK(odd.to_fio().find("cpus_allowed=1-3,5\n") != std::string::npos);
  CHECK(parse_fio(odd.to_fio(), "odd") == std::vector<FioJob>{odd});
}
