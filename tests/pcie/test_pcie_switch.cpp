// SPDX-License-Identifier: BSD-3-Clause
// Links below a PCIe switch share its upstream link: a lone endpoint keeps a
// plain link's times to the picosecond, two x4 endpoints take twice as long
// through a x4 upstream and no longer through a x8 one, and reads share it
// both ways (requests one way, completions the other). Every figure is
// worked out by hand in the comments.
#include <catch2/catch.hpp>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tests/ModelRig.hpp"
#include "tests/pcie/LinkRig.hpp"
#include "vp/pcie/PcieSwitch.hpp"

using namespace vp;
using namespace vp::test;

namespace {

// Two links below the switch "sw" (p0, p1) and a plain one beside it
// ("plain", on no switch), each with its own host memory, BAR and
// configuration space and driven by its own initiator; "sw2" is a second
// switch's scope.
const ParamRegistry& switch_params() {
  static ParamRegistry reg = [] {
    ParamRegistry r;
    for (const char* link : {"p0", "p1", "plain"}) pcie::PcieLink::declare_params(ParamScope(r, link));
    for (const char* sw : {"sw", "sw2"}) pcie::PcieSwitch::declare_params(ParamScope(r, sw));
    return r;
  }();
  return reg;
}

Config switch_config(const Sets& sets) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  Config cfg(switch_params());
  for (const auto& [k, v] : sets) cfg.set(k, v, "test");
  cfg.validate();
  return cfg;
}

// Every link at `gen` x `lanes` through one switch: one-way latency
// rc 150 + 2 hops x 150 + 120 (the switch) = 570 ns; the upstream at `gen`
// x `up_lanes`.
Sets sets(const char* gen, const char* lanes, const char* up_lanes) {
  Sets s = {{"sw.gen", gen}, {"sw.lanes", up_lanes}, {"sw.encoding", "auto"}};
  for (std::string l : {"p0", "p1", "plain"})
    s = with(s, {{l + ".gen", gen},           {l + ".lanes", lanes},           {l + ".encoding", "auto"},
                 {l + ".tlp_overhead", "24B"}, {l + ".max_payload", "256B"},    {l + ".max_read_request", "512B"},
                 {l + ".ack_coalesce", "4"},   {l + ".fc_coalesce", "4"},       {l + ".rc_latency", "150ns"},
                 {l + ".link_latency", "150ns"}, {l + ".switches", "1"},        {l + ".switch_latency", "120ns"}});
  return s;
}
constexpr Tick kLatency = 570 * NS;

class SwitchRig {
 public:
  explicit SwitchRig(const Sets& s)
      : m(switch_config(s)), sw("sw", m.svc, "sw"), p0("p0", m.svc, "p0"), p1("p1", m.svc, "p1"),
        plain("plain", m.svc, "plain") {
    sw.attach(p0.link);
    sw.attach(p1.link);
  }
  void run(std::function<void()> body) {
    sc_core::sc_spawn([body] { body(); });
    sc_core::sc_start();
  }
  void wait_until(Tick t) {
    if (t > now_ps()) sc_core::wait(to_sc(t - now_ps()));
  }
  // The same access on p0, p1 and the plain link, in that order, now.
  struct Done {
    Tick p0, p1, plain;
  };
  Done each(const std::function<Tick(BoundLink&)>& access) { return {access(p0), access(p1), access(plain)}; }

  ModelServices m;
  pcie::PcieSwitch sw;
  BoundLink p0, p1, plain;
};

