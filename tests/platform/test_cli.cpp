// SPDX-License-Identifier: BSD-3-Clause
// The vp-server binary: configuration errors, reproducibility, outputs.
#include <algorithm>
#include <catch2/catch.hpp>

#include <map>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
const std::string kBin = VP_SERVER_BIN;

Shell server(const std::string& args) { return shell(kBin + " " + args); }

// A refused run leaves no output folder behind, even one refused at
// elaboration after --out was claimed (no room in the SSD's DRAM, say).
void expect_config_error(const std::string& args, const std::vector<std::string>& mentions) {
  const std::string out = scratch("cli-refused") + "/never-written";
  Shell s = server("--preset quick --out " + out + " " + args);
  INFO("args: " << args << "\noutput: " << s.out);
  CHECK(s.status == 2);
  for (const auto& m : mentions) CHECK(s.out.find(m) != std::string::npos);
  CHECK(!std::filesystem::exists(out));
}

nlohmann::json summary_without_wall(const std::string& dir) {
  auto j = nlohmann::json::parse(slurp(dir + "/summary.json"));
  j.erase("wall_time_s");
  return j;
}
}  // namespace

TEST_CASE("every kind of bad configuration stops before simulating with exit 2 and names the key",
          "[platform][cli][config]") {
  expect_config_error("--set ssd.flash.chanels=4", {"ssd.flash.chanels", "unknown parameter", "channels"});
  expect_config_error("--set ssd.flash.t_read=3", {"ssd.flash.t_read", "'3'", "no unit"});
  expect_config_error("--set ssd.flash.t_read=3GiB", {"ssd.flash.t_read", "3GiB", "time"});
  expect_config_error("--set ssd.flash.channels=0", {"ssd.flash.channels", "'0'", "out of range"});
  expect_config_error("--set ssd.flash.block_size=1025KiB", {"ssd.flash.block_size", "1025KiB", "page"});
  expect_config_error("--set host.nvme.queue_depth=70000", {"host.nvme.queue_depth", "70000", "65536"});
  expect_config_error("--set host.nvme.queue_depth=8192 --set ssd.nvme.max_queue_entries=4096",
                      {"host.nvme.queue_depth", "ssd.nvme.max_queue_entries"});
  expect_config_error("--set pcie.encoding=8b9b", {"pcie.encoding", "8b9b", "128b130b"});
  // A word outside any option (a job file without --job) is refused, not ignored.
  expect_config_error("jobs.fio", {"unexpected argument 'jobs.fio'", "--job"});
  expect_config_error("--set ssd.precondition.pattern=maybe", {"ssd.precondition.pattern", "maybe", "random"});
  expect_config_error("--set ssd.ftl.overprovision=0.001", {"ssd.ftl.overprovision", "free block"});
  expect_config_error("--set ssd.ftl.shards=3 --set ssd.ftl.shard_hash=xor", {"ssd.ftl.shards", "power of two"});
  expect_config_error("--set ssd.ftl.shards=3 --set ssd.ftl.shard_partition=channel",
                      {"ssd.ftl.shards", "ssd.flash.channels = '4'"});
  expect_config_error("--set ssd.ftl.page_alloc=lsb_group", {"ssd.ftl.page_alloc", "multi-level", "bits_per_cell"});
  expect_config_error("--set ssd.flash.blocks_per_plane=2", {"ssd.ftl.overprovision", "garbage collection"});
  expect_config_error("--set ssd.precondition.fill=1.5", {"ssd.precondition.fill", "1.5", "out of range"});
  expect_config_error("--set ssd.flash.oob_size=4B", {"ssd.flash.oob_size", "8 bytes"});
  expect_config_error("--set ssd.ftl.gc.policy=fifo", {"ssd.ftl.gc.policy", "fifo", "cost_benefit"});
  expect_config_error("--set ssd.nvme.lba_size=512", {"ssd.nvme.lba_size", "512"});
  expect_config_error("--set host.cores=100", {"host.cores", "max_io_queues"});
  // 250,000 pieces of 5 us a second: a core busy 125% of the time would never run a thread.
  expect_config_error("--set host.sched.background_rate=250000",
                      {"host.sched.background_rate", "host.sched.background_cost", "125%"});
  expect_config_error("--set host.dram.size=1MiB", {"host.dram.size", "too small"});
  expect_config_error("--set sim.seed=1.5", {"sim.seed", "not an integer"});
  expect_config_error("--set bogus", {"bogus", "key=value"});
  expect_config_error("--trace vcd,waves", {"waves", "vcd, requests"});

  std::string dir = scratch("badcfg");
  std::ofstream(dir + "/typo.yaml") << "ssd:\n  flash:\n    channels: 4\n    t_raed: 3us\n";
  Shell s = server("--config " + dir + "/typo.yaml");
  INFO(s.out);
  CHECK(s.status == 2);
  CHECK(s.out.find("typo.yaml:4") != std::string::npos);
  CHECK(s.out.find("ssd.flash.t_raed") != std::string::npos);

  std::ofstream(dir + "/bad.fio") << "[global]\nbs=4k\n\n[job1]\nrw=randread\niodepth=0\n";
  s = server("--preset quick --job " + dir + "/bad.fio");
  CHECK(s.status == 2);
  CHECK(s.out.find("bad.fio:6") != std::string::npos);
  CHECK(s.out.find("iodepth") != std::string::npos);

  std::ofstream(dir + "/small.fio") << "[tiny]\nrw=randread\nbs=2k\nnumber_ios=10\n";
  s = server("--preset quick --job " + dir + "/small.fio");
  CHECK(s.status == 2);
  CHECK(s.out.find("tiny") != std::string::npos);
  CHECK(s.out.find("bs") != std::string::npos);
  CHECK(s.out.find("ssd.nvme.lba_size") != std::string::npos);
}

TEST_CASE("two runs with the same seed give identical summaries and another seed does not",
          "[platform][cli][determinism]") {
  std::string dir = scratch("seed");
  std::ofstream(dir + "/m.fio") << "[m]\ndirect=1\nrw=randrw\nbs=4k\niodepth=16\nnumber_ios=3000\n";
  const std::string job = "--job " + dir + "/m.fio";
  REQUIRE(server("--preset quick --seed 7 --out " + dir + "/a " + job).status == 0);
  REQUIRE(server("--preset quick --seed 7 --out " + dir + "/b " + job).status == 0);
  REQUIRE(server("--preset quick --seed 8 --out " + dir + "/c " + job).status == 0);
  auto a = summary_without_wall(dir + "/a"), b = summary_without_wall(dir + "/b"), c = summary_without_wall(dir + "/c");
  CHECK(a == b);
  CHECK(a["jobs"][0]["latency_us"] != c["jobs"][0]["latency_us"]);
}

TEST_CASE("the effective config.yaml reproduces the run", "[platform][cli][config]") {
  std::string dir = scratch("reproduce");
  REQUIRE(server("--preset quick --seed 3 --set host.core.isr_cost=1.25us --out " + dir + "/a").status == 0);
  std::string cfg = slurp(dir + "/a/config.yaml");
  CHECK(cfg.find("isr_cost: \"1.25us\"") != std::string::npos);
  // Typed: numbers and booleans plain, enums and values with units quoted.
  CHECK(cfg.find("\n  cores: 2\n") != std::string::npos);
  CHECK(cfg.find("\n    hybrid_sleep_fraction: 0.5\n") != std::string::npos);
  CHECK(cfg.find("\n    enabled: false\n") != std::string::npos);  // ssd.plp.enabled
  CHECK(cfg.find("\n    bypass: \"off\"\n") != std::string::npos);
  CHECK(cfg.find("\n  seed: 3\n") != std::string::npos);
  REQUIRE(server("--config " + dir + "/a/config.yaml --out " + dir + "/b").status == 0);
  CHECK(summary_without_wall(dir + "/a") == summary_without_wall(dir + "/b"));
}

