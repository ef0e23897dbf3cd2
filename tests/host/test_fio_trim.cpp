// SPDX-License-Identifier: BSD-3-Clause
// fio's trim modes (rw=trim, randtrim, trimwrite, randtrimwrite): each trim
// is a BLKDISCARD, one NVMe Dataset Management deallocate, synchronous as
// fio's libaio engine sends it, through to the FTL; trimwrite writes the
// blocks it has just trimmed.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/TestSupport.hpp"

using namespace vp::test;
using Catch::Contains;

namespace {

std::vector<CsvRow> by_issue(const std::string& dir) {
  auto rows = csv_rows(dir + "/requests.csv");
  std::stable_sort(rows.begin(), rows.end(),
                   [](const CsvRow& a, const CsvRow& b) { return u64(a, "issue_ps") < u64(b, "issue_ps"); });
  return rows;
}

// 16 writes of 64 KiB, then (stonewall) the same blocks trimmed, then read.
const char* kWriteTrimRead =
    "[w]\nrw=write\nbs=64k\nnumber_ios=16\ndirect=1\n"
    "[t]\nstonewall\nrw=trim\nbs=64k\niodepth=8\nnumber_ios=16\ndirect=1\n"
    "[r]\nstonewall\nrw=read\nbs=64k\nnumber_ios=16\ndirect=1\n";

}  // namespace

TEST_CASE("rw=trim deallocates the blocks in the FTL, one synchronous DSM per trim, and reads then find zeros", "[host][fio][trim]") {
  auto dir = scratch("trim");
  auto s = run_traced(dir, "quick", {}, kWriteTrimRead);
  const auto& t = s["jobs"][1];
  CHECK(t["rw"] == "trim");
  CHECK(t["trims"] == 16);
  CHECK(t["ios"] == 16);
  CHECK(t["latency_us"]["trim"]["count"] == 16);
  // Every page the writer wrote (16 x 64 KiB) is deallocated.
  const auto& ftl = drive(s)["ftl"];
  CHECK(ftl["host_page_writes"].get<uint64_t>() > 0);
  CHECK(ftl["trimmed_pages"] == ftl["host_page_writes"]);
  // The reads of trimmed blocks return zeros without touching flash; the
  // writes' data had reached it (the drive has no DRAM cache in quick).
  CHECK(s["counters"]["ssd.flash.reads"] == 0);
  auto ctl = run_server("no-trim", "quick", {},
                        "[w]\nrw=write\nbs=64k\nnumber_ios=16\ndirect=1\n[r]\nstonewall\nrw=read\nbs=64k\nnumber_ios=16\ndirect=1\n");
  CHECK(ctl["counters"]["ssd.flash.reads"] == ctl["counters"]["ssd.flash.programs"]);  // without the trims: every page
  // fio's libaio sends a trim as an ioctl and waits in it: at iodepth=8 no
  // two trims are ever in flight together.
  std::vector<CsvRow> trims;
  for (auto& r : by_issue(dir))
    if (r.at("op") == "trim") trims.push_back(r);
  REQUIRE(trims.size() == 16);
  for (size_t i = 1; i < trims.size(); ++i) {
    INFO("trim " << i);
    CHECK(u64(trims[i], "issue_ps") >= u64(trims[i - 1], "issue_ps") + u64(trims[i - 1], "latency_ps"));
    CHECK(u64(trims[i], "lba") == u64(trims[i - 1], "lba") + 16);  // sequential, 64 KiB of 4 KiB LBAs
    CHECK(u64(trims[i], "bytes") == 65536);
  }
}

TEST_CASE("rw=trimwrite trims a block, then writes it, and counts its size in writes", "[host][fio][trim]") {
  auto dir = scratch("trimwrite");
  auto s = run_traced(dir, "quick", {}, "[tw]\nrw=trimwrite\nbs=4k\niodepth=4\nnumber_ios=8\ndirect=1\n");
  CHECK(s["jobs"][0]["trims"] == 8);
  CHECK(s["jobs"][0]["writes"] == 8);
  auto rows = by_issue(dir);
  REQUIRE(rows.size() == 16);
  for (size_t i = 0; i < rows.size(); i += 2) {
    INFO("pair " << i / 2);
    CHECK(rows[i].at("op") == "trim");
    CHECK(rows[i + 1].at("op") == "write");
    CHECK(u64(rows[i], "lba") == i / 2);  // sequential from the region's start
    CHECK(u64(rows[i + 1], "lba") == i / 2);
    // The write follows its trim's completion (the thread waited in the ioctl).
    CHECK(u64(rows[i + 1], "issue_ps") >= u64(rows[i], "issue_ps") + u64(rows[i], "latency_ps"));
  }
}

