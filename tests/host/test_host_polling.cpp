// SPDX-License-Identifier: BSD-3-Clause
// Completion by polling (host.nvme.completion: poll, hybrid, select_isr,
// dedcore; fio's hipri with host.nvme.poll_queues): latency, CPU categories
// and the interrupts the device does or does not send.
#include <catch2/catch.hpp>


#include "tests/TestSupport.hpp"
#include "vp/host/workload/FioJob.hpp"

using namespace vp::test;

namespace {
// Round costs: submit 1 us, ISR 2 us, reap 0.5 us, context switch 3 us, one
// CQ check 100 ns. Two cores: core 0 takes the admin interrupts of
// bring-up, the jobs run on core 1.
const Sets kCosts = with(kRoundHostCosts, {{"host.cores", "2"}, {"host.core.poll_cost", "100ns"}});
constexpr uint64_t kNs = 1000, kUs = 1000000, kPoll = 100000;

// requests.csv rows in file order.
std::vector<CsvRow> rows(const std::string& dir) { return csv_rows(dir + "/requests.csv"); }
double ns(const CsvRow& r) { return f64(r, "latency_ps") / 1e3; }

uint64_t counter(const nlohmann::json& s, const std::string& k) { return s["counters"][k].get<uint64_t>(); }

// Checks of 100 ns from `from` until the entry landed at `landed`, at least one.
uint64_t checks(uint64_t from, uint64_t landed) { return std::max<uint64_t>(1, (landed - from + kPoll - 1) / kPoll); }

const char* kOneRead = "[r]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=1\ncpus_allowed=1\n";
}  // namespace

TEST_CASE("poll mode reaps a QD1 read without an interrupt or a context switch", "[host][polling]") {
  std::string dir = scratch("poll-qd1"), idir = dir + "/irq";
  auto s = run_traced(dir, "quick", with(kCosts, {{"host.nvme.completion", "poll"}}), kOneRead);
  auto r = rows(dir);
  REQUIRE(r.size() == 1);
  // The core spins from the end of its submission (issue + 1 us) until the
  // first 100 ns check at or after the CQE landed, then reaps for 0.5 us.
  uint64_t from = u64(r[0], "issue_ps") + 1 * kUs, landed = u64(r[0], "cq_post_end_ps");
  uint64_t n = checks(from, landed), wait = n * kPoll;
  REQUIRE(wait >= landed - from);
  REQUIRE(wait < landed - from + kPoll);
  // latency = 1 us submit + wait + 0.5 us reap
  CHECK(ns(r[0]) == Approx(double(1 * kUs + wait + kUs / 2) / 1000.0).margin(0.001));
  const auto& c = host(s)["cpu"][1];
  CHECK(c["poll_ps"].get<uint64_t>() == wait);  // the core was busy polling all along the wait
  CHECK(c["kernel_ps"].get<uint64_t>() == 1 * kUs + kUs / 2);
  CHECK(c["irq_ps"].get<uint64_t>() == 0);
  CHECK(c["ctxsw_ps"].get<uint64_t>() == 0);
  CHECK(counter(s, "host.polls") == n);
  CHECK(counter(s, "host.interrupts_avoided") == 1);
  // Admin commands of bring-up: Identify controller, Set Features, Identify
  // namespace list, Identify namespace, then Create CQ + Create SQ for each
  // of 2 cores = 4 + 4 = 8, each with its MSI-X; the I/O CQ sent none.
  CHECK(counter(s, "ssd.nvme.admin_commands") == 8);
  CHECK(counter(s, "ssd.nvme.msix_sent") == 8);

  // The same read with interrupts (same seed: same LBA, same device time).
  std::string cmd = std::string(VP_SERVER_BIN) + " --preset quick --trace requests --out " + idir;
  for (const auto& [k, v] : with(kCosts, {{"host.nvme.completion", "interrupt"}})) cmd += " --set " + k + "=" + v;
  std::ofstream(dir + "/r.fio") << kOneRead;
  auto sh = shell(cmd + " --job " + dir + "/r.fio");
  REQUIRE(sh.status == 0);
  auto ir = rows(idir);
  REQUIRE(ir.size() == 1);
  CHECK(u64(ir[0], "cq_post_end_ps") == landed);  // the device path is the same
  // Interrupt path: the MSI-X message lands `m` after the CQE, then ISR 2 us
  // + reap 0.5 us, then the context switch back 3 us.
  uint64_t m = u64(ir[0], "interrupt_end_ps") - landed - 2 * kUs - kUs / 2;
  CHECK(m < kPoll);  // the message follows the entry on the same link
  CHECK(u64(ir[0], "wakeup_end_ps") == u64(ir[0], "interrupt_end_ps") + 3 * kUs);
  // interrupt latency - poll latency = (m + 2 + 3) us - (wait - (landed - from))
  double diff = double(m + 5 * kUs) - double(wait - (landed - from));
  CHECK(ns(ir[0]) - ns(r[0]) == Approx(diff / 1000.0).margin(0.002));
}