TEST_CASE("traces: requests.csv has a row per I/O, the VCD and its GTKWave save file agree",
          "[platform][cli][trace]") {
  std::string dir = scratch("trace");
  Shell s = server("--preset quick --trace vcd,requests --out " + dir);
  REQUIRE(s.status == 0);
  auto sum = nlohmann::json::parse(slurp(dir + "/summary.json"));
  uint64_t ios = sum["jobs"][0]["ios"].get<uint64_t>();
  CHECK(ios == 2000);
  std::string csv = slurp(dir + "/requests.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<long>(ios + 1));
  // Each stage's time, then its end, in a read's path order (flash before
  // data_dma); the times add up to the latency, row by row.
  CHECK(csv.rfind("job,op,lba,bytes,sqid,cid,commands,status,attr,result,issue_ps,latency_ps,host_submit_ps,"
                  "cache_wait_ps,blk_mq_ps,driver_queue_ps,accel_ps,sq_wait_ps,fetch_ps,firmware_ps,flash_ps,"
                  "data_dma_ps,cq_post_ps,interrupt_ps,wakeup_ps,host_submit_end_ps",
                  0) == 0);
  const char* stages[] = {"host_submit", "cache_wait", "blk_mq",  "driver_queue", "accel",     "sq_wait", "fetch",
                          "firmware",    "flash",      "data_dma", "cq_post",     "interrupt", "wakeup"};
  for (const CsvRow& r : csv_rows(dir + "/requests.csv")) {
    uint64_t sum = 0, last = u64(r, "issue_ps");
    for (const char* st : stages) {
      const std::string took = r.at(std::string(st) + "_ps"), end = r.at(std::string(st) + "_end_ps");
      REQUIRE(took.empty() == end.empty());
      if (took.empty()) continue;
      sum += std::stoull(took);
      CHECK(std::stoull(end) == last + std::stoull(took));  // each stage runs from the previous one's end
      last = std::stoull(end);
    }
    CHECK(sum == u64(r, "latency_ps"));
  }
  std::string vcd = slurp(dir + "/waves.vcd"), gtkw = slurp(dir + "/waves.gtkw");
  // The VCD's signals by their whole names: the $scope path below SystemC's, then the $var's name.
  auto signals_of = [](const std::string& text) {
    std::vector<std::string> names, scopes;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line) && line.rfind("$enddefinitions", 0) != 0;) {
      std::istringstream w(line);
      std::string a, b, c, d, e;
      w >> a >> b >> c >> d >> e;
      if (a == "$scope") scopes.push_back(c);
      if (a == "$upscope") scopes.pop_back();
      if (a != "$var") continue;
      std::string path;
      for (size_t i = 1; i < scopes.size(); ++i) path += scopes[i] + ".";
      names.push_back(path + e);
    }
    return names;
  };
  const std::vector<std::string> names = signals_of(vcd);
  for (const char* sig : {"ssd.nvme.sq1.occupancy", "ssd.nvme.cq1.occupancy", "ssd.nvme.doorbell_writes",
                          "ssd.nvme.interrupts_sent", "ssd.fw.core0.busy", "ssd.flash.ch0.bus",
                          "ssd.flash.ch0.die0.busy", "host.core0.busy", "ssd.ftl.free_blocks", "ssd.ftl.gc.active",
                          "ssd.dram.busy", "pcie.down.busy", "pcie.up.busy_ns"}) {
    INFO(sig);
    CHECK(std::count(names.begin(), names.end(), sig) == 1);
    CHECK(gtkw.find("SystemC." + std::string(sig)) != std::string::npos);
  }
  // Every signal lies in its component's scope.
  for (const std::string& n : names) {
    INFO(n);
    CHECK((n.rfind("host.core", 0) == 0 || n.rfind("pcie.", 0) == 0 || n.rfind("ssd.nvme.", 0) == 0 ||
           n.rfind("ssd.fw.", 0) == 0 || n.rfind("ssd.ftl.", 0) == 0 || n.rfind("ssd.dram.", 0) == 0 ||
           n.rfind("ssd.flash.", 0) == 0));
  }
  // Rows only for the queues that exist: the admin queue and a pair per host core (2).
  std::set<std::string> queue_rows;
  std::istringstream rows(gtkw);
  for (std::string line; std::getline(rows, line);)
    if (line.find(".occupancy") != std::string::npos) queue_rows.insert(line.substr(line.find("SystemC.") + 8));
  CHECK(queue_rows == std::set<std::string>{"ssd.nvme.sq0.occupancy[63:0]", "ssd.nvme.cq0.occupancy[63:0]",
                                            "ssd.nvme.sq1.occupancy[63:0]", "ssd.nvme.cq1.occupancy[63:0]",
                                            "ssd.nvme.sq2.occupancy[63:0]", "ssd.nvme.cq2.occupancy[63:0]"});
  // The host cores, then the queues, open; the rest after them, closed (GTKWave's group flags).
  CHECK(gtkw.find("@800200\n-host cores\n") < gtkw.find("@800200\n-ssd nvme queues\n"));
  CHECK(gtkw.find("@800200\n-ssd nvme queues\n") < gtkw.find("@c00200\n-pcie\n"));
  CHECK(gtkw.find("@800200", gtkw.find("-ssd nvme queues\n@c00200")) == std::string::npos);
  // Levels drawn as analog steps, running totals as lines.
  CHECK(gtkw.find("@8024\n+{ssd/nvme/sq1/occupancy} SystemC.ssd.nvme.sq1.occupancy[63:0]\n") != std::string::npos);
  CHECK(gtkw.find("@10024\n+{ssd/nvme/doorbell_writes} SystemC.ssd.nvme.doorbell_writes[63:0]\n") !=
        std::string::npos);
  // With two drives each has its own scope: no two drives share a signal.
  REQUIRE(server("--preset quick --set platform.drives=ssd,ssd1 --trace vcd --out " + dir + "/two").status == 0);
  const std::vector<std::string> two = signals_of(slurp(dir + "/two/waves.vcd"));
  CHECK(std::set<std::string>(two.begin(), two.end()).size() == two.size());
  for (const std::string& n : names) {
    INFO(n);
    CHECK(std::count(two.begin(), two.end(), n) == 1);
    if (n.rfind("ssd.", 0) == 0) CHECK(std::count(two.begin(), two.end(), "ssd1." + n.substr(4)) == 1);
    if (n.rfind("pcie.", 0) == 0) CHECK(std::count(two.begin(), two.end(), "ssd1." + n) == 1);  // its link
  }
  CHECK(slurp(dir + "/two/waves.gtkw").find("SystemC.ssd1.nvme.sq1.occupancy[63:0]") != std::string::npos);
  CHECK(gtkw.find("[dumpfile]") != std::string::npos);
  // In the model's unit (ps), so every instant is shown where it is (the
  // first chunk's 6.094 us doorbell, not rounded to ns) and SystemC has
  // nothing to warn about: the console holds the summary alone.
  const size_t timescale = vcd.find("$timescale");
  REQUIRE(timescale != std::string::npos);
  CHECK(vcd.substr(timescale, vcd.find("$end", timescale) - timescale).find(" 1 ps") != std::string::npos);
  CHECK(vcd.find("\n#6094\n") != std::string::npos);
  CHECK(s.out.find("Warning") == std::string::npos);
  CHECK(std::count(s.out.begin(), s.out.end(), '\n') < 20);
  // Without --trace nothing of the kind is written.
  REQUIRE(server("--preset quick --out " + dir + "/plain").status == 0);
  CHECK(slurp(dir + "/plain/waves.vcd").empty());
  CHECK(slurp(dir + "/plain/requests.csv").empty());
}

