// SPDX-License-Identifier: BSD-3-Clause
// Online request/response jobs (online=1): the client's request schedule
// (linear or Poisson, open loop), the worker's compute and I/Os per request,
// and the end-to-end response time in the summary.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/TestSupport.hpp"
#include "vp/host/workload/FioJob.hpp"
#include "vp/host/workload/OnlineClient.hpp"

using namespace vp::test;
using vp::Tick;
using vp::host::OnlineClient;

namespace {
struct Io {
  uint64_t issued;
  double latency_us;
};

std::vector<Io> ios(const std::string& dir) {
  std::vector<Io> v;
  for (const CsvRow& r : csv_rows(dir + "/requests.csv")) v.push_back({u64(r, "issue_ps"), f64(r, "latency_ps") / 1e6});
  std::sort(v.begin(), v.end(), [](const Io& a, const Io& b) { return a.issued < b.issued; });
  return v;
}
}  // namespace

TEST_CASE("online requests at a fixed rate respond after both network crossings plus compute plus the I/O",
          "[host][online]") {
  // Core 1 runs only the worker. 20,000 instructions at 2 GHz and IPC 1 are
  // 10 us of compute per request.
  const std::string dir = scratch("online_fixed");
  auto s = run_traced(dir, "quick", {{"host.cores", "2"}},
                      "[web]\ndirect=1\nonline=1\nrequest_rate=1000\nrequests=10\nios_per_request=1\nrequest_insts=20000\n"
                      "net_delay=50us\nrw=randread\nbs=4k\ncpus_allowed=1\n");
  const auto& j = s["jobs"][0];
  REQUIRE(j["online"]["requests"] == 10);
  CHECK(j["online"]["requests_sent"] == 10);
  CHECK(j["ios"] == 10);
  auto v = ios(dir);
  REQUIRE(v.size() == 10);
  // Requests are sent 1 ms apart (1e12 / 1000 ps) and the server is idle
  // again long before the next, so each I/O is issued 50 us + 10 us after
  // its send, plus from the second request on the 3.5 us context switch to
  // the worker the arrival wakes (host.core.ctx_switch_cost; the first
  // request finds the worker starting on its core, without a switch): the
  // I/Os are 1 ms apart but the first two 1.0035 ms.
  CHECK(v[1].issued - v[0].issued == 1003500000ull);
  for (size_t k = 2; k < v.size(); ++k) CHECK(v[k].issued - v[k - 1].issued == 1000000000ull);
  // Response = 50 us there + (3.5 us switch) + 10 us compute + the I/O's
  // latency + 50 us back.
  double sum = 0, lo = 1e18, hi = 0;
  for (size_t k = 0; k < v.size(); ++k) {
    double resp = 110 + (k ? 3.5 : 0) + v[k].latency_us;
    sum += resp;
    lo = std::min(lo, resp);
    hi = std::max(hi, resp);
  }
  // responses.csv (with --trace requests) holds each of them: sent 1 ms
  // apart from the run's start, received sent + the response.
  auto rows = csv_rows(dir + "/responses.csv");
  REQUIRE(rows.size() == 10);
  for (size_t k = 0; k < rows.size(); ++k) {
    INFO("request " << k);
    CHECK(rows[k].at("job") == "web");
    CHECK(u64(rows[k], "request") == k);
    CHECK(u64(rows[k], "sent_ps") - u64(rows[0], "sent_ps") == k * 1000000000ull);
    CHECK(u64(rows[k], "received_ps") - u64(rows[k], "sent_ps") == u64(rows[k], "response_ps"));
    CHECK(f64(rows[k], "response_ps") / 1e6 == Approx(110 + (k ? 3.5 : 0) + v[k].latency_us).margin(1e-6));
    // Its parts: 100 us of network; the idle worker takes it on arrival (no
    // queueing); one I/O, of its latency; the rest of the service is the
    // 10 us of compute and, from the second request on, the 3.5 us context
    // switch that puts the woken worker on its core. They add up to it.
    CHECK(u64(rows[k], "worker") == 0);
    CHECK(u64(rows[k], "network_ps") == 100000000ull);
    CHECK(u64(rows[k], "queue_ps") == 0);
    CHECK(u64(rows[k], "taken_ps") - u64(rows[k], "sent_ps") == 50000000ull);
    CHECK(f64(rows[k], "io_ps") / 1e6 == Approx(v[k].latency_us).margin(1e-6));
    CHECK(u64(rows[k], "compute_ps") == (k ? 13500000ull : 10000000ull));
  }
  const auto& r = j["online"]["response_us"];
  CHECK(r["count"] == 10);
  CHECK(r["mean"].get<double>() == Approx(sum / 10).margin(1e-3));
  CHECK(r["min"].get<double>() == Approx(lo).margin(1e-3));
  CHECK(r["max"].get<double>() == Approx(hi).margin(1e-3));
  // The compute is user time on the worker's core: 10 x 10 us.
  CHECK(host(s)["cpu"][1]["user_ps"] == 100000000);
}

