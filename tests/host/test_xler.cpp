// SPDX-License-Identifier: BSD-3-Clause
// host.nvme.completion = xler: the I/O-stack accelerator's driver above
// blk-mq takes the latency-critical bios (FlashShare OSDI'18 sec. 4.3);
// timing worked out by hand from the parameters, counts of commands and
// interrupts, merges, and data through both paths.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
// Round costs on two cores (core 0 takes bring-up's admin interrupts, the
// jobs run on core 1); both links PCIe 3.0 x4 with 24-byte TLP overhead and
// 300 ns one way, host DRAM 60 ns.
Sets link_sets(const std::string& s) {
  return {{s + ".gen", "3"},           {s + ".lanes", "4"},          {s + ".tlp_overhead", "24B"},
          {s + ".max_payload", "256B"}, {s + ".rc_latency", "150ns"}, {s + ".link_latency", "150ns"},
          {s + ".switches", "0"}};
}
const Sets kXler = with(with(with(kRoundHostCosts, link_sets("pcie")), link_sets("accel.pcie")),
                        {{"host.cores", "2"},
                         {"host.dram.latency", "60ns"},
                         {"host.nvme.completion", "xler"},
                         {"accel.enabled", "on"}});

constexpr double kLinkBps = 8e9 * 4 * 128.0 / 130.0 / 8.0;  // PCIe 3.0 x4 after 128b/130b
double wire_ns(double bytes) { return bytes / kLinkBps * 1e9; }
constexpr double kOneWay = 300, kCycle = 4;  // ns; accel.clock 250 MHz

uint64_t counter(const nlohmann::json& s, const std::string& k) { return s["counters"][k].get<uint64_t>(); }
double stage(const nlohmann::json& job, const char* s) { return job["breakdown_us"]["read"][s].get<double>(); }

const char* kTwoJobs =
    "[lc]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=10\ncpus_allowed=1\nworkload_attr=1\nthinktime=200\n"
    "[tp]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=10\ncpus_allowed=1\nthinktime=200\n";
}  // namespace

TEST_CASE("xler without the accelerator, or with more cores than its queues, stops naming the keys",
          "[host][xler]") {
  Shell a = shell(std::string(VP_SERVER_BIN) + " --preset quick --set host.nvme.completion=xler --print-config");
  CHECK(a.status == 2);
  CHECK_THAT(a.out, Catch::Contains("host.nvme.completion") && Catch::Contains("accel.enabled"));
  Shell b = shell(std::string(VP_SERVER_BIN) +
                  " --preset quick --set host.nvme.completion=xler --set accel.enabled=on --set host.cores=16"
                  " --set ssd.nvme.max_io_queues=64 --print-config");
  CHECK(b.status == 2);
  CHECK_THAT(b.out, Catch::Contains("host.cores") && Catch::Contains("15"));
}