TEST_CASE("the console labels its units and totals a reporting group as fio aggregates it", "[platform][cli]") {
  std::string dir = scratch("console");
  // Two 4 KiB readers side by side (one group), then a writer after a stonewall (its own group).
  std::string fio = dir + "/two.fio";
  std::ofstream(fio) << "[global]\ndirect=1\nbs=4k\niodepth=4\n[a]\nrw=randread\nnumber_ios=400\n"
                        "[b]\nrw=randread\nnumber_ios=200\n[w]\nstonewall\nrw=randwrite\nnumber_ios=50\n";
  Shell s = server("--preset quick --job " + fio + " --out " + dir + "/r");
  REQUIRE(s.status == 0);
  auto sum = nlohmann::json::parse(slurp(dir + "/r/summary.json"));
  const auto& jobs = sum["jobs"];
  REQUIRE(jobs.size() == 3);
  CHECK_THAT(s.out, Catch::Contains("randread QD4    bs 4KiB") && Catch::Contains("stages us: host_submit"));
  // fio's group aggregate: the group's I/Os over its longest job's runtime.
  double longest = std::max(jobs[0]["runtime_s"].get<double>(), jobs[1]["runtime_s"].get<double>());
  CHECK_THAT(s.out, Catch::Contains(fmt::format("group 0 total: 2 jobs       600 I/Os {:>10.0f} IOPS", 600 / longest)));
  CHECK(s.out.find("group 1 total") == std::string::npos);  // one job: its own line is the total
  // Human sizes: quick's SSD DRAM is 1.5 GiB.
  CHECK_THAT(s.out, Catch::Contains("MiB of 1.5GiB reserved"));
  CHECK(s.out.find("bytes reserved") == std::string::npos);
  // A read-only run has no write amplification to show.
  Shell r = server("--preset quick --out " + dir + "/ro");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("write amplification - (no host writes)"));
}

TEST_CASE("summary.json carries the figures the README promises", "[platform][cli]") {
  std::string dir = scratch("summary");
  REQUIRE(server("--preset quick --out " + dir).status == 0);
  auto s = nlohmann::json::parse(slurp(dir + "/summary.json"));
  for (const char* k : {"sim_time_s", "wall_time_s", "kernel_events", "jobs", "host", "drives"}) CHECK(s.contains(k));
  for (const char* k : {"device", "ftl", "flash"}) CHECK(drive(s).contains(k));
  CHECK(drive(s)["flash"]["die_utilisation"]["max"].get<double>() > 0);
  for (const char* k : {"write_amplification", "gc_invocations", "gc_pages_moved", "erase_count", "free_blocks_min",
                        "wasted_pages", "map_dram_bytes"})
    CHECK(drive(s)["ftl"].contains(k));
  const auto& j = s["jobs"][0];
  for (const char* k : {"ios", "reads", "writes", "iops", "bandwidth_MBps", "latency_us", "breakdown_us"})
    CHECK(j.contains(k));
  for (const char* k : {"mean", "p50", "p90", "p99", "p999", "max"}) CHECK(j["latency_us"]["read"].contains(k));
  // The file keeps a read's stages in its path order (flash before data_dma),
  // and a read-only job has no write breakdown; its write latency says count 0.
  const std::string text = slurp(dir + "/summary.json");
  const size_t at = text.find("\"breakdown_us\"");
  REQUIRE(at != std::string::npos);
  size_t last = at;
  for (const char* st : {"host_submit", "cache_wait", "blk_mq", "driver_queue", "accel", "sq_wait", "fetch",
                         "firmware", "flash", "data_dma", "cq_post", "interrupt", "wakeup"}) {
    INFO(st);
    const size_t here = text.find("\"" + std::string(st) + "\"", at);
    CHECK(here > last);
    last = here;
  }
  CHECK(j["breakdown_us"].size() == 1);
  CHECK(j["breakdown_us"].contains("read"));
  CHECK(j["latency_us"]["write"]["count"] == 0);
  // 2000 reads of 4 KiB = 4000 flash pages of 2 KiB, 8,192,000 bytes up the link.
  CHECK(drive(s)["device"]["flash_reads"].get<uint64_t>() == 4000);
  CHECK(drive(s)["device"]["pcie_bytes_up"].get<uint64_t>() >= 2000ull * 4096);
  Shell p = server("--list-params");
  CHECK(p.status == 0);
  CHECK(p.out.find("ssd.flash.t_read") != std::string::npos);
  CHECK(p.out.find("array read time") != std::string::npos);
}

TEST_CASE("a power loss in the middle of a run loses no acknowledged write", "[platform][cli][ftl]") {
  std::string dir = scratch("powerloss");
  // Enough random writes over 8 MiB of the quick device to keep GC busy
  // (64 MiB of 2 KiB pages, 27% spare), cut at 300 ms with I/O in flight.
  std::ofstream(dir + "/w.fio") << "[w]\ndirect=1\nrw=randrw\nrwmixread=30\nbs=4k\nsize=40m\niodepth=16\nverify=1\n"
                                   "number_ios=1000000\n";
  for (const char* ckpt : {"0ns", "20ms"}) {
    Shell s = server("--preset quick --job " + dir + "/w.fio --set ssd.power_loss_at=300ms "
                     "--set ssd.ftl.checkpoint_interval=" + std::string(ckpt) + " --overwrite --out " + dir);
    INFO(s.out);
    REQUIRE(s.status == 0);
    auto j = nlohmann::json::parse(slurp(dir + "/summary.json"));
    CHECK(j["power_loss"]["at_s"].get<double>() == Approx(0.3));
    CHECK(j["power_loss"]["blocks_checked"].get<uint64_t>() > 5000);
    CHECK(j["power_loss"]["mismatches"].get<uint64_t>() == 0);
    CHECK(drive(j)["ftl"]["gc_invocations"].get<uint64_t>() > 100);
    CHECK(s.out.find("power loss at 0.300000 s") != std::string::npos);
  }
}

TEST_CASE("periods so short they would livelock the run are refused, and the minimum runs",
          "[platform][cli][config]") {
  // 1 ns took 3 s of wall time for the quick preset's 2,000 reads, 1 ps never ended.
  for (const char* v : {"1ps", "1ns", "9999ns"})
    expect_config_error(std::string("--set ssd.ftl.checkpoint_interval=") + v,
                        {"ssd.ftl.checkpoint_interval", std::string("'") + v + "'", "at least 10us", "--set"});
  expect_config_error("--set ssd.cache.organisation=fastdrain --set ssd.cache.fastdrain.bg_interval=1ns",
                      {"ssd.cache.fastdrain.bg_interval", "'1ns'", ">= 1us"});
  std::string dir = scratch("minperiods");
  Shell s = server("--preset quick --set ssd.ftl.checkpoint_interval=10us --set ssd.cache.organisation=fastdrain "
                   "--set ssd.cache.size=256KiB --set ssd.cache.fastdrain.bg_interval=1us --out " + dir);
  INFO(s.out);
  CHECK(s.status == 0);
  auto j = nlohmann::json::parse(slurp(dir + "/summary.json"));
  CHECK(j["jobs"][0]["ios"].get<uint64_t>() == 2000);
  // Reads change no mapping, so each is committed at once: one after
  // preconditioning, then one every 10 us of the run.
  CHECK(drive(j)["ftl"]["checkpoints"].get<uint64_t>() == 1 + uint64_t(j["sim_time_s"].get<double>() / 10e-6));
}

TEST_CASE("a power loss set after the jobs end finds the drive idle", "[platform][cli][ftl]") {
  std::string dir = scratch("latepowerloss");
  Shell s = server("--preset quick --set ssd.power_loss_at=10s --out " + dir);
  INFO(s.out);
  CHECK(s.status == 0);
  CHECK(s.out.find("power loss at 10.000000 s") != std::string::npos);
  auto j = nlohmann::json::parse(slurp(dir + "/summary.json"));
  CHECK(j["sim_time_s"].get<double>() == Approx(10.0));
  CHECK(j["power_loss"]["at_s"].get<double>() == Approx(10.0));
  CHECK(j["jobs"][0]["ios"].get<uint64_t>() == 2000);
}

TEST_CASE("outputs appear complete or not at all", "[platform][cli][outputs]") {
  std::string dir = scratch("atomic");
  // A finished run whose summary cannot be written: the error names the
  // file, and no truncated file or temporary is left.
  std::filesystem::create_directories(dir + "/bad/summary.json");
  Shell s = server("--preset quick --trace vcd,requests --out " + dir + "/bad");
  INFO(s.out);
  CHECK(s.status == 1);
  CHECK(s.out.find("cannot write " + dir + "/bad/summary.json") != std::string::npos);
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/bad")) left.push_back(e.path().filename());
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"config.yaml", "summary.json"});  // the folder that was in the way
  CHECK(slurp(dir + "/bad/config.yaml").find("ssd:") != std::string::npos);
  // A normal run: every output under its name, no temporary beside them.
  s = server("--preset quick --trace vcd,requests --set ssd.cache.organisation=fastdrain --out " + dir + "/good");
  REQUIRE(s.status == 0);
  left.clear();
  for (const auto& e : std::filesystem::directory_iterator(dir + "/good")) left.push_back(e.path().filename());
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"config.yaml", "fio.json", "requests.csv", "summary.json", "waves.gtkw",
                                         "waves.vcd", "write_buffer.csv"});
  CHECK(csv_rows(dir + "/good/requests.csv").size() == 2000);
  CHECK(nlohmann::json::parse(slurp(dir + "/good/summary.json"))["total_ios"] == 2000);
}

