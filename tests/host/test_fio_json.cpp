// SPDX-License-Identifier: BSD-3-Clause
// fio.json (fio's --output-format=json) and fio's logs (write_lat_log,
// write_bw_log, write_iops_log), checked against numbers worked out by hand
// and against summary.json's own figures of the same run. One simulation
// per test case.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/TestSupport.hpp"
#include "tests/host/FioParseMessage.hpp"
#include "vp/host/workload/FioJob.hpp"

using namespace vp::test;
using vp::host::FioError;
using vp::host::parse_fio;

namespace {

// A run whose outputs go to `dir` (summary.json is returned, fio.json read by fio_json).
nlohmann::json run_into(const std::string& dir, const std::string& preset, const Sets& sets, const std::string& fio,
                        vp::platform::Platform platform = vp::platform::Platform::Server) {
  auto o = options(preset, sets, fio);
  o.out_dir = dir;
  o.platform = platform;
  return run_options(o);
}

nlohmann::json fio_json(const std::string& dir) { return nlohmann::json::parse(slurp(dir + "/fio.json")); }

// A log's lines, each split at ", ".
std::vector<std::vector<uint64_t>> log_lines(const std::string& path) {
  REQUIRE(std::filesystem::exists(path));
  std::vector<std::vector<uint64_t>> out;
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) {
    std::vector<uint64_t> v;
    std::istringstream in(line);
    for (std::string field; std::getline(in, field, ',');) v.push_back(std::stoull(field, nullptr, 0));
    out.push_back(v);
  }
  return out;
}

const char* const kFioPercentiles[] = {"1.000000",  "5.000000",  "10.000000", "20.000000", "30.000000", "40.000000",
                                       "50.000000", "60.000000", "70.000000", "80.000000", "90.000000", "95.000000",
                                       "99.000000", "99.500000", "99.900000", "99.950000", "99.990000"};

}  // namespace