TEST_CASE("rw=randtrimwrite writes each random block it trims, on vp-drive too", "[host][fio][trim]") {
  // The drive is preconditioned full, so every block a trim meets holds
  // data (the precondition's or its last write): each trim deallocates as
  // many pages as its write then maps again.
  auto s = run_server("randtrimwrite", "quick", {}, "[rtw]\nrw=randtrimwrite\nbs=8k\nsize=64k\nnumber_ios=200\ndirect=1\n");
  CHECK(s["jobs"][0]["trims"] == 200);
  CHECK(s["jobs"][0]["writes"] == 200);
  const auto& ftl = drive(s)["ftl"];
  CHECK(ftl["precondition"]["writes"].get<uint64_t>() > 0);
  CHECK(ftl["host_page_writes"].get<uint64_t>() > 0);
  CHECK(ftl["trimmed_pages"] == ftl["host_page_writes"]);
  // The drive platform sends the same DSM commands from its queues.
  auto dir = scratch("trim-drive");
  std::ofstream(dir + "/job.fio") << "[w]\nrw=write\nbs=16k\nnumber_ios=32\ndirect=1\n"
                                     "[t]\nstonewall\nrw=randtrim\nbs=16k\nnumber_ios=1\nnorandommap\ndirect=1\n";
  Shell sh = shell(std::string(VP_DRIVE_BIN) + " --preset quick --job " + dir + "/job.fio --out " + dir + "/out");
  REQUIRE(sh.status == 0);
  auto d = nlohmann::json::parse(slurp(dir + "/out/summary.json"));
  CHECK(d["jobs"][1]["trims"] == 1);
}

TEST_CASE("fio.json has the trims' section and fio's logs mark them direction 2", "[host][fio][trim]") {
  auto dir = scratch("trim-fio-json");
  std::ofstream(dir + "/job.fio") << "[t]\nrw=randtrim\nbs=4k\nnumber_ios=50\ndirect=1\nwrite_lat_log=t\n";
  Shell sh = shell(std::string(VP_SERVER_BIN) + " --preset quick --job " + dir + "/job.fio --out " + dir + "/out");
  REQUIRE(sh.status == 0);
  auto f = nlohmann::json::parse(slurp(dir + "/out/fio.json"));
  const auto& job = f["jobs"][0];
  CHECK(job["trim"]["total_ios"] == 50);
  CHECK(job["trim"]["io_bytes"] == 50 * 4096);
  CHECK(job["read"]["total_ios"] == 0);
  CHECK(job["write"]["total_ios"] == 0);
  CHECK(job["trim"]["lat_ns"]["N"] == 50);
  std::string log = slurp(dir + "/out/t_lat.1.log");
  size_t lines = std::count(log.begin(), log.end(), '\n');
  CHECK(lines == 50);
  CHECK(log.find(", 2, 4096, ") != std::string::npos);  // time, latency, direction 2 (trim), size, priority
}

TEST_CASE("trims that cannot work stop naming the options", "[host][fio][trim]") {
  // The page cache's copies of trimmed blocks are not dropped in this model.
  CHECK_THROWS_WITH(run("quick", {}, "[b]\nrw=randread\ndirect=0\nnumber_ios=10\n[t]\nrw=randtrim\ndirect=1\nnumber_ios=10\n"),
                    Contains("option 'rw'") && Contains("job 'b' reads or writes it through the page cache") &&
                        Contains("set direct=1 on job 'b'"));
  CHECK_THROWS_WITH(run("quick", {}, "[tw]\nrw=trimwrite\ndirect=0\nnumber_ios=10\n"),
                    Contains("set direct=1 on job 'tw'"));
  CHECK_THROWS_WITH(run("quick", {}, "[v]\nrw=trimwrite\ndirect=1\nverify=1\nnumber_ios=10\n"),
                    Contains("option 'verify'") && Contains("does not follow trims"));
  CHECK_THROWS_WITH(run("quick", {{"host.nvme.completion", "poll"}}, "[t]\nrw=trim\ndirect=1\nnumber_ios=10\n"),
                    Contains("a trim (BLKDISCARD) completes by interrupt"));
  // A trim value of its own is refused; one rate for all directions is fine.
  CHECK_THROWS_WITH(run("quick", {}, "[t]\nrw=trim\ndirect=1\nrate=1m,1m,2m\nnumber_ios=10\n"),
                    Contains("trims here take the write value"));
}