TEST_CASE("text that is not UTF-8 is refused before the run, and echoed values are escaped and short",
          "[platform][cli][config]") {
  std::string dir = scratch("utf8");
  // A job named with invalid UTF-8 used to run to the end, then lose summary.json.
  std::ofstream(dir + "/bad.fio") << "[ok]\nrw=read\nnumber_ios=10\n[j\xff\xfe]\nrw=read\n";
  Shell s = server("--preset quick --job " + dir + "/bad.fio --out " + dir + "/out");
  CHECK(s.status == 2);
  CHECK(s.out.find(dir + "/bad.fio:4: not valid UTF-8 (byte 0xff at column 3): '[j\\xff\\xfe]'") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/out"));
  expect_config_error("--set \"ssd.nvme.model=$(printf 'FlashVP\\303')\"",
                      {"ssd.nvme.model", "not valid UTF-8 (byte 7 is 0xc3)", "'FlashVP\\xc3'"});
  // A 100 KB value is quoted in 64 bytes and its length.
  s = server("--preset quick --set ssd.flash.t_read=" + std::string(100000, '9'));
  CHECK(s.status == 2);
  CHECK(s.out.size() < 600);
  CHECK(s.out.find("...' (100000 bytes)") != std::string::npos);
  // A binary trace: its bytes are escaped, none reaches the terminal raw.
  std::string bin;
  for (int i = 0; i < 3000; ++i) bin += char((i * 37 + 11) % 256);
  std::ofstream(dir + "/bin.trace", std::ios::binary) << bin;
  std::ofstream(dir + "/r.fio") << "[r]\nread_iolog=" << dir << "/bin.trace\ndirect=1\n";
  s = server("--preset quick --job " + dir + "/r.fio");
  INFO(s.out);
  CHECK(s.status == 2);
  CHECK(s.out.find("unknown trace format: '") != std::string::npos);
  CHECK(s.out.find("\\x") != std::string::npos);
  CHECK(s.out.size() < 1000);
  for (unsigned char c : s.out) CHECK((c == '\n' || (c >= 0x20 && c < 0x7F)));  // the first record is not UTF-8 text
}

TEST_CASE("job-file errors found after parsing name the file, the line and the value", "[platform][cli][fio]") {
  std::string dir = scratch("jobwhere");
  auto job_error = [&](const std::string& text, const std::vector<std::string>& mentions) {
    std::ofstream(dir + "/j.fio") << text;
    Shell s = server("--preset quick --job " + dir + "/j.fio --out " + dir + "/out");
    INFO(text << "\n" << s.out);
    CHECK(s.status == 2);
    for (const auto& m : mentions) CHECK(s.out.find(m) != std::string::npos);
  };
  const std::string f = dir + "/j.fio:";
  job_error("[j1]\nbs=3k\n", {f + "2: job 'j1': option 'bs' = '3k': 3072 is not a multiple of the LBA size"});
  // An option set in [global] is named at its own line.
  job_error("[global]\nbs=2k\ndirect=0\n[j1]\nrw=read\n", {f + "2: job 'j1': option 'bs' = '2k'"});
  job_error("[j1]\nrw=read\ncpus_allowed=99\n", {f + "3: job 'j1': option 'cpus_allowed' = '99': cpu 99 does not exist"});
  job_error("[j1]\nrate_process=poisson\nrw=randrw\nrate=1m\n",
            {f + "2: job 'j1': option 'rate_process' = 'poisson': poisson spacing is modelled for a single-direction "
                 "rated job"});
  job_error("[j1]\nhipri\n", {f + "2: job 'j1': option 'hipri': is an option of the io_uring and pvsync2 engines, "
                                   "not of option 'ioengine' = 'libaio' (default)"});
  job_error("[j1]\nread_iolog=" + dir + "/none\ndirect=1\n",
            {f + "2: job 'j1': option 'read_iolog'", dir + "/none: cannot read block trace: No such file or directory"});
  job_error("[j1]\nread_iolog=" + dir + "\ndirect=1\n", {f + "2: job 'j1': option 'read_iolog'", dir + ": is a folder"});
  job_error("[j1]\nbs=1T\n", {f + "2: job 'j1': option 'bs' = '1T': 1099511627776 bytes is larger than the device's"});
  Shell s = server("--preset quick --job " + dir);
  CHECK(s.status == 2);
  CHECK(s.out.find(dir + ": is a folder, not a fio job file") != std::string::npos);
  // A job file without a job is named, not the preset's workload.fio it replaces.
  std::ofstream(dir + "/g.fio") << "[global]\nbs=4k\n";
  s = server("--preset quick --job " + dir + "/g.fio");
  CHECK(s.status == 2);
  CHECK(s.out.find("--job " + dir + "/g.fio: no job defined (add a [name] section after [global])") != std::string::npos);
  // fio rounds a size that is not a whole number of blocks down, and says so.
  std::ofstream(dir + "/j.fio") << "[j1]\nrw=write\nsize=9000\nverify=1\ndirect=1\n";
  s = server("--preset quick --job " + dir + "/j.fio --out " + dir + "/out");
  INFO(s.out);
  CHECK(s.status == 0);
  CHECK(s.out.find("note: " + f + "3: job 'j1': option 'size' = '9000': not a multiple of bs = 4096: the job uses "
                   "8192 bytes") != std::string::npos);
  CHECK(nlohmann::json::parse(slurp(dir + "/out/summary.json"))["jobs"][0]["writes"] == 2);
}

TEST_CASE("a check across keys names every key with its value and origin, the one the user set first",
          "[platform][cli][config]") {
  expect_config_error("--set ssd.flash.block_size=1TiB",
                      {"--set: ssd.flash.block_size = '1TiB', ssd.flash.channels = '4' (preset quick:6)",
                       "ssd.flash.page_size = '2KiB' (default)", "fewer than 2^32"});
  expect_config_error("--set ssd.ftl.map_cache=1TiB",
                      {"--set: ssd.ftl.map_cache = '1TiB', ssd.dram.size = '1.5GiB' (default): no room in the SSD "
                       "DRAM for ftl mapping table"});
  expect_config_error("--set ssd.nvme.max_outstanding=65536",
                      {"--set: ssd.nvme.max_outstanding = '65536', ssd.nvme.mdts = '5' (default), ssd.dram.size = "
                       "'1.5GiB' (default): no room in the SSD DRAM for nvme data staging"});
  std::string dir = scratch("crosskeys");
  std::ofstream(dir + "/j.fio") << "[a]\nnumjobs=100000\nbs=64k\niodepth=4\ndirect=1\n";
  expect_config_error("--job " + dir + "/j.fio",
                      {"host.dram.size = '2GiB' (default)", "needs about 24.4 GiB",
                       "numjobs = 100000 at " + dir + "/j.fio:2", "iodepth = 4 at " + dir + "/j.fio:4",
                       "bs = 65536 at " + dir + "/j.fio:3"});
}

TEST_CASE("every rule between keys names each key with its value and origin, what the user set first",
          "[platform][cli][config]") {
  // The key the user set leads, whichever key the rule is about.
  expect_config_error("--set ssd.flash.page_size=4KiB --set ssd.flash.block_size=6KiB",
                      {"--set: ssd.flash.block_size = '6KiB', ssd.flash.page_size = '4KiB' (--set): a block must be "
                       "a whole number of pages"});
  expect_config_error("--set host.cores=3 --set host.core.poll_core=5",
                      {"--set: host.core.poll_core = '5', host.cores = '3' (--set): the polling core does not exist"});
  expect_config_error("--set host.core.poll_core=5",
                      {"--set: host.core.poll_core = '5', host.cores = '2' (preset quick:3)"});
  expect_config_error("--set ssd.nvme.max_queue_entries=4096 --set host.nvme.queue_depth=8192",
                      {"--set: host.nvme.queue_depth = '8192', ssd.nvme.max_queue_entries = '4096' (--set)"});
  expect_config_error("--set ssd.nvme.max_queue_entries=1024 --set host.nvme.admin_queue_depth=2048",
                      {"--set: host.nvme.admin_queue_depth = '2048', ssd.nvme.max_queue_entries = '1024' (--set)"});
  expect_config_error("--set ssd.nvme.max_queue_entries=16",
                      {"--set: ssd.nvme.max_queue_entries = '16', host.nvme.queue_depth = '1024' (default)"});
  expect_config_error("--set host.cores=100",
                      {"--set: host.cores = '100', ssd.nvme.max_io_queues = '64' (default): one I/O queue pair per "
                       "core needs ssd.nvme.max_io_queues >= host.cores"});
  expect_config_error("--set ssd.ftl.shard_hash=xor --set ssd.ftl.shards=3",
                      {"--set: ssd.ftl.shards = '3', ssd.ftl.shard_hash = 'xor' (--set)", "power of two"});
  expect_config_error("--set ssd.ftl.shards=3 --set ssd.ftl.shard_partition=channel",
                      {"ssd.ftl.shards = '3'", "ssd.flash.channels = '4' (preset quick:6)",
                       "ssd.ftl.shard_partition = 'channel' (--set)"});
  expect_config_error("--set ssd.ftl.page_alloc=lsb_group",
                      {"--set: ssd.ftl.page_alloc = 'lsb_group', ssd.flash.bits_per_cell = '1' (cell znand from ssd.flash.cell)"});
  // A value the cell preset filled in comes after the one the user set.
  expect_config_error("--set ssd.flash.bits_per_cell=2",
                      {"--set: ssd.flash.bits_per_cell = '2', ssd.flash.t_read_msb = '0us' (cell znand from ssd.flash.cell): a cell with "
                       "2 bits has msb pages"});
  expect_config_error("--set ssd.nvme.lba_size=1KiB",
                      {"ssd.nvme.lba_size = '1KiB'", "ssd.flash.page_size = '2KiB' (default)"});
  expect_config_error("--set ssd.cache.organisation=fastdrain --set ssd.cache.fastdrain.low_watermark=0.95",
                      {"--set: ssd.cache.fastdrain.low_watermark = '0.95', ssd.cache.fastdrain.high_watermark",
                       "(default): the low watermark must be below the high one"});
  expect_config_error("--set host.pagecache.readahead_initial=1MiB",
                      {"--set: host.pagecache.readahead_initial = '1MiB', host.pagecache.readahead_max", "(default)"});
  expect_config_error("--set host.nvme.irq_affinity=7",
                      {"--set: host.nvme.irq_affinity = '7', host.cores = '2' (preset quick:3): cpu 7 does not exist"});
  expect_config_error("--set ssd.flash.blocks_per_plane=2",
                      {"ssd.flash.blocks_per_plane = '2'", "ssd.ftl.overprovision = ", "ssd.ftl.gc.fg_threshold = ",
                       "garbage collection"});
  // A job's option checked against a key names the key's value and origin too.
  std::string dir = scratch("jobkeys");
  std::ofstream(dir + "/j.fio") << "[j1]\nrw=read\ncpus_allowed=5\n";
  expect_config_error("--job " + dir + "/j.fio",
                      {dir + "/j.fio:3: job 'j1': option 'cpus_allowed' = '5': cpu 5 does not exist (host.cores = "
                             "'2' (preset quick:3))"});
  std::ofstream(dir + "/j.fio") << "[j1]\nrw=read\nbs=4k\n";
  expect_config_error("--set ssd.nvme.lba_size=8KiB --job " + dir + "/j.fio",
                      {dir + "/j.fio:3: job 'j1': option 'bs' = '4k': 4096 is not a multiple of the LBA size "
                             "(ssd.nvme.lba_size = '8KiB' (--set))"});
}

TEST_CASE("values from the command line are quoted shortened and escaped in every message", "[platform][cli][config]") {
  auto only_text = [](const Shell& s) {
    INFO(s.out);
    CHECK(s.status == 2);
    CHECK(s.out.size() < 1000);
    for (unsigned char c : s.out) CHECK((c == '\n' || (c >= 0x20 && c < 0x7F)));
  };
  const std::string esc = "\"$(printf 'x\\033[31m')\"";  // a terminal escape sequence
  Shell s = server("--preset " + esc);
  only_text(s);
  CHECK(s.out.find("--preset 'x\\x1b[31m': no such preset") != std::string::npos);
  s = server("--preset quick --trace " + esc);
  only_text(s);
  CHECK(s.out.find("--trace 'x\\x1b[31m': unknown trace") != std::string::npos);
  s = server("--preset quick --set " + std::string(5000, 'k'));
  only_text(s);
  CHECK(s.out.find("...' (5000 bytes): expected key=value") != std::string::npos);
  s = server("--preset quick --set host.nvme.irq_affinity=" + std::string(5000, '1'));
  only_text(s);
  s = server("--preset quick --set ssd.fw.pin=" + std::string(5000, 'p'));
  only_text(s);
  std::string dir = scratch("quoteall");
  std::ofstream(dir + "/j.fio") << "[j\x1b[31m]\nbs=3k\n";
  s = server("--preset quick --job " + dir + "/j.fio");
  only_text(s);
  CHECK(s.out.find(dir + "/j.fio:2: job 'j\\x1b[31m': option 'bs' = '3k'") != std::string::npos);
  std::ofstream(dir + "/j.fio") << "[j]\n" << std::string(5000, 'o') << "\n";
  s = server("--preset quick --job " + dir + "/j.fio");
  only_text(s);
  CHECK(s.out.find(dir + "/j.fio:2: unknown option 'ooo") != std::string::npos);
  // A trace with a long token on a line.
  std::ofstream(dir + "/t.log") << "fio version 2 iolog\n/dev/nvme0n1 " << std::string(5000, 'r') << " 0 4096\n";
  std::ofstream(dir + "/r.fio") << "[r]\nread_iolog=" << dir << "/t.log\ndirect=1\n";
  s = server("--preset quick --job " + dir + "/r.fio");
  only_text(s);
  CHECK(s.out.find(dir + "/t.log:2: unknown action 'rrr") != std::string::npos);
  CHECK(s.out.find("...' (5000 bytes)") != std::string::npos);
  std::ofstream(dir + "/c.yaml") << "ssd:\n  " << std::string(5000, 'y') << ":\n";
  s = server("--config " + dir + "/c.yaml");
  only_text(s);
}

TEST_CASE("a configuration path that is a folder or missing is refused naming the path and the reason", "[platform][cli][config]") {
  std::string dir = scratch("configdir");
  Shell s = server("--config " + dir);
  INFO(s.out);
  CHECK(s.status == 2);
  CHECK(s.out.find(dir + ": is a folder, not a configuration file") != std::string::npos);
  s = server("--config " + dir + "/none.yaml");
  CHECK(s.status == 2);
  CHECK(s.out.find(dir + "/none.yaml: cannot read configuration file: No such file or directory") != std::string::npos);
  // A configuration file's text must be UTF-8 too, named at its line.
  std::ofstream(dir + "/c.yaml") << "ssd:\n  nvme:\n    model: \"Fl\xff\"\n";
  s = server("--config " + dir + "/c.yaml");
  CHECK(s.status == 2);
  CHECK(s.out.find(dir + "/c.yaml:3: ssd.nvme.model = 'Fl\\xff': not valid UTF-8 (byte 2 is 0xff)") != std::string::npos);
}

TEST_CASE("the statistics list shows the configured platform's statistics, whole with --json and --markdown",
          "[platform][cli][stats]") {
  Shell s = server("--preset quick --list-stats --json");
  REQUIRE(s.status == 0);
  auto j = nlohmann::json::parse(s.out);
  auto find = [&](const std::string& name) {
    for (const auto& e : j)
      if (e["name"] == name) return e;
    return nlohmann::json();
  };
  CHECK(find("ssd.nvme.io_commands")["unit"] == "commands");
  CHECK(find("ssd.nvme.io_commands")["kind"] == "counter");
  CHECK(find("host.context_switches")["kind"] == "total");
  // The quick preset has 2 host cores and 4 channels: core1 and ch3 exist, core2 and ch4 do not.
  CHECK_FALSE(find("host.core1.busy_ps").is_null());
  CHECK(find("host.core2.busy_ps").is_null());
  CHECK_FALSE(find("ssd.flash.ch3.bus_busy").is_null());
  CHECK(find("ssd.flash.ch4.bus_busy").is_null());
  // A cache organisation adds its own.
  CHECK(find("ssd.cache.fastdrain.stalled_writes").is_null());
  Shell f = server("--preset quick --set ssd.cache.organisation=fastdrain --list-stats");
  CHECK(f.status == 0);
  CHECK(f.out.find("ssd.cache.fastdrain.stalled_writes") != std::string::npos);
  Shell m = server("--preset quick --list-stats --markdown");
  CHECK(m.out.find("| `host.core<n>.busy_ps` | counter | ps | time the core was busy |") != std::string::npos);
  Shell p = server("--list-params --json");
  REQUIRE(p.status == 0);
  std::map<std::string, nlohmann::json> params;
  for (const auto& e : nlohmann::json::parse(p.out)) params[e["key"].get<std::string>()] = e;
  REQUIRE(params.count("ssd.flash.t_read"));
  CHECK(params["ssd.flash.t_read"]["type"] == "time");
  CHECK(!params["ssd.flash.t_read"]["description"].get<std::string>().empty());
  // Type, unit, default, bounds and choices as fields: the page cache's
  // 256MiB default in bytes, its [1MiB, 1TiB] range, the size suffixes.
  const auto& pc = params.at("host.pagecache.size");
  CHECK(pc["unit"] == "B");
  CHECK(pc["default_value"] == 256.0 * 1024 * 1024);
  CHECK(pc["min"] == 1048576.0);
  CHECK(pc["max"] == 1099511627776.0);
  CHECK(pc["units"]["GiB"] == 1073741824);
  CHECK(pc["units"]["KB"] == 1000);
  CHECK(params.at("accel.clock")["units"]["MHz"] == 1000000);
  CHECK(params.at("accel.clock")["default_value"] == 250e6);
  CHECK(params.at("ssd.flash.t_read")["units"]["us"] == 1000000);
  CHECK(params.at("accel.cam_cycles")["default_value"] == 2.0);
  CHECK(params.at("accel.cam_cycles")["max"] == 1048576.0);
  CHECK(!params.at("accel.cam_cycles").contains("unit"));
  CHECK(params.at("accel.enabled")["choices"] == nlohmann::json::array({"off", "on"}));
  Shell bad = server("--json");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("--json and --markdown go with one of --list-params, --list-stats") != std::string::npos);
}

