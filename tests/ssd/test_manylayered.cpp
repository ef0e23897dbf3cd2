// SPDX-License-Identifier: BSD-3-Clause
// ManyLayered as DeepFlash (FAST'20 sec. 6) describes it, and what sharing
// a core costs any organisation: a core changing threads pays the switch;
// ManyLayered's instances share the host's CQs (CqFlush pays contention over
// their cores); an instance's pair can be pinned to one core, so 16
// instances on 12 cores leave four cores with two; the static split's
// stripe unit (ssd.ftl.shard_chunk) decides which instance owns a page.
//
// Rig: Firmware -> StoreFtl (answers 10 us after submission), no cache, no
// flash (the FCMD threads get no work). Clock 1 GHz, so one cycle is 1 ns.
// Costs (cycles): fetch_batch 50, fetch 100, parse 300, cache_lookup 20,
// trans 200, compose 70, complete 30, cq_flush 60, message 5.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <catch2/catch.hpp>
#include <map>
#include <systemc>
#include <vector>

#include "tests/ssd/CacheRig.hpp"
#include "tests/ssd/FirmwareTestCosts.hpp"
#include "vp/ssd/firmware/Firmware.hpp"
#include "vp/ssd/ftl/PageMappingFtl.hpp"
#include "vp/ssd/ShardHash.hpp"

using namespace vp;
using namespace vp::test;

namespace {

constexpr Tick kNs = 1000;

Sets manylayered(Sets more) {
  Sets s = {{"ssd.fw.organisation", "manylayered"}, {"ssd.ftl.shards", "2"}, {"ssd.ftl.shard_partition", "channel"}};
  s.insert(s.end(), more.begin(), more.end());
  return firmware_test_costs(s);
}

struct MlRig : ModelServices, ssd::FirmwareClient {
  explicit MlRig(const Sets& sets)
      : ModelServices(model_config("", {}, manylayered(sets))),
        ftl("ftl"),
        fw("fw", svc, ssd::PageMappingFtl::shard_map_from(ScopedConfig(svc.cfg, ssd::PageMappingFtl::kScope))) {
    fw.ftl.bind(ftl);
  }
  void firmware_issued(ssd::HostCommand& c) override { issued[c.slot] = now_ps(); }
  void firmware_done(ssd::HostCommand& c) override { done[c.slot] = now_ps(); }

  // Reads of one page each, all of SQ 1 at t = 0.
  void read(const std::vector<uint64_t>& lpns) {
    hc.resize(lpns.size());
    bufs.resize(lpns.size());
    for (size_t i = 0; i < lpns.size(); ++i) {
      bufs[i].assign(kCachePage, 0);
      hc[i].op = ssd::IoOp::Read;
      hc[i].byte_offset = lpns[i] * kCachePage;
      hc[i].bytes = kCachePage;
      hc[i].data = bufs[i].data();
      hc[i].sqid = 1;
      hc[i].client = this;
      hc[i].slot = static_cast<uint32_t>(i);
    }
    submit_in_time(lpns.size(), [](size_t) { return Tick(0); }, [this](size_t i) { fw.submit(hc[i]); });
    REQUIRE(done.size() == lpns.size());
  }
  Tick issued_ns(uint32_t i) const { return issued.at(i) / kNs; }
  Tick done_ns(uint32_t i) const { return done.at(i) / kNs; }
  uint64_t busy_ns(const std::string& thread) const { return stat("ssd.fw.thread." + thread + ".busy_ps") / kNs; }
  unsigned core_of(const std::string& thread) const {
    for (const auto& t : fw.threads())
      if (t->name() == thread) return t->core().index();
    throw std::runtime_error("no thread " + thread);
  }

  StoreFtl ftl;
  ssd::Firmware fw;
  std::vector<ssd::HostCommand> hc;
  std::vector<std::vector<uint8_t>> bufs;
  std::map<uint32_t, Tick> issued, done;
};

}  // namespace