// The same accesses, at the same instants, on `a` and `b`: bulk and small
// posted writes both ways, DMA reads, MMIO reads, configuration requests,
// some back to back and some after an idle gap. Returns each access's
// completion on a and on b.
std::vector<std::pair<Tick, Tick>> mirror(SwitchRig& rig, BoundLink& a, BoundLink& b) {
  std::vector<std::pair<Tick, Tick>> done;
  auto both = [&](const std::function<Tick(BoundLink&)>& fn) { done.emplace_back(fn(a), fn(b)); };
  for (int i = 0; i < 8; ++i) both([](BoundLink& p) { return p.write(p.init.device, 4096); });
  both([](BoundLink& p) { return p.write(p.init.host, 4); });
  both([](BoundLink& p) { return p.write(p.init.host, 4); });
  for (int i = 0; i < 4; ++i) both([](BoundLink& p) { return p.read(p.init.device, 4096); });
  both([](BoundLink& p) { return p.write(p.init.device, 64); });
  both([](BoundLink& p) { return p.read(p.init.host, 64); });
  both([](BoundLink& p) { return p.read(p.init.host, 8192); });
  both([](BoundLink& p) { return p.read(p.init.cfg, 4); });
  both([](BoundLink& p) { return p.write(p.init.cfg, 4); });
  rig.wait_until(30 * US);
  both([](BoundLink& p) { return p.read(p.init.device, 131072); });
  both([](BoundLink& p) { return p.write(p.init.host, 8192); });
  both([](BoundLink& p) { return p.write(p.init.device, 131072); });
  both([](BoundLink& p) { return p.read(p.init.device, 64); });
  both([](BoundLink& p) { return p.read(p.init.host, 4); });
  rig.wait_until(done.back().first + 1 * US);
  both([](BoundLink& p) { return p.read(p.init.cfg, 4); });
  for (int i = 0; i < 20; ++i)
    both([i](BoundLink& p) { return i % 3 ? p.write(p.init.host, 256) : p.read(p.init.device, 512); });
  return done;
}

// Each endpoint posts 64 KiB to host memory as 16 writes of 4 KiB, all at
// 0, in turns, and the plain link the same 16 on its own; the run ends
// when p1's last write has landed.
std::vector<SwitchRig::Done> post_64k(SwitchRig& rig) {
  std::vector<SwitchRig::Done> w;
  rig.run([&] {
    for (int i = 0; i < 16; ++i) w.push_back(rig.each([](BoundLink& l) { return l.write(l.init.device, 4096); }));
    rig.wait_until(w.back().p1);
  });
  return w;
}

// p0 (below the switch, alone) and the plain link had the same traffic:
// every completion, every arrival and every counter of the link is the same.
void check_same(SwitchRig& rig, const std::vector<std::pair<Tick, Tick>>& done) {
  REQUIRE(done.size() == 45);
  for (size_t i = 0; i < done.size(); ++i) {
    INFO("access " << i);
    CHECK(done[i].first == done[i].second);
  }
  CHECK(rig.p0.host_mem.arrivals == rig.plain.host_mem.arrivals);
  CHECK(rig.p0.bar.arrivals == rig.plain.bar.arrivals);
  CHECK(rig.p0.cfg_space.arrivals == rig.plain.cfg_space.arrivals);
  for (auto [a, b] : {std::pair{rig.p0.link.down_stats(), rig.plain.link.down_stats()},
                      std::pair{rig.p0.link.up_stats(), rig.plain.link.up_stats()}}) {
    CHECK(a.payload_bytes == b.payload_bytes);
    CHECK(a.wire_bytes == b.wire_bytes);
    CHECK(a.tlps == b.tlps);
    CHECK(a.dllps == b.dllps);
    CHECK(a.busy_ps == b.busy_ps);
  }
  // The upstream link carried the same TLPs and DLLPs as p0's, and nothing
  // from p1.
  for (auto [u, l] : {std::pair{rig.sw.down_stats(), rig.p0.link.down_stats()},
                      std::pair{rig.sw.up_stats(), rig.p0.link.up_stats()}}) {
    CHECK(u.payload_bytes == l.payload_bytes);
    CHECK(u.wire_bytes == l.wire_bytes);
    CHECK(u.tlps == l.tlps);
    CHECK(u.dllps == l.dllps);
  }
  CHECK(rig.p1.link.up_stats().wire_bytes == 0);
  CHECK(rig.sw.ports() == std::vector<std::string>{"p0", "p1"});
}

}  // namespace

TEST_CASE("a lone endpoint below a x4 switch finishes every transfer when a plain link does", "[pcie][switch]") {
  SwitchRig rig(sets("3", "4", "4"));
  std::vector<std::pair<Tick, Tick>> done;
  rig.run([&] { done = mirror(rig, rig.p0, rig.plain); });
  check_same(rig, done);
  // Gen3 x4, 0.25390625 ns a byte: a 4 KiB posted write is 16 TLPs of
  // 256 + 24 B = 4480 B = 1137.5 ns; the first lands at 1137.5 + 570 ns,
  // the eighth, back to back, at 8 x 1137.5 + 570 = 9670 ns.
  CHECK(done[0].first == 1137500 + kLatency);
  CHECK(done[7].first == 9100000 + kLatency);
  // Same rate, same bookings: the upstream link was as busy as p0's.
  CHECK(rig.sw.up_stats().busy_ps == rig.p0.link.up_stats().busy_ps);
  CHECK(rig.sw.down_stats().busy_ps == rig.p0.link.down_stats().busy_ps);
}