TEST_CASE("summary.json says which layout and which source tree produced it, and each counter's unit",
          "[platform][cli][outputs]") {
  const std::string dir = scratch("summary_header");
  Shell s = server("--preset quick --out " + dir);
  REQUIRE(s.status == 0);
  auto j = nlohmann::json::parse(slurp(dir + "/summary.json"));
  CHECK(j["schema_version"] == 3);
  CHECK_FALSE(j["git_revision"].get<std::string>().empty());
  CHECK(j["counter_units"]["ssd.flash.reads"] == "pages");
  CHECK(j["counter_units"]["pcie.bytes_up"] == "bytes");
  // Every counter has its unit.
  for (const auto& [k, v] : j["counters"].items()) CHECK(j["counter_units"].contains(k));
  CHECK(j["counters"].size() == j["counter_units"].size());
}

// Every section --list-stats --json names is in summary.json at the place it
// names, and summary.json holds no section it does not name: a platform with
// every part (two drives, one below a switch, RAID-5 over them, the
// accelerator) and every optional section (page cache, verify, write buffer,
// image).
TEST_CASE("summary.json holds each part's sections where --list-stats --json places them", "[platform][cli][outputs]") {
  const std::string dir = scratch("summary_parts");
  std::ofstream(dir + "/job.fio") << "[buf]\nfilename=/dev/nvme0n1\nrw=write\nbs=4k\nsize=64k\ndirect=0\n"
                                     "[md]\ndirect=1\nfilename=/dev/md0\nrw=randrw\nbs=4k\nsize=64k\nverify=1\n";
  const std::string args = "--preset quick --set platform.drives=ssd,ssd1 --set platform.switched=ssd1 "
                           "--set ssd1.pcie.switches=1 --set host.md.level=raid5 --set accel.enabled=on "
                           "--set ssd.cache.organisation=fastdrain --set ssd.image=" + dir + "/img0 --set ssd1.image=" +
                           dir + "/img1 --job " + dir + "/job.fio";
  Shell list = server(args + " --list-stats --json");
  REQUIRE(list.status == 0);
  REQUIRE(server(args + " --out " + dir + "/out").status == 0);
  const auto s = nlohmann::json::parse(slurp(dir + "/out/summary.json"));
  // "drives[1].ftl" -> s["drives"][1]["ftl"]
  auto at = [&](const std::string& path) -> const nlohmann::json* {
    const nlohmann::json* j = &s;
    std::string rest = path;
    while (!rest.empty()) {
      size_t cut = rest.find_first_of(".[");
      std::string key = rest.substr(0, cut);
      if (!key.empty()) {
        if (!j->is_object() || !j->contains(key)) return nullptr;
        j = &(*j)[key];
      }
      if (cut == std::string::npos) break;
      if (rest[cut] == '[') {
        size_t close = rest.find(']', cut);
        size_t k = std::stoul(rest.substr(cut + 1, close - cut - 1));
        if (!j->is_array() || k >= j->size()) return nullptr;
        j = &(*j)[k];
        rest = rest.substr(close + 1);
        if (!rest.empty() && rest[0] == '.') rest = rest.substr(1);
      } else {
        rest = rest.substr(cut + 1);
      }
    }
    return j;
  };
  std::set<std::string> listed;
  for (const auto& e : nlohmann::json::parse(list.out))
    if (e["kind"] == "section") {
      const std::string path = e["name"];
      INFO(path);
      CHECK(at(path) != nullptr);
      listed.insert(path);
    }
  CHECK(listed.size() == 27);  // 9 per drive, 5 of the host, 2 of the accelerator, the switch's, jobs
  // What summary.json holds besides the run's fields, counters and the parts' names.
  std::set<std::string> found;
  for (const auto& [k, v] : s["host"].items()) found.insert("host." + k);
  for (const char* list_key : {"drives", "accelerators", "switches"})
    for (size_t i = 0; i < s[list_key].size(); ++i)
      for (const auto& [k, v] : s[list_key][i].items())
        if (k != "name" && k != "path") found.insert(fmt::format("{}[{}].{}", list_key, i, k));
  found.insert("jobs");
  CHECK(found == listed);
  CHECK(s["drives"][1]["name"] == "ssd1");
  CHECK(s["drives"][1]["path"] == "/dev/nvme1n1");
  CHECK(s["drives"][1]["image"]["saved_pages"].get<uint64_t>() > 0);  // every drive's image is saved
  CHECK(s["host"]["md"]["level"] == "raid5");
  CHECK(s["host"]["verify"]["blocks_checked"].get<uint64_t>() > 0);
  CHECK(s["switches"][0]["switch"]["ports"] == nlohmann::json{"ssd1.pcie"});
}