TEST_CASE("online requests queue at a busy worker and their response includes the wait", "[host][online]") {
  // 6,000,000 instructions = 3 ms of compute per request against a request
  // every 1 ms: open loop, so the requests pile up behind the worker.
  const std::string dir = scratch("online_queue");
  auto s = run_traced(dir, "quick", {{"host.cores", "2"}},
                      "[busy]\ndirect=1\nonline=1\nrequest_rate=1000\nrequests=5\nrequest_insts=6000000\nnet_delay=50us\n"
                      "rw=randread\nbs=4k\ncpus_allowed=1\n");
  auto v = ios(dir);
  REQUIRE(v.size() == 5);
  // Request 0 reaches the worker at t0 + 50 us; each next request is already
  // waiting when the one before completes, so its compute starts then:
  //   finish_k = t0 + 50 + 3000 (k+1) + L_0 + ... + L_k   (us)
  //   response_k = finish_k + 50 - (t0 + 1000 k) = 100 + 3000 (k+1) - 1000 k + L_0 + ... + L_k
  double cum = 0, sum = 0, max = 0;
  for (size_t k = 0; k < 5; ++k) {
    if (k) CHECK(double(v[k].issued - v[k - 1].issued) / 1e6 == Approx(3000 + v[k - 1].latency_us).margin(1e-3));
    cum += v[k].latency_us;
    double resp = 100 + 3000.0 * double(k + 1) - 1000.0 * double(k) + cum;
    sum += resp;
    max = std::max(max, resp);
  }
  const auto& r = s["jobs"][0]["online"]["response_us"];
  CHECK(r["mean"].get<double>() == Approx(sum / 5).margin(1e-3));
  // Where the time went: request k waited 2,000 k us + L_0 + ... + L_(k-1)
  // for the worker, then 3 ms of compute and its own I/O, L_k; the slowest
  // (at and above the p99, nearest rank: the last alone) waited 8,000 us
  // + L_0 + ... + L_3.
  double queue = 0, io = 0;
  cum = 0;
  for (size_t k = 0; k < 5; ++k) {
    queue += 2000.0 * double(k) + cum;
    io += v[k].latency_us;
    cum += v[k].latency_us;
  }
  const auto& parts = s["jobs"][0]["online"]["response_parts_us"];
  CHECK(parts["all"]["count"] == 5);
  CHECK(parts["all"]["network"].get<double>() == Approx(100).margin(1e-6));
  CHECK(parts["all"]["queue"].get<double>() == Approx(queue / 5).margin(1e-3));
  CHECK(parts["all"]["io"].get<double>() == Approx(io / 5).margin(1e-3));
  CHECK(parts["all"]["compute"].get<double>() == Approx(3000).margin(1e-3));
  CHECK(parts["p99_and_above"]["count"] == 1);
  CHECK(parts["p99_and_above"]["queue"].get<double>() == Approx(8000 + cum - v[4].latency_us).margin(1e-3));
  CHECK(parts["p99_and_above"]["io"].get<double>() == Approx(v[4].latency_us).margin(1e-3));
  // The last: 100 + 15000 - 4000 + all five latencies = 11,100 us + sum L.
  CHECK(r["max"].get<double>() == Approx(11100 + cum).margin(1e-3));
  CHECK(max == Approx(11100 + cum));
}