TEST_CASE("an attributed read goes through the accelerator, stage by stage, and the other through blk-mq",
          "[host][xler]") {
  std::string dir = scratch("xler-stages");
  auto s = run_traced(dir, "quick", kXler, kTwoJobs);
  auto rows = csv_rows(dir + "/requests.csv");
  REQUIRE(rows.size() == 20);
  // SQ ids with 2 cores: 1-2 interrupt driven, 3-4 select_isr's poll
  // queues, 5-6 the accelerator's (core 1: 6).
  for (const auto& r : rows) CHECK(r.at("sqid") == (r.at("job") == "lc" ? "6" : "2"));
  const auto& lc = s["jobs"][0];
  REQUIRE(lc["name"] == "lc");
  // The CPU hands the bio over: host.accel.submit_cost; no blk-mq, no driver queue.
  const double tol = 0.002;
  CHECK(stage(lc, "host_submit") == Approx(0.5).margin(tol));
  CHECK(stage(lc, "blk_mq") == 0.0);
  CHECK(stage(lc, "driver_queue") == 0.0);
  CHECK(stage(lc, "sq_wait") == 0.0);
  // Go write to the SSD's fetch: eight posted 8-byte register writes down
  // the accelerator's link (the go is the last), the latch (1 cycle), the
  // segment list's 16 bytes read from host DRAM (request up, 60 ns, data
  // down), CAM search and compose (2 + 8 cycles), the doorbell up the
  // accelerator's link and down the SSD's.
  double accel = 8 * wire_ns(8 + 24) + kOneWay + 1 * kCycle + wire_ns(24) + kOneWay + 60 + wire_ns(16 + 24) + kOneWay +
                 (2 + 8) * kCycle + 2 * (wire_ns(4 + 24) + kOneWay);
  CHECK(stage(lc, "accel") * 1e3 == Approx(accel).margin(2));
  // The SSD fetches the command from the accelerator's BAR, peer to peer:
  // the request up its link and down the accelerator's, 64 bytes back.
  double fetch = 2 * (wire_ns(24) + kOneWay) + 2 * (wire_ns(64 + 24) + kOneWay);
  CHECK(stage(lc, "fetch") * 1e3 == Approx(fetch).margin(2));
  // Entry landed to bio completed: the CQ logic's 2 cycles, MSI-X up the
  // accelerator's link, the 2 us ISR with one read of the queue's
  // completion register (a round trip), 0.5 us to complete the bio.
  double irq = 2 * kCycle + wire_ns(4 + 24) + kOneWay + (wire_ns(24) + kOneWay + wire_ns(8 + 24) + kOneWay) + 2000 + 500;
  CHECK(stage(lc, "interrupt") * 1e3 == Approx(irq).margin(2));
  const auto& tp = s["jobs"][1];
  CHECK(stage(tp, "accel") == 0.0);
  CHECK(stage(tp, "host_submit") == Approx(1.0).margin(tol));  // submit_cost; blk-mq dispatches at once, free

  // Bring-up: 4 admin commands + (CQ + SQ) x 2 cores x 3 queue pairs = 16,
  // each with an MSI-X from the SSD; tp's reads interrupt too, lc's never
  // (the accelerator's CQs have none): the accelerator sends one per bio.
  CHECK(counter(s, "ssd.nvme.admin_commands") == 16);
  CHECK(counter(s, "ssd.nvme.msix_sent") == 16 + 10);
  CHECK(counter(s, "accel.msix_sent") == 10);
  CHECK(counter(s, "accel.commands") == 10);
  CHECK(counter(s, "host.accel.bios") == 10);
  CHECK(counter(s, "host.accel.done_reads") == 10);  // the value says whether more wait: one read per bio
  CHECK(drive(s)["device"]["read_commands"] == 20);
  CHECK(counter(s, "host.blkmq.dispatches") == 10);
  // Core 1: kernel = 10 x (0.5 + 0.5) for lc + 10 x (1 + 0.5) for tp; irq =
  // 20 ISRs of 2 us plus lc's 10 register reads, the core stalled on each.
  const auto& c = host(s)["cpu"][1];
  CHECK(c["kernel_ps"].get<uint64_t>() == 25000000);
  double reads = 10 * (wire_ns(24) + kOneWay + wire_ns(8 + 24) + kOneWay);
  CHECK(c["irq_ps"].get<double>() / 1e3 == Approx(40000 + reads).margin(10));
}

TEST_CASE("the accelerator's step costs move its stages by exactly their time", "[host][xler]") {
  const char* fio = "[lc]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=20\nworkload_attr=1\nthinktime=200\ncpus_allowed=1\n";
  auto base = run_server("xler-base", "quick", kXler, fio);
  // +250 cycles at 250 MHz = +1 us in compose and in the CQ logic's
  // detection; the driver's submit cost +1 us.
  auto slow = run_server("xler-slow", "quick",
                         with(kXler, {{"accel.compose_cycles", "258"},
                                      {"accel.poll_cycles", "252"},
                                      {"host.accel.submit_cost", "1.5us"}}),
                         fio);
  const auto &b = base["jobs"][0], &d = slow["jobs"][0];
  CHECK(stage(d, "host_submit") - stage(b, "host_submit") == Approx(1.0).margin(1e-6));
  CHECK(stage(d, "accel") - stage(b, "accel") == Approx(1.0).margin(1e-6));
  CHECK(stage(d, "interrupt") - stage(b, "interrupt") == Approx(1.0).margin(1e-6));
  for (const char* same : {"fetch", "firmware", "flash", "data_dma", "cq_post", "wakeup"})
    CHECK(stage(d, same) == Approx(stage(b, same)).margin(1e-6));
}

