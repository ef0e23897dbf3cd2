// SPDX-License-Identifier: BSD-3-Clause
// Which firmware core takes a command: per_sq (static queue allocation, the
// baseline of DeepFlash FAST'20 section 4.1) against dios (dynamic I/O
// serialization, section 5.1). The firmware is bound to an FTL that answers
// every request a fixed time later, and commands are submitted directly at
// chosen times, so every issue time is exact.
//
// Task time at the default costs (800 MHz, parse 400, lookup 160, issue 80
// cycles): (400 + pages x 240) cycles / 0.8 GHz
//   0 pages (flush)  400 cycles =  500 ns
//   1 page           640 cycles =  800 ns
//   2 pages          880 cycles = 1100 ns
//   4 pages         1360 cycles = 1700 ns
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <systemc>
#include <vector>

#include "tests/ModelRig.hpp"
#include "tests/VcdChanges.hpp"
#include "vp/ssd/firmware/Firmware.hpp"
#include "vp/ssd/ftl/PageMappingFtl.hpp"

using namespace vp;
using namespace vp::test;

namespace {

constexpr Tick kNs = 1000;
constexpr uint32_t kPage = 4096;
constexpr Tick kFtlTime = 10'000 * kNs;

// An FTL that completes every request kFtlTime after it was submitted.
class FixedFtl : public sc_core::sc_module, public ssd::IFtl {
 public:
  explicit FixedFtl(sc_core::sc_module_name name) : sc_module(name), eq_("eq") {}
  void submit(ssd::FtlRequest& r) override {
    ++requests;
    eq_.after(kFtlTime, [&r] { r.client->ftl_done(r); });
  }
  uint64_t logical_pages() const override { return 1u << 20; }
  uint32_t page_size() const override { return kPage; }
  ssd::MediaHealth health() const override { return {}; }
  uint64_t requests = 0;

 private:
  EventQueue eq_;
};

// Records when firmware issued each command and when it was done, by slot.
struct Recorder : ssd::FirmwareClient {
  std::map<uint32_t, Tick> issued, done;
  void firmware_issued(ssd::HostCommand& c) override { issued[c.slot] = now_ps(); }
  void firmware_done(ssd::HostCommand& c) override { done[c.slot] = now_ps(); }
};

struct Cmd {
  Tick at;
  uint16_t sqid;
  uint32_t pages;  // 0: a flush
};

struct Rig : ModelServices {
  explicit Rig(const Sets& sets, const std::string& vcd = "")
      : ModelServices(model_config("", {}, sets)),
        traced_(open(vcd)),
        ftl("ftl"),
        fw("fw", svc, ssd::PageMappingFtl::shard_map_from(ScopedConfig(svc.cfg, ssd::PageMappingFtl::kScope))) {
    fw.ftl.bind(ftl);
  }

  // Submits `cmds` (in time order) at their times, simulates until all is done.
  void run(const std::vector<Cmd>& cmds) {
    hc.resize(cmds.size());
    for (size_t i = 0; i < cmds.size(); ++i) {
      hc[i].op = cmds[i].pages ? ssd::IoOp::Read : ssd::IoOp::Flush;
      hc[i].byte_offset = uint64_t(i) * 16 * kPage;
      hc[i].bytes = cmds[i].pages * kPage;
      hc[i].sqid = cmds[i].sqid;
      hc[i].client = &rec;
      hc[i].slot = static_cast<uint32_t>(i);
    }
    submit_in_time(cmds.size(), [cmds](size_t i) { return cmds[i].at; }, [this](size_t i) { fw.submit(hc[i]); });
    waves.close();
    REQUIRE(rec.done.size() == cmds.size());
  }
  Tick issued_ns(uint32_t slot) { return rec.issued.at(slot) / kNs; }
  Tick done_ns(uint32_t slot) { return rec.done.at(slot) / kNs; }


 private:
  bool open(const std::string& vcd) {
    if (vcd.empty()) return false;
    waves.open(vcd);
    return true;
  }
  bool traced_;