TEST_CASE("hybrid polling sleeps half the mean completion time of the earlier reads", "[host][polling]") {
  std::string dir = scratch("hybrid");
  auto s = run_traced(dir, "quick", with(kCosts, {{"host.nvme.completion", "hybrid"}}),
                      "[r]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=4\ncpus_allowed=1\n");
  auto r = rows(dir);
  REQUIRE(r.size() == 4);
  // No history before the first read: it polls at once. Read i (i >= 2)
  // sleeps 0.5 x mean(latency of reads 1..i-1), each then costs a 3 us
  // context switch: 3 sleeps, 9 us of ctxsw.
  double expect_ps = 0, sum = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (i > 0) expect_ps += 0.5 * (sum / double(i)) * 1000.0;
    sum += ns(r[i]);
  }
  CHECK(counter(s, "host.hybrid_sleeps") == 3);
  CHECK(double(counter(s, "host.hybrid_sleep_ps")) == Approx(expect_ps).margin(5));
  const auto& c = host(s)["cpu"][1];
  CHECK(c["ctxsw_ps"].get<uint64_t>() == 9 * kUs);
  CHECK(c["irq_ps"].get<uint64_t>() == 0);
  CHECK(counter(s, "host.interrupts_avoided") == 4);
  // Each read after the first: submit 1 us, sleep, switch back 3 us, then
  // checks until the CQE landed (one at least), reap 0.5 us.
  double mean = ns(r[0]);
  for (size_t i = 1; i < r.size(); ++i) {
    uint64_t woke = u64(r[i], "issue_ps") + 1 * kUs + uint64_t(std::llround(0.5 * mean * 1000.0)) + 3 * kUs;
    uint64_t landed = u64(r[i], "cq_post_end_ps");
    uint64_t reaped = woke + checks(woke, std::max(woke, landed)) * kPoll;
    CHECK(u64(r[i], "wakeup_end_ps") == Approx(double(reaped + kUs / 2)).margin(2));
    mean = (mean * double(i) + ns(r[i])) / double(i + 1);
  }
}

TEST_CASE("select_isr polls the attributed job and interrupts the other", "[host][polling]") {
  std::string dir = scratch("select-isr");
  auto s = run_traced(dir, "quick", with(kCosts, {{"host.nvme.completion", "select_isr"}}),
                      "[lc]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=10\ncpus_allowed=1\nworkload_attr=1\n"
                      "[tp]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=10\ncpus_allowed=1\n");
  auto r = rows(dir);
  REQUIRE(r.size() == 20);
  // SQ ids with 2 cores: 1-2 interrupt-driven, 3-4 the poll queues (core 1: 4).
  for (const auto& row : r) CHECK(row.at("sqid") == (row.at("job") == "lc" ? "4" : "2"));
  // Bring-up: 4 admin commands + (CQ + SQ) x 2 cores x 2 queue pairs = 12.
  CHECK(counter(s, "ssd.nvme.admin_commands") == 12);
  // One MSI-X per admin command and per tp read (QD1, no coalescing); none for lc.
  CHECK(counter(s, "ssd.nvme.msix_sent") == 12 + 10);
  CHECK(counter(s, "host.interrupts_avoided") == 10);
  // Core 1 ran the 10 ISRs of tp's reads: 10 x 2 us.
  CHECK(host(s)["cpu"][1]["irq_ps"].get<uint64_t>() == 20 * kUs);
  CHECK(host(s)["cpu"][1]["poll_ps"].get<uint64_t>() > 0);
}

TEST_CASE("dedcore leaves the job core idle while a dedicated core polls", "[host][polling]") {
  std::string dir = scratch("dedcore");
  auto s = run_traced(dir, "quick", with(kCosts, {{"host.cores", "3"}, {"host.nvme.completion", "dedcore"}}),
                      "[r]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=5\ncpus_allowed=1\n");
  auto r = rows(dir);
  REQUIRE(r.size() == 5);
  // Core 2 (the last, host.core.poll_core = -1) polls from bring-up's end
  // on: nothing but poll, reaping included.
  const auto& d = host(s)["cpu"][2];
  uint64_t el = d["elapsed_ps"].get<uint64_t>();
  CHECK(d["user_ps"].get<uint64_t>() + d["kernel_ps"].get<uint64_t>() + d["irq_ps"].get<uint64_t>() +
            d["ctxsw_ps"].get<uint64_t>() ==
        0);
  CHECK(d["poll_ps"].get<uint64_t>() + d["idle_ps"].get<uint64_t>() == el);
  CHECK(d["idle_ps"].get<uint64_t>() <= u64(r[0], "issue_ps"));  // idle only before the queues exist
  // Job core: 5 x (1 us submit + 0.3 us taking the queue's lock from the
  // polling core + 4 x 0.1 us taking the completion's lines in) kernel, 5 x
  // 3 us waking (ctxsw), no irq, no poll; idle while it waits.
  const auto& c = host(s)["cpu"][1];
  CHECK(c["kernel_ps"].get<uint64_t>() == 5 * (kUs + 700 * kNs));
  CHECK(c["ctxsw_ps"].get<uint64_t>() == 15 * kUs);
  CHECK(c["irq_ps"].get<uint64_t>() == 0);
  CHECK(c["poll_ps"].get<uint64_t>() == 0);
  CHECK(c["idle_ps"].get<uint64_t>() == el - 23500 * kNs);
  CHECK(counter(s, "host.interrupts_avoided") == 5);
  // Bring-up: 4 + (CQ + SQ) x 3 cores = 10 admin commands, 10 MSI-X: none for I/O.
  CHECK(counter(s, "ssd.nvme.msix_sent") == 10);
  // Each read: the dedicated core sees the CQE at its next 100 ns check
  // (counted from the end of its previous reap, at most one check late),
  // reaps 0.5 us, moves the lines over and hands the lock back (0.7 us),
  // then the job's core switches back in 3 us and takes the lines in (0.4 us).
  const uint64_t after = kUs / 2 + 700 * kNs + 3 * kUs + 400 * kNs;
  for (const auto& row : r) {
    uint64_t landed = u64(row, "cq_post_end_ps"), woke = u64(row, "wakeup_end_ps");
    CHECK(woke >= landed + after);
    CHECK(woke < landed + kPoll + after);
  }
}