TEST_CASE("poisson arrivals have the mean gap of the rate and repeat with the seed", "[host][online]") {
  // 1000/s: exponential gaps of mean 1 ms = 1e9 ps and standard deviation
  // 1 ms. Over N = 10,000 gaps the standard error of the mean is
  // 1 ms / sqrt(10,000) = 10 us; allow 4 of them, 40 us.
  const uint64_t n = 10000;
  OnlineClient a(1000, true, 0, 42), b(1000, true, 0, 42), c(1000, true, 0, 43);
  a.start(5);
  b.start(5);
  c.start(5);
  for (uint64_t k = 0; k < n; ++k) {
    a.take();
    b.take();
    c.take();
  }
  REQUIRE(a.sends().size() == n + 1);
  double mean_gap = double(a.sends()[n - 1] - 5) / double(n);  // the first send is one gap after t0
  CHECK(std::abs(mean_gap - 1e9) < 4e7);
  CHECK(a.sends() == b.sends());
  CHECK(a.sends() != c.sends());
  // Gaps are not all equal (that would be linear).
  CHECK(a.sends()[1] - a.sends()[0] != a.sends()[2] - a.sends()[1]);
}

TEST_CASE("linear arrivals do not drift with a rate that does not divide a second", "[host][online]") {
  // 3/s: 1e12 / 3 = 333,333,333,333.33 ps; request 3 is at t0 + exactly 1 s
  // and request 1 at t0 + 333,333,333,333 ps (rounded down).
  OnlineClient c(3, false, 0, 1);
  c.start(100);
  CHECK(c.next_send() == 100);
  c.take();
  CHECK(c.next_send() == 100 + 333333333333ull);
  c.take();
  c.take();
  CHECK(c.next_send() == 100 + 1000000000000ull);
  // Arrival at the server is one net_delay later; response adds the way back.
  OnlineClient d(1000, false, 50, 1);
  d.start(0);
  CHECK(d.next_arrival() == 50);
  uint64_t k = d.take();
  // Taken on arrival (50), 300 of I/O, finished at 1050: 1050 + 50 - 0.
  d.respond(k, 50, 300, 2, 1050);
  REQUIRE(d.responses().size() == 1);
  const OnlineClient::Response& r = d.responses()[0];
  CHECK(r.request == 0);
  CHECK(r.sent == 0);
  CHECK(r.received == 1100);
  CHECK(r.time() == 1100);
  CHECK(r.worker == 2);
  // 1100 = 2 x 50 network + 0 queued + 300 I/O + 700 the rest of the service.
  CHECK(r.queued() == 0);
  CHECK(r.io == 300);
  CHECK(r.compute() == 700);
}

