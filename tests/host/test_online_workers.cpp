// SPDX-License-Identifier: BSD-3-Clause
// Online servers with several worker threads (workers=N): one client, one
// FIFO queue of arrived requests, an idle worker takes the oldest. The
// workers sit on cores of their own so that no OS scheduling is involved.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
struct Io {
  std::string job;
  uint64_t issued;
  double latency_us;
};

std::vector<Io> ios(const std::string& dir) {
  std::vector<Io> v;
  for (const CsvRow& r : csv_rows(dir + "/requests.csv"))
    v.push_back({r.at("job"), u64(r, "issue_ps"), f64(r, "latency_ps") / 1e6});
  std::sort(v.begin(), v.end(), [](const Io& a, const Io& b) { return a.issued < b.issued; });
  return v;
}

// A request every 1 ms (1000/s), 3,000,000 instructions = 1.5 ms of compute
// at 2 GHz and IPC 1, one 4 KiB read, 50 us of network each way: one worker
// is busy 1.5 ms + L per 1 ms (overloaded), two are each busy 1.5 ms + L per
// 2 ms (keep up as long as the I/O latency L stays under 500 us).
std::string server_job(unsigned workers, const std::string& cpus) {
  return "[web]\ndirect=1\nonline=1\nrequest_rate=1000\nrequests=6\nrequest_insts=3000000\nnet_delay=50us\n"
         "rw=randread\nbs=4k\ncpus_allowed=" +
         cpus + "\n" + (workers ? "workers=" + std::to_string(workers) + "\n" : "");
}
}  // namespace

TEST_CASE("one worker behind requests faster than it serves answers each later than the one before",
          "[host][online][workers]") {
  const std::string dir = scratch("online_one_worker");
  auto s = run_traced(dir, "quick", {{"host.cores", "3"}}, server_job(1, "1"));
  REQUIRE(s["jobs"].size() == 1);
  const auto& o = s["jobs"][0]["online"];
  CHECK(o["workers"] == 1);
  CHECK(o["requests"] == 6);
  auto v = ios(dir);
  REQUIRE(v.size() == 6);
  // Request k is sent at t0 + 1000 k and reaches the worker 50 us later;
  // from request 1 on it is already waiting when the one before finishes:
  //   finish_k   = t0 + 50 + 1500 (k+1) + L_0 + ... + L_k
  //   response_k = finish_k + 50 - (t0 + 1000 k) = 1600 + 500 k + L_0 + ... + L_k
  // so each response is 500 us + L_k longer than the one before.
  double cum = 0, sum = 0, prev = 0;
  for (size_t k = 0; k < 6; ++k) {
    if (k) CHECK(double(v[k].issued - v[k - 1].issued) / 1e6 == Approx(1500 + v[k - 1].latency_us).margin(1e-3));
    cum += v[k].latency_us;
    double resp = 1600 + 500.0 * double(k) + cum;
    if (k) CHECK(resp - prev > 500);
    prev = resp;
    sum += resp;
  }
  const auto& r = o["response_us"];
  CHECK(r["mean"].get<double>() == Approx(sum / 6).margin(1e-3));
  // The last: 1600 + 2500 + all six latencies.
  CHECK(r["max"].get<double>() == Approx(4100 + cum).margin(1e-3));
  CHECK(r["min"].get<double>() == Approx(1600 + v[0].latency_us).margin(1e-3));
  // 6 x 1.5 ms of compute on the one worker's core.
  CHECK(host(s)["cpu"][1]["user_ps"] == 9000000000ull);
}