 public:
  FixedFtl ftl;
  ssd::Firmware fw;
  Recorder rec;
  std::vector<ssd::HostCommand> hc;
};


}  // namespace

TEST_CASE("firmware defaults to one core serving every SQ in arrival order", "[ssd][firmware]") {
  Rig rig(Sets{});
  CHECK(rig.fw.cores() == 1);
  CHECK(rig.fw.dispatch() == ssd::Firmware::Dispatch::PerSq);
  CHECK(rig.fw.layered_time(1) == 800 * kNs);
  rig.run({{0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {5000 * kNs, 2, 2}});
  // One core, first come first served: 800, 1600, 2400 ns; the fourth
  // arrives at 5 us to an idle core and takes 1100 ns: 6100 ns.
  CHECK(rig.issued_ns(0) == 800);
  CHECK(rig.issued_ns(1) == 1600);
  CHECK(rig.issued_ns(2) == 2400);
  CHECK(rig.issued_ns(3) == 6100);
  // The FTL answers 10 us after the issue.
  CHECK(rig.done_ns(0) == 10'800);
  CHECK(rig.done_ns(3) == 16'100);
  // 3 x 800 + 1100 = 3500 ns busy.
  CHECK(rig.stat("ssd.fw.busy_ps") == 3500 * kNs);
  CHECK(rig.stat("ssd.fw.core0.busy_ps") == 3500 * kNs);
  CHECK(rig.stat("ssd.fw.core0.items") == 4);
  CHECK(rig.stat("ssd.fw.commands") == 4);
  CHECK(rig.stats.find("ssd.fw.core1.busy_ps") == nullptr);
  CHECK(rig.ftl.requests == 4);
}

TEST_CASE("per_sq dispatch serializes one SQ on its core while the other core idles", "[ssd][firmware]") {
  Rig rig(Sets{{"ssd.fw.cores", "2"}, {"ssd.fw.dispatch", "per_sq"}});
  rig.run({{0, 1, 1}, {0, 1, 1}, {0, 1, 1}, {0, 1, 1}});
  // SQ 1 -> core (1 - 1) mod 2 = 0 for all four: T, 2T, 3T, 4T with T = 800 ns.
  CHECK(rig.issued_ns(0) == 800);
  CHECK(rig.issued_ns(1) == 1600);
  CHECK(rig.issued_ns(2) == 2400);
  CHECK(rig.issued_ns(3) == 3200);
  CHECK(rig.stat("ssd.fw.core0.busy_ps") == 3200 * kNs);
  CHECK(rig.stat("ssd.fw.core1.busy_ps") == 0);
  CHECK(rig.stat("ssd.fw.core0.items") == 4);
  CHECK(rig.stat("ssd.fw.core1.items") == 0);
  CHECK(rig.stat("ssd.fw.busy_ps") == 3200 * kNs);
}

TEST_CASE("dios dispatch lets both cores serve one SQ", "[ssd][firmware]") {
  Rig rig(Sets{{"ssd.fw.cores", "2"}, {"ssd.fw.dispatch", "dios"}});
  rig.run({{0, 1, 1}, {0, 1, 1}, {0, 1, 1}, {0, 1, 1}});
  // Cores 0 and 1 take the first two (T, T), then the next two as they free (2T, 2T).
  CHECK(rig.issued_ns(0) == 800);
  CHECK(rig.issued_ns(1) == 800);
  CHECK(rig.issued_ns(2) == 1600);
  CHECK(rig.issued_ns(3) == 1600);
  CHECK(rig.done_ns(3) == 11'600);
  CHECK(rig.stat("ssd.fw.core0.busy_ps") == 1600 * kNs);
  CHECK(rig.stat("ssd.fw.core1.busy_ps") == 1600 * kNs);
  CHECK(rig.stat("ssd.fw.core0.items") == 2);
  CHECK(rig.stat("ssd.fw.core1.items") == 2);
  // The same work as per_sq: 4 x 800 ns.
  CHECK(rig.stat("ssd.fw.busy_ps") == 3200 * kNs);
}

TEST_CASE("per_sq dispatch binds SQs 1 and 3 to core 0 and SQs 2 and 4 to core 1", "[ssd][firmware]") {
  Rig rig(Sets{{"ssd.fw.cores", "2"}, {"ssd.fw.dispatch", "per_sq"}});
  // All at t = 0: SQ 1, SQ 3, SQ 2, SQ 4 (one page each), then a flush from sqid 0.
  rig.run({{0, 1, 1}, {0, 3, 1}, {0, 2, 1}, {0, 4, 1}, {0, 0, 0}});
  // Core 0: SQ 1 (0-800), SQ 3 ((3-1) mod 2 = 0: 800-1600), sqid 0 flush (1600-2100).
  CHECK(rig.issued_ns(0) == 800);
  CHECK(rig.issued_ns(1) == 1600);
  CHECK(rig.issued_ns(4) == 2100);
  // Core 1: SQ 2 (0-800), SQ 4 ((4-1) mod 2 = 1: 800-1600).
  CHECK(rig.issued_ns(2) == 800);
  CHECK(rig.issued_ns(3) == 1600);
  CHECK(rig.stat("ssd.fw.core0.busy_ps") == 2100 * kNs);  // 800 + 800 + 500
  CHECK(rig.stat("ssd.fw.core1.busy_ps") == 1600 * kNs);  // 800 + 800
  CHECK(rig.stat("ssd.fw.core0.items") == 3);
  CHECK(rig.stat("ssd.fw.core1.items") == 2);
  CHECK(rig.stat("ssd.fw.busy_ps") == 3700 * kNs);
}

TEST_CASE("dios dispatch gives a command to the core that can start it first with ties to the lowest index",
          "[ssd][firmware]") {
  Rig rig(Sets{{"ssd.fw.cores", "3"}, {"ssd.fw.dispatch", "dios"}});
  rig.run({{0, 1, 4},          // A: core 0, 0-1700
           {0, 2, 1},          // B: core 1, 0-800
           {0, 1, 1},          // C: core 2, 0-800
           {100 * kNs, 3, 1},  // D: cores 1 and 2 both free at 800: core 1, 800-1600
           {900 * kNs, 1, 1},  // E: core 2 idle since 800 starts at 900 (core 1 at 1600): 900-1700
           {900 * kNs, 2, 1},  // F: core 0 at 1700, core 1 at 1600, core 2 at 1700: core 1, 1600-2400
           {1000 * kNs, 3, 1}, // G: core 0 at 1700, core 1 at 2400, core 2 at 1700: core 0, 1700-2500
           {3000 * kNs, 1, 1}} // H: all idle (since 2500, 2400, 1700): all start at 3000, core 0, 3000-3800
  );
  CHECK(rig.issued_ns(0) == 1700);
  CHECK(rig.issued_ns(1) == 800);
  CHECK(rig.issued_ns(2) == 800);
  CHECK(rig.issued_ns(3) == 1600);
  CHECK(rig.issued_ns(4) == 1700);
  CHECK(rig.issued_ns(5) == 2400);
  CHECK(rig.issued_ns(6) == 2500);
  CHECK(rig.issued_ns(7) == 3800);
  CHECK(rig.stat("ssd.fw.core0.busy_ps") == 3300 * kNs);  // A, G, H: 1700 + 800 + 800
  CHECK(rig.stat("ssd.fw.core1.busy_ps") == 2400 * kNs);  // B, D, F
  CHECK(rig.stat("ssd.fw.core2.busy_ps") == 1600 * kNs);  // C, E
  CHECK(rig.stat("ssd.fw.core0.items") == 3);
  CHECK(rig.stat("ssd.fw.core1.items") == 3);
  CHECK(rig.stat("ssd.fw.core2.items") == 2);
  CHECK(rig.stat("ssd.fw.busy_ps") == 7300 * kNs);  // 1700 + 7 x 800
}

TEST_CASE("the waveform has a busy flag per firmware core", "[ssd][firmware][vcd]") {
  std::string dir = scratch("fw-dispatch-vcd");
  {
    Rig rig(Sets{{"ssd.fw.cores", "2"}, {"ssd.fw.dispatch", "dios"}}, dir + "/waves");
    // Three one-page commands of SQ 1 at 1 us: core 0 runs 1000-1800 and
    // 1800-2600 back to back, core 1 runs 1000-1800.
    rig.run({{1000 * kNs, 1, 1}, {1000 * kNs, 1, 1}, {1000 * kNs, 1, 1}});
  }
  std::string vcd = slurp(dir + "/waves.vcd");
  REQUIRE(!vcd.empty());
  std::set<std::string> names;
  for (const auto& s : vcd_signals(vcd)) names.insert(s.first);
  CHECK(names.count("ssd.fw.core1.busy"));
  CHECK(!names.count("ssd.fw.core2.busy"));
  using Changes = std::vector<std::pair<uint64_t, std::string>>;
  CHECK(vcd_changes_ns(vcd, "ssd.fw.core0.busy") == Changes{{0, "0"}, {1000, "1"}, {2600, "0"}});
  CHECK(vcd_changes_ns(vcd, "ssd.fw.core1.busy") == Changes{{0, "0"}, {1000, "1"}, {1800, "0"}});
}

namespace {
// A firmware-bound platform: parsing a command costs 40,000 cycles, so a
// 4 KiB read (two 2 KB pages) holds a core for (40000 + 2 x 240) cycles /
// 0.8 GHz = 50.6 us, far more than the flash or the host need per read. One
// job on host core 0 submits through SQ 1 only.
nlohmann::json firmware_bound_run(const std::string& dispatch) {
  return run("quick", {{"ssd.fw.cost.parse", "40000"}, {"ssd.fw.cores", "2"}, {"ssd.fw.dispatch", dispatch}},
             "[r]\ndirect=1\nrw=randread\nbs=4k\niodepth=8\nnumber_ios=2000\ncpus_allowed=0\n");
}
constexpr double kTaskUs = 50.6;
}  // namespace

TEST_CASE("with two firmware cores per_sq leaves one SQ's reads to one core in a platform run",
          "[ssd][firmware][platform]") {
  auto s = firmware_bound_run("per_sq");
  const auto& c = s["counters"];
  // Every read went to core 0: 2000 x 50.6 us of work on it, none on core 1.
  CHECK(c["ssd.fw.core0.items"].get<uint64_t>() == 2000);
  CHECK(c["ssd.fw.core0.busy_ps"].get<uint64_t>() == 2000ull * 50'600'000);
  CHECK(c["ssd.fw.core1.busy_ps"].get<uint64_t>() == 0);
  // So the rate is one core's: 1 / 50.6 us = 19,763 IOPS.
  double iops = s["jobs"][0]["iops"].get<double>();
  CHECK(iops <= 1e6 / kTaskUs * 1.0001);
  CHECK(iops == Approx(1e6 / kTaskUs).epsilon(0.002));
}

TEST_CASE("with two firmware cores dios doubles one SQ's read rate in a platform run", "[ssd][firmware][platform]") {
  auto s = firmware_bound_run("dios");
  const auto& c = s["counters"];
  // The same 2000 x 50.6 us of work, shared by both cores.
  uint64_t c0 = c["ssd.fw.core0.items"].get<uint64_t>(), c1 = c["ssd.fw.core1.items"].get<uint64_t>();
  // The queue never empties and every task is as long, so the cores take
  // turns: core 0 the 1st, 3rd, ... command, core 1 the 2nd, 4th, ...
  CHECK(c0 == 1000);
  CHECK(c1 == 1000);
  CHECK(c["ssd.fw.core0.busy_ps"].get<uint64_t>() + c["ssd.fw.core1.busy_ps"].get<uint64_t>() ==
        2000ull * 50'600'000);
  // Two cores: 2 / 50.6 us = 39,526 IOPS.
  double iops = s["jobs"][0]["iops"].get<double>();
  CHECK(iops <= 2e6 / kTaskUs * 1.0001);
  CHECK(iops == Approx(2e6 / kTaskUs).epsilon(0.002));
}