TEST_CASE("fio.json: a rated job's bytes, IOPS, bandwidth and latencies, by hand and as summary.json has them",
          "[host][fio][fio-json]") {
  auto dir = scratch("fio-json-rated");
  // One 4 KiB read every 100 us for 20 ms: 200 reads, 10,000 IOPS, 819,200
  // bytes, 40,000 KiB/s; at depth 1 (each done in well under 100 us).
  auto s = run_into(dir, "quick", {},
                    "[global]\nbs=4k\n[rated]\ndirect=1\nrw=randread\niodepth=4\nrate_iops=10000\nruntime=20ms\ntime_based\n");
  auto f = fio_json(dir);
  CHECK(f["fio version"].get<std::string>().rfind("flashvp-", 0) == 0);
  CHECK(f["timestamp"] == 0);
  CHECK(f["timestamp_ms"] == 0);
  CHECK(f["time"].is_string());
  CHECK(f["global options"] == nlohmann::json{{"bs", "4k"}});  // the preset's form: as written
  CHECK(f["disk_util"] == nlohmann::json::array());
  REQUIRE(f["jobs"].size() == 1);
  const auto& j = f["jobs"][0];
  const auto& sj = s["jobs"][0];
  CHECK(j["jobname"] == "rated");
  CHECK(j["groupid"] == 0);
  CHECK(j["error"] == 0);
  CHECK(j["job options"]["rate_iops"] == "10000");
  CHECK(j["job options"]["runtime"] == "20ms");
  CHECK(!j["job options"].contains("bs"));  // the [global]'s
  const auto& r = j["read"];
  const uint64_t ios = r["total_ios"];
  CHECK(ios == 200);
  CHECK(ios == sj["reads"].get<uint64_t>());
  CHECK(r["io_bytes"] == 200 * 4096);
  CHECK(r["io_kbytes"] == 800);
  CHECK(r["runtime"] == 20);  // ms, rounded up as fio's
  CHECK(r["iops"].get<double>() == Approx(10000).epsilon(0.01));
  CHECK(r["iops"].get<double>() == Approx(sj["iops"].get<double>()));
  CHECK(r["bw"].get<double>() == Approx(40000).epsilon(0.01));  // KiB/s
  CHECK(r["bw"] == r["bw_bytes"].get<uint64_t>() / 1024);
  CHECK(r["short_ios"] == 0);
  CHECK(r["drop_ios"] == 0);
  // lat is summary.json's latency in ns; slat its host_submit stage; clat the rest.
  const auto& lat = r["lat_ns"];
  const auto& sl = sj["latency_us"]["read"];
  CHECK(lat["N"] == ios);
  CHECK(lat["mean"].get<double>() == Approx(sl["mean"].get<double>() * 1000));
  CHECK(lat["min"].get<double>() == Approx(sl["min"].get<double>() * 1000).margin(0.5));
  CHECK(lat["max"].get<double>() == Approx(sl["max"].get<double>() * 1000).margin(0.5));
  CHECK(lat["percentile"]["99.000000"].get<double>() == Approx(sl["p99"].get<double>() * 1000).margin(0.5));
  CHECK(lat["percentile"]["50.000000"].get<double>() == Approx(sl["p50"].get<double>() * 1000).margin(0.5));
  CHECK(r["slat_ns"]["mean"].get<double>() ==
        Approx(sj["breakdown_us"]["read"]["host_submit"].get<double>() * 1000));
  CHECK(r["slat_ns"]["N"] == ios);
  CHECK(r["clat_ns"]["mean"].get<double>() + r["slat_ns"]["mean"].get<double>() == Approx(lat["mean"].get<double>()));
  CHECK(r["clat_ns"]["N"] == ios);
  CHECK(r["clat_ns"]["min"].get<uint64_t>() < lat["min"].get<uint64_t>());
  // fio's default percentile list, keyed as fio keys it.
  for (const auto* key : {&r["clat_ns"]["percentile"], &lat["percentile"]}) {
    REQUIRE(key->size() == 17);
    for (const char* k : kFioPercentiles) CHECK(key->contains(k));
  }
  // 20 ms of run: no whole 500 ms interval, so no bandwidth or IOPS sample (as fio).
  CHECK(r["bw_samples"] == 0);
  CHECK(r["iops_samples"] == 0);
  for (const char* dirn : {"write", "trim"}) {
    CHECK(j[dirn]["total_ios"] == 0);
    CHECK(j[dirn]["io_bytes"] == 0);
    CHECK(j[dirn]["lat_ns"]["N"] == 0);
  }
  CHECK(j["sync"]["total_ios"] == 0);
  CHECK(j["iodepth_level"]["1"] == 100.0);  // one at a time
  CHECK(j["latency_depth"] == 4);
  double buckets = 0;
  for (const char* h : {"latency_ns", "latency_us", "latency_ms"})
    for (const auto& [k, v] : j[h].items()) buckets += v.get<double>();
  CHECK(buckets == Approx(100));
  CHECK(j["job_runtime"] == 19);  // ms from the first issue to the last completion, cut to whole ms
}