TEST_CASE("the version option names the build, the summary layout and SystemC, as summary.json does", "[platform][cli]") {
  const std::string dir = scratch("version");
  Shell v = server("--version");
  REQUIRE(v.status == 0);
  REQUIRE(server("--preset quick --out " + dir).status == 0);
  auto j = nlohmann::json::parse(slurp(dir + "/summary.json"));
  CHECK(v.out == fmt::format("vp-server (FlashVP) {}\nsummary.json schema_version 3\nSystemC {}\n",
                             j["git_revision"].get<std::string>(), sc_core::sc_release()));
}

TEST_CASE("a run never silently overwrites an earlier one: a new numbered folder by default, or a refusal naming --out",
          "[platform][cli][outputs]") {
  const std::string dir = scratch("out_folders");
  // Without --out: vp-out/001, then vp-out/002, and vp-out/latest follows.
  for (int i = 0; i < 2; ++i) REQUIRE(shell("cd " + dir + " && " + kBin + " --preset quick").status == 0);
  CHECK(std::filesystem::is_regular_file(dir + "/vp-out/001/summary.json"));
  CHECK(std::filesystem::is_regular_file(dir + "/vp-out/002/summary.json"));
  CHECK(std::filesystem::read_symlink(dir + "/vp-out/latest") == "002");
  // With --out: a folder holding a run is refused, before simulating.
  REQUIRE(server("--preset quick --out " + dir + "/r").status == 0);
  std::string first = slurp(dir + "/r/summary.json");
  Shell again = server("--preset quick --seed 9 --out " + dir + "/r");
  CHECK(again.status == 2);
  CHECK(again.out.find("--out '" + dir + "/r' holds an earlier run (summary.json): give another folder, or add "
                       "--overwrite to replace it") != std::string::npos);
  CHECK(slurp(dir + "/r/summary.json") == first);
  // --overwrite replaces it; an empty existing folder needs no --overwrite.
  REQUIRE(server("--preset quick --seed 9 --overwrite --out " + dir + "/r").status == 0);
  CHECK(nlohmann::json::parse(slurp(dir + "/r/summary.json"))["seed"] == 9);
  std::filesystem::create_directories(dir + "/empty");
  CHECK(server("--preset quick --out " + dir + "/empty").status == 0);
}

