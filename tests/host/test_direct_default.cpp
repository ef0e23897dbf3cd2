// SPDX-License-Identifier: BSD-3-Clause
// fio's direct defaults to 0: a job file that does not say direct=1 is
// buffered, through the host page cache, as fio would run it; where buffered
// I/O is not modeled, a job that left direct at its default is told to add
// direct=1, naming the option, the value and why.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <utility>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
uint64_t u(const nlohmann::json& j) { return j.get<uint64_t>(); }

std::string refusal(const Sets& sets, const std::string& fio,
                    vp::platform::Platform platform = vp::platform::Platform::Server) {
  vp::platform::RunOptions o = options("quick", sets, fio);
  o.platform = platform;
  try {
    vp::platform::build_config(o);
  } catch (const vp::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

// What the refusal of a job that left direct at its default adds.
const std::string kAddDirect = "sets no direct= and fio's default is direct=0 (buffered I/O through the page cache): "
                               "add direct=1 to the job or its [global] section";
}  // namespace

TEST_CASE("a job file without direct= runs buffered through the page cache, and direct=1 runs direct",
          "[host][pagecache][fio]") {
  // 16 writes of 4 KiB, each job file run by vp-server --job as a user would.
  const std::string dir = scratch("direct-default");
  auto run_job = [&](const std::string& name, const std::string& extra) {
    std::ofstream(dir + "/" + name + ".fio") << "[w]\nrw=write\nbs=4k\nsize=64k\nnumber_ios=16\n" << extra;
    Shell sh = shell(std::string(VP_SERVER_BIN) + " --preset quick --job " + dir + "/" + name + ".fio --out " + dir +
                     "/" + name);
    INFO(sh.out);
    REQUIRE(sh.status == 0);
    return nlohmann::json::parse(slurp(dir + "/" + name + "/summary.json"));
  };
  // Buffered: 16 dirty pages in the cache (far below its background
  // limit), and no command reaches the device.
  for (const auto& [name, extra] : {std::pair{"plain", ""}, {"buffered1", "buffered=1\n"}, {"direct0", "direct=0\n"}}) {
    INFO("options: " << extra);
    auto s = run_job(name, extra);
    CHECK(s["jobs"][0]["direct"] == 0);
    CHECK(s["jobs"][0]["writes"] == 16);
    CHECK(u(host(s)["pagecache"]["dirty_pages"]) == 16);
    CHECK(u(drive(s)["device"]["write_commands"]) == 0);
  }
  // config.yaml, which re-runs the run, spells the default out.
  CHECK(slurp(dir + "/plain/config.yaml").find("direct=0") != std::string::npos);
  // direct=1 (or buffered=0): every write is an NVMe command, and there is no page cache.
  for (const auto& [name, extra] : {std::pair{"direct1", "direct=1\n"}, {"buffered0", "buffered=0\n"}}) {
    INFO("options: " << extra);
    auto s = run_job(name, extra);
    CHECK_FALSE(s["jobs"][0].contains("direct"));
    CHECK(s["jobs"][0]["writes"] == 16);
    CHECK(u(drive(s)["device"]["write_commands"]) == 16);
    CHECK((!host(s).contains("pagecache") || host(s)["pagecache"].is_null()));
  }
}

TEST_CASE("where buffered I/O is not modeled, a job that left direct at its default is told to add direct=1",
          "[host][pagecache][fio][config]") {
  const std::string plain = "[r]\nrw=randread\nbs=4k\nnumber_ios=10\n";
  // Polled queues carry no page-cache I/O.
  std::string e = refusal({{"host.nvme.completion", "poll"}}, plain);
  CHECK_THAT(e, Catch::Contains("job 'r': option 'direct' (default): buffered I/O needs interrupt-driven queues") &&
                    Catch::Contains(kAddDirect));
  // An online job's I/Os are direct.
  e = refusal({}, "[o]\nonline=1\nrequests=10\nrw=randread\nbs=4k\n");
  CHECK_THAT(e, Catch::Contains("job 'o': option 'direct' (default): an online job's I/Os are direct") &&
                    Catch::Contains("job 'o' " + kAddDirect));
  // A block-trace replay is direct.
  e = refusal({}, "[t]\nread_iolog=/nonexistent.log\n");
  CHECK_THAT(e, Catch::Contains("option 'read_iolog'") && Catch::Contains("block-trace replay needs direct=1") &&
                    Catch::Contains(kAddDirect));
  // The page cache sits on the first drive: not on md0 or another drive.
  e = refusal({{"platform.drives", "ssd, ssd1"}, {"host.md.level", "raid0"}},
              "[m]\nfilename=/dev/md0\nrw=randread\nbs=4k\nnumber_ios=10\n");
  CHECK_THAT(e, Catch::Contains("option 'direct' (default): buffered I/O goes through the page cache, which is "
                                "modeled on /dev/nvme0n1 only") &&
                    Catch::Contains(kAddDirect));
  // A larger LBA than the page.
  e = refusal({{"ssd.nvme.lba_size", "8KiB"}}, "[r]\nrw=randread\nbs=8k\nnumber_ios=10\n");
  CHECK_THAT(e, Catch::Contains("buffered I/O needs an LBA of at most the 4 KiB page") && Catch::Contains(kAddDirect));
  // A size the page cache cannot take names the size and the default too.
  e = refusal({{"ssd.nvme.lba_size", "512"}, {"ssd.ftl.map_unit", "512"}, {"ssd.ftl.gc.migration", "read_program"}},
              "[r]\nrw=randread\nbs=2k\nnumber_ios=10\n");
  CHECK_THAT(e, Catch::Contains("option 'bs' = '2k': 2048 is not a multiple of the 4 KiB page, as buffered I/O needs "
                                "(option 'direct' = '0' (default))") &&
                    Catch::Contains(kAddDirect));
  // vp-drive has no page cache: the job is refused, not run direct behind the user's back.
  e = refusal({}, plain, vp::platform::Platform::Drive);
  CHECK_THAT(e, Catch::Contains("job 'r': option 'direct' (default): buffered I/O (direct=0) goes through a page "
                                "cache (vp-drive has no host above the NVMe queues") &&
                    Catch::Contains(kAddDirect));
  // Each of them runs with direct=1.
  const std::string direct = "[r]\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=10\n";
  CHECK(refusal({{"host.nvme.completion", "poll"}}, direct) == "accepted");
  CHECK(refusal({}, direct, vp::platform::Platform::Drive) == "accepted");
  CHECK(refusal({}, "[o]\ndirect=1\nonline=1\nrequests=10\nrw=randread\nbs=4k\n") == "accepted");
  // A job that asked for buffered I/O itself is told why, not to add direct=1.
  for (const char* opt : {"direct=0", "buffered=1"}) {
    INFO(opt);
    e = refusal({{"host.nvme.completion", "poll"}}, plain + opt + "\n");
    CHECK_THAT(e, Catch::Contains("buffered I/O needs interrupt-driven queues"));
    CHECK_THAT(e, Catch::Contains(std::string("option '") + (opt[0] == 'd' ? "direct' = '0'" : "buffered' = '1'")));
    CHECK(e.find("add direct=1") == std::string::npos);
  }
}