TEST_CASE("fio.json's bandwidth and IOPS samples and fio's logs, every I/O or in windows of log_avg_msec",
          "[host][fio][fio-json]") {
  auto dir = scratch("fio-json-logs");
  // Two rated jobs side by side for 50 ms (500 reads each): `win` samples
  // every 10 ms and logs windows of 10 ms; `each` logs every I/O.
  auto s = run_into(dir, "quick", {},
                    "[global]\ndirect=1\nrw=randread\nbs=4k\nrate_iops=10000\nruntime=50ms\ntime_based\n"
                    "[win]\nbwavgtime=10\niopsavgtime=10\nwrite_lat_log=w\nwrite_bw_log=w\nwrite_iops_log=w\n"
                    "log_avg_msec=10\n"
                    "[each]\nwrite_lat_log=logs/e\nwrite_bw_log=logs/e\nwrite_iops_log\nlog_offset=1\n"
                    "prioclass=1\n");
  auto f = fio_json(dir);
  const auto& win = f["jobs"][0]["read"];
  // 100 reads of 4 KiB in each 10 ms: 10,000 IOPS, 40,000 KiB/s; four whole
  // intervals and the last one (within fio's 1 ms slack of whole).
  CHECK(win["bw_samples"] == 5);
  CHECK(win["iops_samples"] == 5);
  CHECK(win["bw_min"] == 40000);
  CHECK(win["iops_min"] == 10000);
  CHECK(win["bw_mean"].get<double>() == Approx(40000).epsilon(0.01));
  CHECK(win["iops_mean"].get<double>() == Approx(10000).epsilon(0.01));
  CHECK(win["bw_agg"].get<double>() > 0);
  // Windows of 10 ms over 50 ms: five lines per log (the read direction only).
  for (const char* t : {"lat", "clat", "slat", "bw", "iops"}) {
    INFO(t);
    auto lines = log_lines(fmt::format("{}/w_{}.1.log", dir, t));
    CHECK(lines.size() == 5);
    for (size_t i = 0; i < lines.size(); ++i) {
      REQUIRE(lines[i].size() == 5);  // time, value, direction, size, priority
      CHECK(lines[i][0] >= (i < 4 ? 10 * (i + 1) : 40));
      CHECK(lines[i][0] <= 50);
      CHECK(lines[i][2] == 0);
      CHECK(lines[i][3] == 0);  // a window's line has no size
    }
  }
  auto wlat = log_lines(dir + "/w_lat.1.log");
  const double wmean = f["jobs"][0]["read"]["lat_ns"]["mean"];
  for (const auto& l : wlat) CHECK(double(l[1]) == Approx(wmean).epsilon(0.05));
  CHECK(log_lines(dir + "/w_iops.1.log")[0][1] == 10000);
  CHECK(log_lines(dir + "/w_bw.1.log")[0][1] == 40000);
  // Every I/O: one line each, times ascending, latencies in ns; with
  // log_offset the byte offset; prioclass=1 (realtime) logs priority 1.
  const auto& each = f["jobs"][1]["read"];
  const uint64_t ios = each["total_ios"];
  CHECK(ios == s["jobs"][1]["reads"].get<uint64_t>());
  auto lat = log_lines(dir + "/logs/e_lat.2.log"), clat = log_lines(dir + "/logs/e_clat.2.log"),
       slat = log_lines(dir + "/logs/e_slat.2.log");
  REQUIRE(lat.size() == ios);
  REQUIRE(clat.size() == ios);
  REQUIRE(slat.size() == ios);
  double sum = 0;
  for (size_t i = 0; i < ios; ++i) {
    REQUIRE(lat[i].size() == 6);  // time, value, direction, size, offset, priority
    if (i) CHECK(lat[i][0] >= lat[i - 1][0]);
    CHECK(lat[i][0] <= 50);
    CHECK(lat[i][3] == 4096);
    CHECK(lat[i][4] % 4096 == 0);
    CHECK(lat[i][5] == 1);
    CHECK(clat[i][4] == lat[i][4]);
    sum += double(lat[i][1]);
    CHECK(lat[i][1] >= uint64_t(each["lat_ns"]["min"]));
    CHECK(lat[i][1] <= uint64_t(each["lat_ns"]["max"]));
  }
  CHECK(sum / double(ios) == Approx(each["lat_ns"]["mean"].get<double>()).margin(0.5));
  // A bandwidth log of every I/O makes fio's samples per I/O too: size over clat.
  auto bw = log_lines(dir + "/logs/e_bw.2.log");
  REQUIRE(bw.size() == ios);
  CHECK(each["bw_samples"] == ios);
  CHECK(bw[0][1] == 4096ull * 1000000 / clat[0][1]);
  auto iops = log_lines(dir + "/each_iops.2.log");  // a bare write_iops_log: the job's name
  REQUIRE(iops.size() == ios);
  for (const auto& l : iops) CHECK(l[1] == 1);
}

TEST_CASE("fio.json on vp-drive: a mixed job's two directions, with no submission latency", "[host][fio][fio-json]") {
  {
    auto dir = scratch("fio-json-drive");
    auto s = run_into(dir, "quick", {}, "[mix]\ndirect=1\nrw=randrw\nrwmixread=70\nbs=8k\niodepth=8\nnumber_ios=1000\n",
                      vp::platform::Platform::Drive);
    const auto f = fio_json(dir);
    const auto& j = f["jobs"][0];
    const auto& sj = s["jobs"][0];
    CHECK(j["read"]["total_ios"] == sj["reads"]);
    CHECK(j["write"]["total_ios"] == sj["writes"]);
    CHECK(j["read"]["total_ios"].get<uint64_t>() + j["write"]["total_ios"].get<uint64_t>() == 1000);
    CHECK(j["write"]["io_bytes"] == sj["writes"].get<uint64_t>() * 8192);
    CHECK(j["write"]["lat_ns"]["mean"].get<double>() ==
          Approx(sj["latency_us"]["write"]["mean"].get<double>() * 1000));
    // vp-drive issues straight into the NVMe queues: no submission time.
    CHECK(j["read"]["slat_ns"]["mean"] == 0.0);
    CHECK(j["read"]["clat_ns"]["mean"] == j["read"]["lat_ns"]["mean"]);
  }
}