TEST_CASE("a lone endpoint below a x8 switch finishes every transfer when a plain link does", "[pcie][switch]") {
  SwitchRig rig(sets("3", "4", "8"));
  std::vector<std::pair<Tick, Tick>> done;
  rig.run([&] { done = mirror(rig, rig.p0, rig.plain); });
  check_same(rig, done);
  CHECK(done[7].first == 9100000 + kLatency);
  // The eight writes' 8 x 4480 B took 8 x 568.75 ns of the x8 upstream
  // (0.126953125 ns a byte), half of p0's 9100 ns.
  CHECK(rig.m.stat("sw.busy_ps_up") < rig.m.stat("p0.busy_ps_up"));
}

TEST_CASE("two x4 endpoints below a x4 upstream share it: 2 x 64 KiB take twice as long as one", "[pcie][switch]") {
  SwitchRig rig(sets("3", "4", "4"));
  std::vector<SwitchRig::Done> w = post_64k(rig);
  // A 4 KiB write: 16 TLPs x (256 + 24) B = 4480 B = 1137.5 ns at
  // 3.938461538 GB/s (0.25390625 ns a byte) on a link and on the upstream
  // alike. Each link sends its own writes back to back, write i on
  // [i x 1137.5, (i + 1) x 1137.5) ns; the upstream takes them in turns:
  // p0's write i on [2i x 1137.5, (2i + 1) x 1137.5), p1's on the next
  // 1137.5 ns. Their 16 TLPs owe 4 ACKs and 4 UpdateFCs, 64 B = 16.25 ns
  // down on each hop, where nothing else goes: they delay nothing.
  for (int i = 0; i < 16; ++i) {
    INFO("write " << i);
    CHECK(w[i].plain == (i + 1) * 1137500ull + kLatency);
    CHECK(w[i].p0 == (2 * i + 1) * 1137500ull + kLatency);
    CHECK(w[i].p1 == (2 * i + 2) * 1137500ull + kLatency);
  }
  // The last: 32 x 1137.5 + 570 = 36,970 ns, against 16 x 1137.5 + 570 =
  // 18,770 ns alone (1.97 times; twice the 18,200 ns of wire time).
  CHECK(w.back().p1 == 36970000);
  CHECK(w.back().plain == 18770000);
  // Upstream, up: 2 x 65,536 B in 2 x 256 TLPs, 32 x 4480 = 143,360 B,
  // 36,400 ns busy in the 36,970 ns run; down: 32 x 8 DLLPs, 2048 B,
  // 32 x 16.25 = 520 ns. Each link was busy 16 x 1137.5 = 18,200 ns up.
  CHECK(rig.m.stat("sw.bytes_up") == 131072);
  CHECK(rig.m.stat("sw.tlps_up") == 512);
  CHECK(rig.m.stat("sw.wire_bytes_up") == 143360);
  CHECK(rig.m.stat("sw.busy_ps_up") == 36400000);
  CHECK(rig.m.stat("sw.dllps_down") == 256);
  CHECK(rig.m.stat("sw.wire_bytes_down") == 2048);
  CHECK(rig.m.stat("sw.busy_ps_down") == 520000);
  CHECK(rig.m.stat("p0.busy_ps_up") == 18200000);
  CHECK(rig.m.stat("p1.busy_ps_up") == 18200000);
  auto s = rig.sw.summary(now_ps());
  CHECK(now_ps() == 36970000);
  CHECK(s["raw_GBps"].get<double>() == Approx(3.938461538));
  CHECK(s["up"]["utilisation"].get<double>() == Approx(36400.0 / 36970.0));
  CHECK(s["up"]["payload_GBps"].get<double>() == Approx(131072 / 36970e-9 / 1e9));  // 3.5454
  CHECK(s["ports"] == nlohmann::json{"p0", "p1"});
  rig.m.stats.part_in("switches", {{"name", "sw"}}, {"sw"});
  rig.m.stats.part_in("drives", {{"name", "p0"}}, {"p0"});
  rig.m.stats.part_in("drives", {{"name", "p1"}}, {"p1"});
  CHECK(rig.m.stats.sections_json()["switches"][0]["switch"]["ports"] == nlohmann::ordered_json{"p0", "p1"});
}