TEST_CASE("vp-bench refuses a bad command line with exit 2 and answers --help", "[platform][cli]") {
  const std::string bench = VP_BENCH_BIN;
  Shell help = shell(bench + " --help");
  CHECK(help.status == 0);
  CHECK(help.out.find("usage: vp-bench [IOS]") != std::string::npos);
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"abc", "IOS must be a whole number of I/Os above 0, not 'abc'"},
           {"0", "not '0'"},
           {"12x", "not '12x'"},
           {"--quick", "unknown option '--quick'"},
           {"--set", "--set needs key=value"},
           {"--set foo", "--set needs key=value, not 'foo'"},
           {"5 6", "one I/O count expected, got 2 words"}}) {
    Shell s = shell(bench + " " + args);
    INFO("args: " << args << "\noutput: " << s.out);
    CHECK(s.status == 2);
    CHECK(s.out.find(says) != std::string::npos);
  }
}

TEST_CASE("a job option set from the command line (workload.<job>.<option>) changes that job or every job, and errors name it",
          "[platform][cli][fio]") {
  std::string fio = scratch("job-sets") + "/two.fio";
  {
    std::ofstream f(fio);
    f << "[global]\nbs=4k\nnumber_ios=64\n[a]\nrw=randread\niodepth=2\n[b.1]\nrw=randwrite\niodepth=4\n";
  }
  auto jobs = [&](const std::string& sets) {
    Shell s = server("--job " + fio + " " + sets + " --print-config");
    REQUIRE(s.status == 0);
    return s.out;
  };
  // The job named, and only it: iodepth 2 -> 16 for a, b.1 keeps 4; a dotted job name.
  std::string one = jobs("--set workload.a.iodepth=16 --set workload.b.1.bs=8k");
  CHECK_THAT(one, Catch::Contains("[a]\n    rw=randread\n    rwmixread=50\n    bs=4096\n    iodepth=16"));
  CHECK_THAT(one, Catch::Contains("[b.1]\n    rw=randwrite\n    rwmixread=50\n    bs=8192\n    iodepth=4"));
  std::string all = jobs("--set 'workload.*.iodepth=7'");
  CHECK_THAT(all, Catch::Contains("bs=4096\n    iodepth=7\n    size=100%\n    offset=0\n    offset_increment=0\n"
                                  "    number_ios=64"));
  CHECK(all.find("iodepth=2") == std::string::npos);
  CHECK(all.find("iodepth=4") == std::string::npos);
  // On a preset's own workload too; the run does what the option says.
  std::string dir = scratch("job-sets-run");
  Shell r = server("--preset quick --set workload.randread.number_ios=300 --out " + dir + " --overwrite");
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(slurp(dir + "/summary.json"))["jobs"][0]["ios"] == 300);
  // Errors name the --set, the job and the value.
  expect_config_error("--job " + fio + " --set workload.c.iodepth=1", {"--set workload.c.iodepth", "'c'", "'a', 'b.1'"});
  expect_config_error("--job " + fio + " --set workload.a.iodepth=x", {"--set workload.a.iodepth", "'x'", "whole number"});
  expect_config_error("--job " + fio + " --set workload.a.depth=1", {"--set workload.a.depth", "unknown option"});
  expect_config_error("--job " + fio + " --set workload.a=1", {"--set workload.a", "workload.<job>.<option>"});
  // --print-config elaborates: what a run would refuse at elaboration it refuses too.
  Shell full = server("--preset zssd --set ssd.cache.organisation=uni --set ssd.cache.size=16MiB --print-config");
  CHECK(full.status == 2);
  CHECK_THAT(full.out, Catch::Contains("ssd.cache.size") && Catch::Contains("no room in the SSD DRAM"));
  // Checks made after parsing name it as where the value came from.
  expect_config_error("--job " + fio + " --set workload.a.cpus_allowed=9", {"--set workload.a.cpus_allowed", "cpu 9"});
}