TEST_CASE("fio.json: fsyncs in the sync section, and a synchronous engine's latency all clat", "[host][fio][fio-json]") {
  {
    auto dir = scratch("fio-json-sync");
    auto s = run_into(dir, "quick", {},
                      "[w]\ndirect=1\nrw=randwrite\nbs=4k\nfsync=10\nnumber_ios=100\n"
                      "[p]\ndirect=1\nioengine=psync\nrw=randread\nbs=4k\nnumber_ios=100\n");
    auto f = fio_json(dir);
    const auto& w = f["jobs"][0];
    CHECK(w["sync"]["total_ios"] == 10);
    CHECK(w["sync"]["total_ios"] == s["jobs"][0]["fsyncs"]);
    CHECK(w["sync"]["lat_ns"]["N"] == 10);
    // A synchronous engine has no slat in fio: clat is the whole latency.
    const auto& p = f["jobs"][1]["read"];
    CHECK(p["slat_ns"]["N"] == 0);
    CHECK(p["clat_ns"]["mean"] == p["lat_ns"]["mean"]);
    CHECK(f["jobs"][1]["latency_depth"] == 1);
  }
}

TEST_CASE("fio's log options: paths stay in the run folder, and every option survives to_fio", "[host][fio]") {
  auto msg = fio_parse_message;
  CHECK_THAT(msg("[j]\nwrite_lat_log=/tmp/x\n"),
             Catch::Contains("t.fio:2: option 'write_lat_log': value '/tmp/x' is an absolute path"));
  CHECK_THAT(msg("[j]\nwrite_bw_log=../x\n"), Catch::Contains("option 'write_bw_log': value '../x' leaves the run folder"));
  CHECK_THAT(msg("[j]\nwrite_iops_log=a/../../b\n"), Catch::Contains("option 'write_iops_log'"));
  CHECK_THAT(msg("[j]\nlog_window_value=mean\n"), Catch::Contains("is not one of avg, max, both"));
  CHECK_THAT(msg("[j]\nbwavgtime=0\n"), Catch::Contains("out of range"));
  CHECK(msg("[j]\nwrite_lat_log=a/..b\n").empty());  // a name, not a way out
  auto jobs = parse_fio("[j]\nwrite_lat_log\nwrite_bw_log=logs/b\nwrite_iops_log=i\nlog_avg_msec=20\n"
                        "log_max_value=1\nlog_offset=1\nlog_prio=1\nlog_issue_time=1\nper_job_logs=0\nbwavgtime=100\n"
                        "iopsavgtime=250\n",
                        "t.fio");
  REQUIRE(jobs.size() == 1);
  const auto& j = jobs[0];
  CHECK(j.lat_log == std::string());
  CHECK(j.bw_log == std::string("logs/b"));
  CHECK(j.log_avg_msec == 20);
  CHECK(j.log_window == 1);
  CHECK(!j.per_job_logs);
  CHECK(j.bwavgtime == 100u);
  CHECK(j.iopsavgtime == 250u);
  CHECK(parse_fio(j.to_fio(), "again") == jobs);
  CHECK(parse_fio("[j]\n", "t.fio")[0].to_fio().find("log") == std::string::npos);  // none unless asked for
  // fio: log_issue_time needs write_lat_log and log_offset.
  CHECK_THROWS_WITH(vp::platform::build_config(options("quick", {}, "[j]\nwrite_lat_log=a\nlog_issue_time=1\n")),
                    Catch::Contains("option 'log_issue_time'") && Catch::Contains("log_offset"));
  // A log without a name takes the job's, which must stay in the run folder too.
  CHECK_THROWS_WITH(vp::platform::build_config(options("quick", {}, "[../up]\nwrite_bw_log\n")),
                    Catch::Contains("option 'write_bw_log'") && Catch::Contains("leaves the run folder"));
  // The [global] options of a job file, for fio.json.
  auto g = vp::host::fio_global_options("[global]\nbs=4k ; note\nthread\n[a]\nrw=read\n[global]\nbs=8k\n");
  REQUIRE(g.size() == 2);
  CHECK(g[0] == std::pair<std::string, std::string>{"bs", "8k"});
  CHECK(g[1] == std::pair<std::string, std::string>{"thread", ""});
}