TEST_CASE("response percentiles are nearest rank like the I/O percentiles", "[host][online]") {
  // 1..1000 ps: p50 = the 500th, p95 = the 950th, p99 = the 990th, p99.9 =
  // the 999th smallest (ceil(p x 1000)).
  std::vector<Tick> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i + 1;
  CHECK(vp::Distribution::nearest_rank(v, 0.50) == 500);
  CHECK(vp::Distribution::nearest_rank(v, 0.95) == 950);
  CHECK(vp::Distribution::nearest_rank(v, 0.99) == 990);
  CHECK(vp::Distribution::nearest_rank(v, 0.999) == 999);
  // Ten values 10..100: p95 -> rank ceil(9.5) = 10 -> 100; p50 -> rank 5 -> 50;
  // p99.9 -> rank ceil(9.99) = 10 -> 100.
  std::vector<Tick> w{10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  CHECK(vp::Distribution::nearest_rank(w, 0.95) == 100);
  CHECK(vp::Distribution::nearest_rank(w, 0.50) == 50);
  CHECK(vp::Distribution::nearest_rank(w, 0.999) == 100);
}

TEST_CASE("an online job needs requests or runtime to end", "[host][online]") {
  auto o = options("quick", {}, "[web]\ndirect=1\nonline=1\nrw=randread\nbs=4k\n");
  CHECK_THROWS_WITH(vp::platform::build_config(o), Catch::Contains("needs requests or runtime to end"));
}

TEST_CASE("phases need a job with compute between I/Os, and no online job takes them", "[host][online]") {
  auto o = options("quick", {}, "[pr]\ndirect=1\napp=PR\nonline=1\nrequests=5\n");
  CHECK_THROWS_WITH(vp::platform::build_config(o),
                    Catch::Contains("option 'app' = 'PR'") && Catch::Contains("add phases=none"));
  o = options("quick", {}, "[pr]\ndirect=1\napp=PR\nphases=none\nonline=1\nrequests=5\n");
  CHECK_NOTHROW(vp::platform::build_config(o));
  o = options("quick", {}, "[w]\ndirect=1\napp=ap\nphases=1s:2\nonline=1\nrequests=5\n");
  CHECK_THROWS_WITH(vp::platform::build_config(o), Catch::Contains("'phases'") && Catch::Contains("online job"));
  o = options("quick", {}, "[r]\ndirect=1\nrw=randread\nphases=1s:2\nnumber_ios=5\n");
  CHECK_THROWS_WITH(vp::platform::build_config(o), Catch::Contains("the job has none (set app= or thinktime_insts)"));
}

TEST_CASE("online options parse and write back through to_fio", "[host][online]") {
  auto jobs = vp::host::parse_fio("[w]\napp=ap\nonline=1\nrequest_rate=250\nrate_process=poisson\nios_per_request=3\n"
                                  "net_delay=20\nrequests=7\n",
                                  "t.fio");
  REQUIRE(jobs.size() == 1);
  const auto& j = jobs[0];
  CHECK(j.online);
  CHECK(j.request_rate == 250);
  CHECK(j.rate_poisson);
  CHECK(j.ios_per_request == 3);
  CHECK(j.net_delay_ps == 20000000);  // 20 without a unit = 20 us
  CHECK(j.requests == 7);
  CHECK_FALSE(j.request_insts.has_value());  // derived: ap's 1,501,502 x 3 per request
  CHECK(vp::host::parse_fio(j.to_fio(), "back")[0] == j);
  CHECK_THROWS_WITH(vp::host::parse_fio("[w]\nrate_process=uniform\n", "t.fio"),
                    Catch::Contains("is not one of linear, poisson"));
}

TEST_CASE("an online worker computes thinktime_insts times ios_per_request once per request", "[host][online]") {
  // 10,000 instructions per I/O x 2 I/Os = 20,000 per request = 10 us at
  // 2 GHz and IPC 1; 3 requests: 30 us of user time. Were thinktime_insts
  // also spun after each I/O it would add 6 x 5 us = 30 us more.
  auto s = run("quick", {{"host.cores", "2"}},
               "[w]\ndirect=1\nonline=1\nrequest_rate=1000\nrequests=3\nios_per_request=2\nthinktime_insts=10000\n"
               "rw=randread\nbs=4k\ncpus_allowed=1\n");
  CHECK(s["jobs"][0]["ios"] == 6);
  CHECK(s["jobs"][0]["online"]["requests"] == 3);
  CHECK(host(s)["cpu"][1]["user_ps"] == 30000000);
}