TEST_CASE("a preset or configuration file builds on another with base:, its job options apply to its own jobs, "
          "and the presets are listed by study",
          "[platform][cli][config]") {
  const std::string dir = scratch("preset-base");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  // A file on top of a study preset: the chain's values, the file's last.
  std::string top = write("top.yaml", "base: rwiso/rwiso-1to1\nhost:\n  blkmq:\n    read_queue_ratio: 0.625\n"
                                      "workload:\n  writer:\n    iodepth: 8\n");
  Shell s = server("--config " + top + " --print-config");
  REQUIRE(s.status == 0);
  CHECK_THAT(s.out, Catch::Contains("read_queue_ratio: 0.625"));   // the file over rwiso-1to1's 0.5
  CHECK_THAT(s.out, Catch::Contains("rw_isolation: \"on\""));      // from rwiso-1to1
  CHECK_THAT(s.out, Catch::Contains("in_order_fetch: true"));      // from rwiso/base
  // rwiso-1to1's numjobs=4 for both jobs (the base has 6 and 2), the file's iodepth 8 for the writer only.
  CHECK_THAT(s.out, Catch::Contains("[reader]\n    rw=randread") && Catch::Contains("numjobs=4"));
  CHECK(s.out.find("numjobs=6") == std::string::npos);
  CHECK_THAT(s.out, Catch::Contains("iodepth=8"));
  CHECK_THAT(s.out, Catch::Contains("iodepth=32"));
  // --job replaces the workload, and the preset's job options with it.
  std::string fio = write("one.fio", "[solo]\nrw=randread\nnumber_ios=10\n");
  Shell j = server("--preset rwiso/rwiso-1to1 --job " + fio + " --print-config");
  REQUIRE(j.status == 0);
  CHECK(j.out.find("numjobs=4") == std::string::npos);
  // Errors: an unknown base, a cycle, a job option for a job the workload lacks, each naming file and line.
  std::string bad = write("bad.yaml", "host:\n  cores: 2\nbase: nosuch\n");
  Shell b = server("--config " + bad + " --print-config");
  CHECK(b.status == 2);
  CHECK_THAT(b.out, Catch::Contains("bad.yaml:3") && Catch::Contains("base: --preset 'nosuch': no such preset"));
  std::string loop = write("loop.yaml", "base: quick\nworkload:\n  nojob:\n    iodepth: 2\n");
  Shell l = server("--config " + loop + " --print-config");
  CHECK(l.status == 2);
  CHECK_THAT(l.out, Catch::Contains("loop.yaml:4: workload.nojob.iodepth") && Catch::Contains("no job 'nojob'"));
  // base: a list, applied in order. quick and zssd leave five keys at
  // different values (their files: host.cores 2 / 4, the flash geometry,
  // the workload): each is a conflict named with both values and where they
  // were set, until the file settles it.
  std::string two = write("two.yaml", "base: [quick, zssd]\n");
  Shell t = server("--config " + two + " --print-config");
  CHECK(t.status == 2);
  CHECK_THAT(t.out, Catch::Contains("two.yaml:1: bases 'quick' and 'zssd' conflict on 'host.cores': '2' (preset quick:") &&
                        Catch::Contains("against '4' (preset zssd:") && Catch::Contains("set it in this file to choose"));
  std::string settled = write("settled.yaml",
                              "base: [quick, zssd]\nhost:\n  cores: 3\nssd:\n  flash:\n    channels: 4\n"
                              "    dies_per_package: 2\n    planes_per_die: 2\nworkload:\n  fio: |\n    [j]\n"
                              "    rw=randread\n    number_ios=10\n");
  Shell ok = server("--config " + settled + " --print-config");
  INFO(ok.out.substr(0, 800));
  CHECK(ok.status == 0);
  CHECK_THAT(ok.out, Catch::Contains("cores: 3") && Catch::Contains("channels: 4"));
  // The listing: the top-level presets, then each study headed by its base's first comment line.
  Shell list = server("--list-presets");
  REQUIRE(list.status == 0);
  CHECK_THAT(list.out, Catch::Contains("zssd (default)"));
  for (const std::string study : {"flashshare", "deepflash", "fastdrain", "rwiso"})
    CHECK_THAT(list.out, Catch::Contains("\n" + study + "/: "));
  for (const std::string p : {"flashshare/vanilla", "flashshare/cacheopt", "flashshare/kernelopt", "flashshare/selectisr",
                              "flashshare/xler", "flashshare/dedcore", "deepflash/layered", "deepflash/manylayered",
                              "deepflash/basedeepflash", "deepflash/parts/firmware", "deepflash/slc", "deepflash/tlc",
                              "flashshare/parts/xler", "fastdrain/parts/fd",
                              "fastdrain/vanilla", "fastdrain/fd-buf", "fastdrain/fd-ftl", "fastdrain/fd",
                              "rwiso/base", "rwiso/fqueue", "rwiso/rwiso-3to1", "rwiso/rwiso-1to1",
                              "rwiso/rwiso-1to3", "rwiso/throttled", "rwiso/sync"})
    CHECK_THAT(list.out, Catch::Contains("  " + p + " "));
  // Every preset elaborates.
  for (const auto& line : {"flashshare/xler", "flashshare/dedcore", "deepflash/manylayered", "fastdrain/fd",
                           "rwiso/sync"})
    CHECK(server(std::string("--preset ") + line + " --print-config").status == 0);
}

TEST_CASE("every built-in preset is a configuration a run accepts", "[platform][cli][config]") {
  // --print-config elaborates the platform, so it refuses what a run
  // would (deepflash/tlc was refused: 64-page blocks of 3-page word lines).
  Shell list = server("--list-presets");
  REQUIRE(list.status == 0);
  std::istringstream in(list.out);
  unsigned checked = 0;
  std::map<std::string, std::string> config_of;  // effective configuration -> the first preset giving it
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string name;
    // A blank line, a study folder's heading, or a description's wrapped line (indented past the names).
    if (!(words >> name) || name.back() == ':' || line.find_first_not_of(' ') > 2) continue;
    // A fragment runs stacked on a drive: its study's platform (DeepFlash's
    // firmware on the default drive, as its base already has it).
    const size_t parts = name.find("/parts/");
    const std::string study = parts == std::string::npos ? "" : name.substr(0, parts);
    // The composed study's fragments stack on its Vanilla (its base has no cache or firmware of its own).
    const std::string under = study.empty()          ? ""
                              : study == "deepflash" ? "zssd,"
                              : study == "composed"  ? "composed/vanilla,"
                                                     : study + "/base,";
    Shell s = server("--preset " + under + name + " --print-config");
    INFO("preset " << under << name << ": " << s.out.substr(0, 600));
    CHECK(s.status == 0);
    // No two presets are one configuration under two names (a fragment on
    // its study's base is one of the study's presets).
    if (study.empty()) {
      auto [it, fresh] = config_of.emplace(s.out, name);
      INFO("the same configuration as " << it->second);
      CHECK(fresh);
    }
    ++checked;
  }
  CHECK(checked >= 30);
}

TEST_CASE("a study's technique is a fragment that stacks on any drive, and one that cannot work stops naming its keys",
          "[platform][cli][config]") {
  const std::string dir = scratch("fragments");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  // A fragment alone has no drive or workload: it says how to stack it.
  Shell alone = server("--preset fastdrain/parts/fd --print-config");
  CHECK(alone.status == 2);
  CHECK_THAT(alone.out, Catch::Contains("--preset 'fastdrain/parts/fd': a fragment") &&
                            Catch::Contains("--preset zssd,fastdrain/parts/fd"));
  // FlashShare's techniques on FastDrain's platform, DeepFlash's firmware
  // on the IMCOM'17 drive, given as --preset a,b.
  Shell x = server("--preset fastdrain/base,flashshare/parts/xler --print-config");
  REQUIRE(x.status == 0);
  CHECK_THAT(x.out, Catch::Contains("completion: \"xler\"") && Catch::Contains("organisation: \"split\"") &&
                        Catch::Contains("cell: \"tlc-fastdrain\""));
  Shell y = server("--preset rwiso/base,deepflash/parts/firmware --print-config");
  REQUIRE(y.status == 0);
  CHECK_THAT(y.out, Catch::Contains("organisation: \"deepflash\"") && Catch::Contains("channels: 18"));
  // A technique that sets what the drive set differently is a conflict to settle by name.
  Shell z = server("--preset deepflash,flashshare/parts/xler --print-config");
  CHECK(z.status == 2);
  CHECK_THAT(z.out, Catch::Contains("bases 'deepflash' and 'flashshare/parts/xler' conflict on "
                                    "'ssd.cache.organisation': 'burst' (preset deepflash/base:"));
  // DeepFlash's firmware on the default drive: its controller's cores, clock and costs come with it.
  std::string df = write("df-on-zssd.yaml", "base: [zssd, deepflash/parts/firmware]\n");
  Shell d = server("--config " + df + " --print-config");
  REQUIRE(d.status == 0);
  CHECK_THAT(d.out, Catch::Contains("organisation: \"deepflash\"") && Catch::Contains("cores: 12") &&
                        Catch::Contains("message: 300") && Catch::Contains("clock: \"1GHz\""));
  // Two techniques that set one key differently conflict by name.
  Shell c = server("--preset zssd,fastdrain/parts/fd,flashshare/parts/xler --print-config");
  CHECK(c.status == 2);
  CHECK_THAT(c.out, Catch::Contains("--preset 'zssd,fastdrain/parts/fd,flashshare/parts/xler': bases "
                                    "'fastdrain/parts/fd' and 'flashshare/parts/xler' conflict on 'ssd.cache.organisation'"));
  // The case: DeepFlash's organisation alone (no threads' costs) is
  // refused, naming the organisation and the costs at 0.
  std::string bare = write("bare.yaml", "base: flashshare/xler\nssd:\n  cache:\n    organisation: fastdrain\n"
                                        "  fw:\n    organisation: deepflash\n");
  Shell b = server("--config " + bare + " --print-config");
  CHECK(b.status == 2);
  CHECK_THAT(b.out, Catch::Contains("ssd.fw.organisation = 'deepflash'") &&
                        Catch::Contains("ssd.fw.cost.message = '0' (default)") &&
                        Catch::Contains("Stack deepflash/parts/firmware"));
  // With the fragment stacked on it, it runs.
  std::string fixed = write("fixed.yaml", "base: [flashshare/xler, deepflash/parts/firmware]\nssd:\n  cache:\n"
                                          "    organisation: fastdrain\n");
  Shell f = server("--config " + fixed + " --print-config");
  INFO(f.out.substr(0, 600));
  CHECK(f.status == 0);
}