TEST_CASE("two workers on two cores answer every request in compute plus I/O plus both network crossings",
          "[host][online][workers]") {
  const std::string dir = scratch("online_two_workers");
  auto s = run_traced(dir, "quick", {{"host.cores", "3"}}, server_job(2, "1-2"));
  // One entry per worker, placed like numjobs clones: cores 1 and 2. The
  // server (its client and response times) is reported once, on worker 0.
  REQUIRE(s["jobs"].size() == 2);
  const auto& w0 = s["jobs"][0];
  const auto& w1 = s["jobs"][1];
  CHECK(w0["name"] == "web.w0");
  CHECK(w1["name"] == "web.w1");
  CHECK(w0["core"] == 1);
  CHECK(w1["core"] == 2);
  CHECK(w1["worker_of"] == "web.w0");
  CHECK_FALSE(w1.contains("online"));
  const auto& o = w0["online"];
  CHECK(o["workers"] == 2);
  CHECK(o["worker_jobs"] == nlohmann::json::array({"web.w0", "web.w1"}));
  CHECK(o["requests_sent"] == 6);
  CHECK(o["requests"] == 6);
  // Request k reaches the server at t0 + 1000 k + 50. The worker that took
  // request k-2 finished it at t0 + 1000 (k-2) + 50 + 1500 + L < t0 + 1000 k + 50
  // (L is far below 500 us), so a worker is always idle at an arrival: no
  // request waits, the two alternate (3 requests each) and
  //   response_k = 50 + 1500 + L_k + 50 = 1600 + L_k,
  // plus, from each worker's second request on (k >= 2), the 3.5 us context
  // switch to the worker the arrival wakes (host.core.ctx_switch_cost; a
  // worker's first request finds it starting on its core).
  CHECK(w0["ios"] == 3);
  CHECK(w1["ios"] == 3);
  auto v = ios(dir);
  REQUIRE(v.size() == 6);
  double sum = 0, lo = 1e18, hi = 0;
  for (size_t k = 0; k < 6; ++k) {
    // Each I/O is issued 50 + 1500 us (+ 3.5 us) after its request's send:
    // 1 ms apart, except 1.0035 ms from the first switched one (k = 2).
    if (k) CHECK(v[k].issued - v[k - 1].issued == (k == 2 ? 1003500000ull : 1000000000ull));
    if (k >= 2) CHECK(v[k].job == v[k - 2].job);  // alternation
    if (k) CHECK(v[k].job != v[k - 1].job);
    double resp = 1600 + (k >= 2 ? 3.5 : 0) + v[k].latency_us;
    sum += resp;
    lo = std::min(lo, resp);
    hi = std::max(hi, resp);
  }
  const auto& r = o["response_us"];
  CHECK(r["count"] == 6);
  CHECK(r["mean"].get<double>() == Approx(sum / 6).margin(1e-3));
  CHECK(r["min"].get<double>() == Approx(lo).margin(1e-3));
  CHECK(r["max"].get<double>() == Approx(hi).margin(1e-3));
  // 3 x 1.5 ms of compute on each worker's core.
  CHECK(host(s)["cpu"][1]["user_ps"] == 4500000000ull);
  CHECK(host(s)["cpu"][2]["user_ps"] == 4500000000ull);
}

TEST_CASE("workers without online=1 is a configuration error naming the job and the option",
          "[host][online][workers]") {
  auto o = options("quick", {}, "[batch]\nrw=randread\nbs=4k\nnumber_ios=10\nworkers=2\n");
  CHECK_THROWS_WITH(vp::platform::build_config(o),
                    Catch::Contains("workload.fio (--set):5: job 'batch': option 'workers' = '2': only an online job (online=1)"));
}

TEST_CASE("workers parse and write back through to_fio", "[host][online][workers]") {
  auto j = vp::host::parse_fio("[w]\nonline=1\nrequests=3\nworkers=4\n", "t.fio")[0];
  CHECK(j.workers == 4);
  CHECK(j.worker_count() == 4);
  CHECK(vp::host::parse_fio(j.to_fio(), "back")[0] == j);
  auto d = vp::host::parse_fio("[w]\nonline=1\nrequests=3\n", "t.fio")[0];
  CHECK(d.worker_count() == 1);
  CHECK(d != j);
  CHECK_THROWS_WITH(vp::host::parse_fio("[w]\nworkers=0\n", "t.fio"), Catch::Contains("workers"));
}

TEST_CASE("a server with three workers under poisson arrivals repeats with the seed", "[host][online][workers]") {
  // Placement without cpus_allowed: the least loaded core, lowest first, so
  // the three workers go to cores 0, 1 and 2 of four.
  const std::string dir = scratch("workers_seed");
  std::ofstream(dir + "/w.fio") << "[web]\ndirect=1\napp=ap\nonline=1\nrequest_rate=2000\nrate_process=poisson\nrequests=200\n"
                                   "workers=3\nnet_delay=20us\nworkload_attr=1\n";
  const std::string bin = VP_SERVER_BIN;
  auto run_seed = [&](int seed, const std::string& out) {
    Shell r = shell(bin + " --preset quick --set host.cores=4 --seed " + std::to_string(seed) + " --out " + dir + "/" +
                    out + " --job " + dir + "/w.fio");
    INFO(r.out);
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(slurp(dir + "/" + out + "/summary.json"));
    j.erase("wall_time_s");
    return j;
  };
  auto a = run_seed(7, "a"), b = run_seed(7, "b"), c = run_seed(8, "c");
  CHECK(a == b);
  CHECK(a["jobs"][0]["online"]["response_us"] != c["jobs"][0]["online"]["response_us"]);
  REQUIRE(a["jobs"].size() == 3);
  uint64_t ios = 0;
  for (unsigned w = 0; w < 3; ++w) {
    CHECK(a["jobs"][w]["core"] == w);
    ios += a["jobs"][w]["ios"].get<uint64_t>();
  }
  // ap: 1,501,502 instructions (0.75 ms) per request at 2000/s: more than one
  // worker's worth (1.5 busy), so all three serve. One I/O per request.
  CHECK(a["jobs"][0]["online"]["requests"] == 200);
  CHECK(ios == 200);
  for (unsigned w = 0; w < 3; ++w) CHECK(a["jobs"][w]["ios"].get<uint64_t>() > 0);
}