TEST_CASE("two x4 endpoints below a x8 upstream both finish as if alone", "[pcie][switch]") {
  SwitchRig rig(sets("3", "4", "8"));
  std::vector<SwitchRig::Done> w = post_64k(rig);
  // x8: 7.876923077 GB/s, 0.126953125 ns a byte, 4480 B = 568.75 ns. p0's
  // write 0 takes the upstream on [0, 568.75), p1's on [568.75, 1137.5):
  // both done when their own links are, at 1137.5 ns. Write i starts on
  // each link at i x 1137.5 ns, when the upstream is free again, and both
  // end at (i + 1) x 1137.5 ns, as alone.
  for (int i = 0; i < 16; ++i) {
    INFO("write " << i);
    CHECK(w[i].p0 == (i + 1) * 1137500ull + kLatency);
    CHECK(w[i].p1 == (i + 1) * 1137500ull + kLatency);
    CHECK(w[i].plain == (i + 1) * 1137500ull + kLatency);
  }
  CHECK(w.back().p1 == 18770000);
  // Upstream, up: 32 x 568.75 = 18,200 ns busy; down: 256 DLLPs, 2048 B
  // x 0.126953125 = 260 ns.
  CHECK(rig.m.stat("sw.busy_ps_up") == 18200000);
  CHECK(rig.m.stat("sw.wire_bytes_up") == 143360);
  CHECK(rig.m.stat("sw.busy_ps_down") == 260000);
  CHECK(rig.sw.summary(now_ps())["up"]["utilisation"].get<double>() == Approx(18200.0 / 18770.0));
}

TEST_CASE("device reads of host memory share the upstream both ways", "[pcie][switch]") {
  SwitchRig rig(sets("3", "4", "4"));
  SwitchRig::Done r{};
  rig.run([&] { r = rig.each([](BoundLink& l) { return l.read(l.init.device, 4096); }); });
  // A 4 KiB read: 8 header-only requests up (8 x 24 = 192 B = 48.75 ns),
  // which owe 2 ACKs + 2 UpdateFCs down (32 B = 8.125 ns); 16 completions
  // down (4480 B = 1137.5 ns), which owe 8 DLLPs up.
  // p0: requests on [0, 48.75) on both hops, at the host at 48.75 + 570 =
  // 618.75 ns; completions on [618.75, 1756.25) on both; done at 1756.25 +
  // 570 = 2326.25 ns, as the plain link's.
  CHECK(r.plain == 2326250);
  CHECK(r.p0 == 2326250);
  // p1: its requests slip in on the upstream behind p0's, [48.75, 97.5),
  // and reach the host at 667.5 ns. Their 4 DLLPs go down the upstream at
  // 97.5 + 150 = 247.5 ns, while p0's completions hold it: what is queued
  // there ends 8.125 ns later, at 1764.375 ns. p1's completions take its
  // own link on [667.5, 1805) but the upstream only on [1764.375,
  // 2901.875): done at 2901.875 + 570 = 3471.875 ns.
  CHECK(rig.p1.host_mem.arrivals.at(0) == 667500);
  CHECK(r.p1 == 3471875);
  // Upstream down: 2 x 4480 B of completions and 2 x 4 DLLPs (64 B);
  // up: 2 x 192 B of requests and 2 x 8 DLLPs (128 B).
  CHECK(rig.m.stat("sw.wire_bytes_down") == 8960 + 64);
  CHECK(rig.m.stat("sw.bytes_down") == 8192);
  CHECK(rig.m.stat("sw.wire_bytes_up") == 384 + 128);
  CHECK(rig.m.stat("sw.dllps_up") == 16);
}