TEST_CASE("fio hipri polls a poll queue in interrupt mode", "[host][polling]") {
  auto jobs = vp::host::parse_fio("[a]\nhipri\n[b]\nhipri=0\n", "test");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].hipri);
  CHECK_FALSE(jobs[1].hipri);
  CHECK(vp::host::parse_fio(jobs[0].to_fio(), "round trip")[0] == jobs[0]);
  auto s = run("quick", with(kCosts, {{"host.nvme.poll_queues", "on"}}),
               "[h]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=6\ncpus_allowed=1\nioengine=io_uring\nhipri=1\n");
  // 4 + (CQ + SQ) x 2 cores x 2 pairs = 12 admin commands, their 12 MSI-X
  // and none for the 6 polled reads.
  CHECK(counter(s, "ssd.nvme.msix_sent") == 12);
  CHECK(counter(s, "host.interrupts_avoided") == 6);
  CHECK(host(s)["cpu"][1]["irq_ps"].get<uint64_t>() == 0);
  CHECK(host(s)["cpu"][1]["ctxsw_ps"].get<uint64_t>() == 0);
  // 6 x (1 us submit + 0.5 us reap)
  CHECK(host(s)["cpu"][1]["kernel_ps"].get<uint64_t>() == 9 * kUs);
}

TEST_CASE("fio hipri without poll queues takes interrupts", "[host][polling]") {
  auto s = run("quick", kCosts, "[h]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=6\ncpus_allowed=1\nioengine=io_uring\nhipri=1\n");
  // As Linux: no poll queue, so the request is not polled. 8 admin + 6 reads.
  CHECK(counter(s, "ssd.nvme.msix_sent") == 8 + 6);
  CHECK(counter(s, "host.interrupts_avoided") == 0);
  CHECK(host(s)["cpu"][1]["irq_ps"].get<uint64_t>() == 6 * 2 * kUs);
}

TEST_CASE("polled completion refuses all-polled isolation, too few controller queues and a status in xler's SQ head",
          "[host][polling]") {
  // A core polls its own queues; rw_isolation sends its reads to others'.
  CHECK_THROWS_WITH(model_config("quick", {}, {{"host.nvme.completion", "poll"}, {"host.blkmq.rw_isolation", "on"}}),
                    Catch::Contains("host.blkmq.rw_isolation"));
  // select_isr with 4 cores: 4 + 4 poll SQs = 8 I/O queues, over 6.
  CHECK_THROWS_WITH(model_config("quick", {},
                                 {{"host.cores", "4"}, {"ssd.nvme.max_io_queues", "6"},
                                  {"host.nvme.completion", "select_isr"}}),
                    Catch::Contains("max_io_queues >= 8"));
  CHECK_NOTHROW(model_config("quick", {},
                             {{"host.cores", "4"}, {"ssd.nvme.max_io_queues", "8"}, {"host.nvme.completion", "select_isr"}}));
  // xler's accelerator reclaims SQ entries by the CQE's SQ head: FastDrain's status may not take it.
  CHECK_THROWS_WITH(model_config("quick", {},
                                 {{"host.nvme.completion", "xler"}, {"accel.enabled", "on"},
                                  {"ssd.nvme.buffer_status_field", "sq_head"}}),
                    Catch::Contains("host.nvme.completion") && Catch::Contains("ssd.nvme.buffer_status_field"));
  CHECK_NOTHROW(model_config("quick", {},
                             {{"host.nvme.completion", "xler"}, {"accel.enabled", "on"},
                              {"ssd.nvme.buffer_status_field", "dw0"}}));
  // dedcore needs a core for the jobs besides the polling one.
  CHECK_THROWS_WITH(model_config("quick", {}, {{"host.cores", "1"}, {"host.nvme.completion", "dedcore"}}),
                    Catch::Contains("host.cores >= 2"));
}
