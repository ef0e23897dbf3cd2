// SPDX-License-Identifier: BSD-3-Clause
// The drive platform (vp-drive): the drive of vp-server behind the same
// NVMe driver and link, with no host above the queues. An I/O's latency is
// the device-side stages of the server's, worked out by hand from the same
// round figures (IdleDevice.hpp), with no host time around them.
#include <catch2/catch.hpp>

#include "tests/platform/IdleDevice.hpp"

using namespace vp::test;

namespace {
// The device-side stages of one 4 KiB read on the idle zssd drive (as in
// test_latency.cpp), in us.
struct IdleRead {
  double sq_wait = (wire_ns(4 + 24) + 300) / 1e3;  // doorbell: posted write + one-way latency
  double fetch = (wire_ns(24) + 300 + 60 + wire_ns(64 + 24) + 300) / 1e3;
  double firmware = (400 + 2 * (160 + 80)) / 800.0;
  double flash = (kMapNs + 35 + 3000 + 2048 / 0.8) / 1e3;
  double dma = (kStageMissNs + kStageHitNs + wire_ns(4096 + 16 * 24) + 300) / 1e3;
  double cq_post = wire_ns(16 + 24) / 1e3;
  double msi = wire_ns(4 + 24) / 1e3;  // the MSI-X write behind the CQE; handled in no time
  double device() const { return sq_wait + fetch + firmware + flash + dma + cq_post; }
};

void check_device_stages(const nlohmann::json& b, const IdleRead& r) {
  const double tol = 0.002;  // 2 ns: ps rounding of each wire time
  CHECK(b["host_submit"].get<double>() == Approx(0).margin(tol));
  CHECK(b["blk_mq"].get<double>() == Approx(0).margin(tol));
  CHECK(b["driver_queue"].get<double>() == Approx(0).margin(tol));
  CHECK(b["sq_wait"].get<double>() == Approx(r.sq_wait).margin(tol));
  CHECK(b["fetch"].get<double>() == Approx(r.fetch).margin(tol));
  CHECK(b["firmware"].get<double>() == Approx(r.firmware).margin(tol));
  CHECK(b["flash"].get<double>() == Approx(r.flash).margin(tol));
  CHECK(b["data_dma"].get<double>() == Approx(r.dma).margin(tol));
  CHECK(b["cq_post"].get<double>() == Approx(r.cq_post).margin(tol));
  CHECK(b["wakeup"].get<double>() == Approx(0).margin(tol));
}
}  // namespace

TEST_CASE("vp-drive: a 4 KiB read on an idle drive takes the device's stages and the MSI-X, no host time",
          "[platform][drive][latency]") {
  auto s = run_drive("zssd", drive_keys(kIdle), "[idle]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=10\nthinktime=200\n");
  CHECK(s["platform"] == "drive");
  CHECK_FALSE(host(s).contains("cpu"));  // no host cores
  CHECK(s["stage_order_violations"].get<uint64_t>() == 0);
  const auto& job = s["jobs"][0];
  REQUIRE(job["reads"] == 10);
  IdleRead r;
  check_device_stages(job["breakdown_us"]["read"], r);
  CHECK(job["breakdown_us"]["read"]["interrupt"].get<double>() == Approx(r.msi).margin(0.002));
  // vp-server's 18.2875 us less its host time: submit 1, ISR 2, reaping
  // 0.5, wake-up 3 = 11.7875 us.
  const double total = r.device() + r.msi;
  CHECK(total == Approx(11.7875).margin(0.001));
  const auto& lat = job["latency_us"]["read"];
  CHECK(lat["min"].get<double>() == Approx(total).margin(0.01));
  CHECK(lat["max"].get<double>() == Approx(total).margin(0.01));
}

TEST_CASE("vp-drive: with polled completions a read ends when its CQ entry lands", "[platform][drive][latency]") {
  auto s = run_drive("zssd", with(drive_keys(kIdle), {{"host.nvme.completion", "poll"}}),
                     "[idle]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=10\nthinktime=200\n");
  const auto& job = s["jobs"][0];
  REQUIRE(job["reads"] == 10);
  IdleRead r;
  check_device_stages(job["breakdown_us"]["read"], r);
  CHECK(job["breakdown_us"]["read"]["interrupt"].get<double>() == Approx(0).margin(0.002));
  CHECK(s["counters"]["host.irq.delivered"].get<uint64_t>() <= 20);  // bring-up's admin commands only
  const auto& lat = job["latency_us"]["read"];
  CHECK(lat["max"].get<double>() == Approx(r.device()).margin(0.01));  // 11.7804 us
}

TEST_CASE("vp-drive: at queue depth 1 a job's I/Os follow each other with no gap", "[platform][drive]") {
  // 50 reads back to back on the idle drive: the job's run time is 50
  // latencies of 11.7875 us, so its IOPS is 1e6 / 11.7875 = 84,836.
  auto s = run_drive("zssd", drive_keys(kIdle), "[qd1]\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nnumber_ios=50\n");
  const auto& job = s["jobs"][0];
  REQUIRE(job["reads"] == 50);
  CHECK(job["latency_us"]["read"]["mean"].get<double>() == Approx(11.7875).margin(0.01));
  CHECK(job["iops"].get<double>() == Approx(1e6 / 11.7875).epsilon(1e-3));
  CHECK(job["runtime_s"].get<double>() == Approx(50 * 11.7875e-6).epsilon(1e-3));
}