TEST_CASE("adjacent bios merge in the accelerator, and data crosses both paths intact", "[host][xler][integrity]") {
  // Latency-critical writes in batches of 8 adjacent 4 KiB bios, read back
  // through blk-mq; then blk-mq's writes read back through the accelerator.
  std::string dir = scratch("xler-merge");
  auto s = run_traced(dir, "quick", kXler,
                      "[global]\nverify=1\ncpus_allowed=1\nsize=512k\n"
                      "[w_lc]\ndirect=1\nrw=write\nbs=4k\niodepth=8\niodepth_batch_submit=8\nworkload_attr=1\n"
                      "[r_tp]\ndirect=1\nstonewall\nrw=read\nbs=16k\niodepth=4\n"
                      "[w_tp]\ndirect=1\nstonewall\nrw=write\nbs=8k\noffset=512k\niodepth=4\n"
                      "[r_lc]\ndirect=1\nstonewall\nrw=read\nbs=4k\noffset=512k\niodepth=8\niodepth_batch_submit=8\n"
                      "workload_attr=1\n");
  INFO(host(s)["verify"].dump());
  // 2 x 512 KiB = 256 blocks written, each read back once.
  CHECK(host(s)["verify"]["mismatches"].get<uint64_t>() == 0);
  CHECK(host(s)["verify"]["blocks_checked"].get<uint64_t>() == 256);
  for (const auto& j : s["jobs"]) CHECK(j["errors"].get<uint64_t>() == 0);
  const uint64_t bios = counter(s, "accel.bios"), merges = counter(s, "accel.merges");
  CHECK(bios == 128 + 128);
  CHECK(merges > 0);
  CHECK(counter(s, "accel.commands") + merges == bios);
  // What reached the SSD: the accelerator's commands and blk-mq's 32 + 64.
  const uint64_t blk = 32 + 64 - counter(s, "host.blkmq.back_merges") - counter(s, "host.blkmq.front_merges");
  CHECK(drive(s)["device"]["read_commands"].get<uint64_t>() + drive(s)["device"]["write_commands"].get<uint64_t>() ==
        counter(s, "accel.commands") + blk);
  // Bios a merged command carried share its serial number in requests.csv.
  std::map<std::string, int> per_command;
  for (const auto& r : csv_rows(dir + "/requests.csv"))
    if (r.at("job") == "w_lc" || r.at("job") == "r_lc") ++per_command[r.at("commands")];
  uint64_t shared = 0;
  for (const auto& [cmd, n] : per_command) shared += n - 1;
  CHECK(shared == merges);
}

TEST_CASE("host.accel.completion=poll: the thread spins on the accelerator's register, no interrupt",
          "[host][xler]") {
  std::string dir = scratch("xler-poll");
  const char* fio = "[lc]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=10\ncpus_allowed=1\nworkload_attr=1\nthinktime=200\n";
  auto s = run_traced(dir, "quick", with(kXler, {{"host.accel.completion", "poll"}}), fio);
  auto rows = csv_rows(dir + "/requests.csv");
  REQUIRE(rows.size() == 10);
  // The thread starts spinning when its submission ends; each check of the
  // status register takes host.accel.poll_check_cost (700 ns), and the one
  // under way when the CQ logic has the bio (2 cycles after the SSD's
  // entry lands) runs to its end. Then one read of DONE_Q pops the bio (a
  // round trip on the accelerator's link) and 0.5 us completes it.
  const double rtt = wire_ns(24) + kOneWay + wire_ns(8 + 24) + kOneWay;
  uint64_t checks = 0;
  for (const auto& r : rows) {
    const double spin0 = std::stod(r.at("host_submit_end_ps")) / 1e3;
    const double seen = std::stod(r.at("cq_post_end_ps")) / 1e3 + 2 * kCycle;
    const auto n = static_cast<uint64_t>(std::ceil((seen - spin0) / 700.0));
    checks += n;
    CHECK(std::stod(r.at("interrupt_end_ps")) / 1e3 == Approx(spin0 + n * 700.0 + rtt + 500).margin(0.01));
    CHECK(r.at("wakeup_end_ps") == r.at("interrupt_end_ps"));  // the thread never slept
  }
  CHECK(counter(s, "host.polls") == checks);
  CHECK(counter(s, "accel.msix_sent") == 0);
  CHECK(counter(s, "accel.interrupts") == 0);
  CHECK(counter(s, "host.accel.done_reads") == 10);
  // Core 1's poll time: every check, plus the ten reads it stalled on.
  CHECK(host(s)["cpu"][1]["poll_ps"].get<double>() / 1e3 == Approx(checks * 700.0 + 10 * rtt).margin(0.01));
}

TEST_CASE("host.accel.poll_check_cost of 0 is refused naming the key", "[host][xler]") {
  Shell a = shell(std::string(VP_SERVER_BIN) +
                  " --preset quick --set host.nvme.completion=xler --set accel.enabled=on"
                  " --set host.accel.completion=poll --set host.accel.poll_check_cost=0ns --print-config");
  CHECK(a.status == 2);
  CHECK_THAT(a.out, Catch::Contains("host.accel.poll_check_cost"));
}