TEST_CASE("the host's MMIO reads and configuration requests share the upstream", "[pcie][switch]") {
  // Gen1 x1 everywhere: 250 MB/s, 4 ns a byte.
  SwitchRig rig(sets("1", "1", "1"));
  SwitchRig::Done mmio{}, cfg{};
  rig.run([&] {
    mmio = rig.each([](BoundLink& l) { return l.read(l.init.host, 1024); });
    rig.wait_until(20 * US);
    cfg = rig.each([](BoundLink& l) { return l.read(l.init.cfg, 4); });
  });
  // 1 KiB from a BAR: 2 header-only requests down (48 B = 192 ns), 4
  // completions up (1024 + 4 x 24 = 1120 B = 4480 ns), which owe an ACK and
  // an UpdateFC down after the read. p0: requests on [0, 192) on both hops,
  // at the BAR at 192 + 570 = 762 ns, completions on [762, 5242): done at
  // 5242 + 570 = 5812 ns, as alone.
  CHECK(mmio.plain == 5812000);
  CHECK(mmio.p0 == 5812000);
  // p1: requests on the upstream on [192, 384), at the BAR at 954 ns; the
  // completions wait for p0's on the upstream, [5242, 9722): done at
  // 9722 + 570 = 10,292 ns.
  CHECK(rig.p1.bar.arrivals.at(0) == 954000);
  CHECK(mmio.p1 == 10292000);
  // At 20 us, with everything idle, both read a configuration dword: a
  // 24 B request down (96 ns), a 28 B completion up (112 ns). p0: request
  // on [20,000, 20,096), at the function at 20,666 ns, completion on
  // [20,666, 20,778): done at 21,348 ns. p1: request on the upstream on
  // [20,096, 20,192), at the function at 20,762 ns; completion on its link
  // on [20,762, 20,874) but on the upstream on [20,778, 20,890), behind
  // p0's: done at 21,460 ns.
  CHECK(cfg.p0 == 21348000);
  CHECK(cfg.plain == 21348000);
  CHECK(rig.p1.cfg_space.arrivals.at(0) == 20762000);
  CHECK(cfg.p1 == 21460000);
  // Upstream up: 2 x 1120 B of completions and 2 x 28 B of configuration
  // completions; down: 2 x 48 B of requests, 2 x 24 B of configuration
  // requests and 2 x 2 DLLPs (32 B).
  CHECK(rig.m.stat("sw.wire_bytes_up") == 2240 + 56);
  CHECK(rig.m.stat("sw.wire_bytes_down") == 96 + 48 + 32);
}

TEST_CASE("a switch's bad parameters and a link that does not count it are refused by key", "[pcie][switch]") {
  auto refused = [](const Sets& s, const std::string& key) {
    try {
      switch_config(with(sets("3", "4", "4"), s));
    } catch (const ConfigError& e) {
      INFO(e.what());
      return std::string(e.what()).find(key) != std::string::npos;
    }
    return false;
  };
  CHECK(refused({{"sw.lanes", "6"}}, "sw.lanes"));
  CHECK(refused({{"sw.gen", "6"}}, "sw.gen"));
  CHECK(refused({{"sw.encoding", "64b66b"}}, "sw.encoding"));
  CHECK(refused({{"sw.max_payload", "512B"}}, "sw.max_payload"));  // the links below cut the TLPs
  CHECK_FALSE(refused({{"sw.lanes", "16"}}, "sw.lanes"));
  // The switch is one of the link's switches: p0 counting none is refused
  // when it is attached, naming p0.switches.
  std::string what;
  try {
    SwitchRig rig(with(sets("3", "4", "4"), {{"p0.switches", "0"}}));
  } catch (const ConfigError& e) {
    what = e.what();
  }
  CHECK(what.find("p0.switches") != std::string::npos);
}

TEST_CASE("a link goes below one switch once, before it carries traffic", "[pcie][switch]") {
  SwitchRig rig(sets("3", "4", "4"));
  pcie::PcieSwitch other("other", rig.m.svc, "sw2");
  CHECK_THROWS_AS(other.attach(rig.p0.link), std::logic_error);  // already below sw
  CHECK(rig.p0.link.upstream() == &rig.sw);
  CHECK(rig.plain.link.upstream() == nullptr);
  rig.run([&] { rig.plain.write(rig.plain.init.device, 64); });
  CHECK_THROWS_AS(rig.sw.attach(rig.plain.link), std::logic_error);  // it has carried traffic
}