TEST_CASE("vp-drive: a rate-limited job issues on its schedule", "[platform][drive]") {
  // rate_iops=20000: an I/O every 50 us, 100 of them; the last is issued
  // 99 x 50 = 4,950 us after the first and takes 11.7875 us.
  auto s = run_drive("zssd", drive_keys(kIdle), "[rate]\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=100\nrate_iops=20000\n");
  const auto& job = s["jobs"][0];
  REQUIRE(job["reads"] == 100);
  CHECK(job["runtime_s"].get<double>() == Approx((4950 + 11.7875) * 1e-6).epsilon(1e-4));
  CHECK(job["latency_us"]["read"]["max"].get<double>() == Approx(11.7875).margin(0.01));  // never queued
}

TEST_CASE("vp-drive: data written reads back intact through GC, on two queues with PRP lists",
          "[platform][drive][integrity]") {
  // A full, aged quick drive: 16 KiB and 4 KiB random writes from two jobs
  // on two queue pairs make GC move pages; then both regions are read back.
  auto s = run_drive("quick", {{"ssd.precondition.fill", "1"}, {"ssd.precondition.age", "2"}},
                     "[global]\ndirect=1\nverify=1\nsize=4m\n"
                     "[a]\nrw=randwrite\nbs=16k\niodepth=8\nnumber_ios=2500\ncpus_allowed=0\n"
                     "[b]\nrw=randwrite\nbs=4k\noffset=4m\niodepth=16\nnumber_ios=8000\ncpus_allowed=1\n"
                     "[ra]\nstonewall\nrw=read\nbs=16k\niodepth=4\n"
                     "[rb]\nrw=read\nbs=16k\noffset=4m\niodepth=4\n");
  INFO(host(s)["verify"].dump());
  CHECK(host(s)["verify"]["mismatches"].get<uint64_t>() == 0);
  // Both 4 MiB regions are read back: 2,048 blocks of 4 KiB, every one
  // written; those whose last writes overlapped in flight have no known
  // content and are not judged (a few dozen at these depths).
  CHECK(host(s)["verify"]["blocks_checked"].get<uint64_t>() > 1900);
  CHECK(host(s)["verify"]["blocks_checked"].get<uint64_t>() <= 2048);
  CHECK(s["jobs"][2]["reads"] == 256);
  CHECK(s["jobs"][3]["reads"] == 256);
  for (const auto& j : s["jobs"]) CHECK(j["errors"].get<uint64_t>() == 0);
  CHECK(drive(s)["ftl"]["gc_pages_moved"].get<uint64_t>() > 10000);
  // No blk-mq to merge them: a command per I/O.
  CHECK(s["counters"]["host.nvme.io_submitted"].get<uint64_t>() == 2500 + 8000 + 256 + 256);
}

TEST_CASE("vp-drive: what needs a host is refused, naming the option or key", "[platform][drive][cli]") {
  const std::string bin = VP_DRIVE_BIN, dir = scratch("drive_refusals");
  auto refused = [&](const std::string& args) {
    Shell sh = shell(bin + " --preset quick " + args + " --out " + dir + "/out");
    INFO(sh.out);
    CHECK(sh.status == 2);
    return sh.out;
  };
  std::string o = refused("--set workload.randread.direct=0");
  CHECK(o.find("option 'direct'") != std::string::npos);
  CHECK(o.find("page cache") != std::string::npos);
  o = refused("--set host.nvme.completion=select_isr");
  CHECK(o.find("host.nvme.completion") != std::string::npos);
  o = refused("--set workload.randread.bs=256k");
  CHECK(o.find("ssd.nvme.mdts = 5") != std::string::npos);
  o = refused("--set workload.randread.app=ap");
  CHECK(o.find("host core") != std::string::npos);
  // The keys of vp-server's host parts are not vp-drive's: refused from the user, left out of presets.
  o = refused("--set host.core.submit_cost=1us");
  CHECK(o.find("'host.core.submit_cost'") != std::string::npos);
  CHECK(o.find("vp-drive does not have") != std::string::npos);
  o = refused("--set host.blkmq.rw_isolation=on");
  CHECK(o.find("'host.blkmq.rw_isolation'") != std::string::npos);
  Shell params = shell(bin + " --list-params");
  CHECK(params.out.find("host.nvme.queue_depth") != std::string::npos);
  CHECK(params.out.find("\nhost.core.") == std::string::npos);  // as a key, at the start of a line
  CHECK(params.out.find("\nhost.blkmq.") == std::string::npos);
  CHECK(params.out.find("\naccel.") == std::string::npos);
}

TEST_CASE("vp-drive: the binary runs a preset and writes vp-server's outputs", "[platform][drive][cli]") {
  const std::string dir = scratch("drive_cli");
  Shell sh = shell(std::string(VP_DRIVE_BIN) + " --preset quick --trace requests --out " + dir + "/out");
  INFO(sh.out);
  REQUIRE(sh.status == 0);
  CHECK(sh.out.find("FlashVP drive:") != std::string::npos);
  auto s = nlohmann::json::parse(slurp(dir + "/out/summary.json"));
  CHECK(s["platform"] == "drive");
  CHECK(s["jobs"][0]["reads"] == 2000);
  CHECK(csv_rows(dir + "/out/requests.csv").size() == 2000);
  CHECK(slurp(dir + "/out/config.yaml").find("host:") != std::string::npos);
}