TEST_CASE("a core going from one thread's work to another's pays the switch", "[ssd][firmware][manylayered]") {
  // Both instances' threads on one core; a switch costs 40 cycles.
  MlRig rig({{"ssd.fw.cores", "1"}, {"ssd.fw.cost.switch", "40"}});
  rig.read({1});
  // layered0 (SQ 1's) fetches and parses: 50 + 100 + 300 = 450, the core's
  // first item, no switch. Page 1 is instance 1's: layered1's item, 5 + 20 +
  // 200 = 225, after a switch of 40: 450-715, issued.
  CHECK(rig.issued_ns(0) == 715);
  // The FTL answers at 10,715; layered1 completes (30 + 60 + 5 = 95), the
  // core's last thread still: no switch. 10,810.
  CHECK(rig.done_ns(0) == 10'810);
  CHECK(rig.busy_ns("layered1") == 40 + 225 + 95);
  CHECK(rig.stat("ssd.fw.switches") == 1);
}

TEST_CASE("without a switch cost threads sharing a core cost only their tasks", "[ssd][firmware][manylayered]") {
  MlRig rig(Sets{{"ssd.fw.cores", "1"}});
  rig.read({1});
  CHECK(rig.issued_ns(0) == 450 + 225);
  CHECK(rig.done_ns(0) == 10'675 + 95);
  CHECK(rig.stat("ssd.fw.switches") == 1);  // counted all the same
}

TEST_CASE("manylayered instances completing one SQ's commands pay contention on its CQ",
          "[ssd][firmware][manylayered]") {
  // Two cores, one instance's layered thread on each: both move SQ 1's CQ
  // tail. cq_flush costs 60 x (1 + 0.5 x (2 - 1)) = 90; the rest as given.
  MlRig rig({{"ssd.fw.cores", "2"}, {"ssd.fw.contention", "0.5"}});
  rig.read({1});
  REQUIRE(rig.core_of("layered0") != rig.core_of("layered1"));
  // Fetch and parse (450) and the hand-off (225) are each one instance's own.
  CHECK(rig.issued_ns(0) == 675);
  // 30 + 90 + 5 = 125.
  CHECK(rig.done_ns(0) == 10'675 + 125);
}

TEST_CASE("manylayered on one core shares no CQ between cores", "[ssd][firmware][manylayered]") {
  MlRig rig({{"ssd.fw.cores", "1"}, {"ssd.fw.contention", "0.5"}});
  rig.read({1});
  CHECK(rig.done_ns(0) == 10'675 + 95);  // k = 1: no contention
}

TEST_CASE("pinning each instance's pair to one core leaves four of 12 cores two instances",
          "[ssd][firmware][manylayered]") {
  MlRig rig({{"ssd.fw.cores", "12"}, {"ssd.ftl.shards", "16"}, {"ssd.fw.pin", "layered=0-11 fcmd=0-11"}});
  // Instance i's threads on core i mod 12: 0 and 12 on core 0, ... 3 and 15 on core 3.
  for (unsigned i = 0; i < 16; ++i) {
    CHECK(rig.core_of("layered" + std::to_string(i)) == i % 12);
    CHECK(rig.core_of("fcmd" + std::to_string(i)) == i % 12);
  }
  std::vector<size_t> per_core;
  for (unsigned c = 0; c < 12; ++c) per_core.push_back(rig.fw.core(c).threads().size());
  CHECK(per_core == std::vector<size_t>{4, 4, 4, 4, 2, 2, 2, 2, 2, 2, 2, 2});
}

TEST_CASE("the shard chunk keeps that many pages in a row on one shard", "[ssd][firmware][manylayered]") {
  ssd::ShardMap page{16, false, 1}, stripe{16, false, 128};
  CHECK(page.of(0) == 0);
  CHECK(page.of(17) == 1);
  CHECK(stripe.of(127) == 0);
  CHECK(stripe.of(128) == 1);
  CHECK(stripe.of(16 * 128 + 5) == 0);  // wraps after 16 chunks
  CHECK(stripe.of(15 * 128) == 15);
}

TEST_CASE("with a two-page chunk page 1 stays with instance 0 and needs no hand-off",
          "[ssd][firmware][manylayered]") {
  MlRig rig({{"ssd.fw.cores", "2"}, {"ssd.ftl.shard_chunk", "2"}});
  rig.read({1});
  // layered0 parses (450) and owns page 1 (1 / 2 = chunk 0): lookup and
  // translation as its own urgent item, 20 + 200, no message: 670.
  CHECK(rig.issued_ns(0) == 670);
  CHECK(rig.busy_ns("layered1") == 0);
}
