// SPDX-License-Identifier: BSD-3-Clause
// The PCIe link on its own: rates per generation, TLP and DLLP overhead,
// saturation of a gen3 x4 link by posted writes and by reads, latency through
// switches, configuration requests, statistics and the waveform. Every
// figure is worked out by hand in the comments.
#include <catch2/catch.hpp>
#include <map>
#include <sstream>

#include "tests/VcdChanges.hpp"
#include "tests/pcie/LinkRig.hpp"

using namespace vp;
using namespace vp::test;

namespace {
// PCIe 3.0 x4: 8 GT/s x 4 lanes x 128/130 / 8 bits = 3.938461538 GB/s each
// way, so one byte takes 130 * 8 / (8 * 4 * 128) ns = 0.25390625 ns.
const Sets kGen3x4 = {{"pcie.gen", "3"},          {"pcie.lanes", "4"},          {"pcie.encoding", "auto"},
                      {"pcie.tlp_overhead", "24B"}, {"pcie.max_payload", "256B"}, {"pcie.max_read_request", "512B"},
                      {"pcie.ack_coalesce", "4"},   {"pcie.fc_coalesce", "4"},    {"pcie.rc_latency", "150ns"},
                      {"pcie.link_latency", "150ns"}, {"pcie.switches", "0"}};
constexpr double kGen3x4Bps = 8e9 * 4 * 128.0 / 130.0 / 8.0;

// PCIe 1.0 x1: 2.5 GT/s x 8/10 / 8 = 250 MB/s, exactly 4 ns a byte.
const Sets kGen1x1 = {{"pcie.gen", "1"},          {"pcie.lanes", "1"},          {"pcie.encoding", "auto"},
                      {"pcie.tlp_overhead", "24B"}, {"pcie.max_payload", "256B"}, {"pcie.max_read_request", "512B"},
                      {"pcie.ack_coalesce", "4"},   {"pcie.fc_coalesce", "4"},    {"pcie.rc_latency", "150ns"},
                      {"pcie.link_latency", "150ns"}, {"pcie.switches", "0"}};

}  // namespace

TEST_CASE("link bandwidth follows generation and lanes and encoding", "[pcie]") {
  Config cfg(platform::server_params());
  auto bw = [&](const char* gen, const char* lanes) {
    cfg.set("pcie.gen", gen);
    cfg.set("pcie.lanes", lanes);
    cfg.validate();
    return pcie::PcieLink::timing_from(ScopedConfig(cfg, "pcie")).bytes_per_s;
  };
  // x4 of every generation: GT/s x 4 lanes x code / 8 bits.
  CHECK(bw("1", "4") == Approx(1.0e9));          // 2.5e9 * 4 * 8/10 / 8
  CHECK(bw("2", "4") == Approx(2.0e9));          // 5e9 * 4 * 8/10 / 8
  CHECK(bw("3", "4") == Approx(3.938461538e9));  // 8e9 * 4 * 128/130 / 8
  CHECK(bw("4", "4") == Approx(7.876923077e9));  // 16e9 * 4 * 128/130 / 8
  CHECK(bw("5", "4") == Approx(15.75384615e9));  // 32e9 * 4 * 128/130 / 8
  CHECK(bw("1", "1") == Approx(250e6));          // 2.5e9 * 0.8 / 8
  CHECK(bw("2", "8") == Approx(4e9));            // 5e9 * 8 * 0.8 / 8
  CHECK(bw("4", "12") == Approx(23.63076923e9)); // 16e9 * 12 * 128/130 / 8
  CHECK(bw("5", "16") == Approx(63.01538462e9)); // 32e9 * 16 * 128/130 / 8
  cfg.set("pcie.encoding", "none");
  CHECK(bw("3", "2") == Approx(2e9));            // 8e9 * 2 / 8, no line code
  cfg.set("pcie.encoding", "8b10b");
  CHECK(bw("3", "2") == Approx(1.6e9));          // 8e9 * 2 * 0.8 / 8
}

TEST_CASE("generations above 5 and widths other than x1 to x16 are refused", "[pcie]") {
  auto refused = [](const char* key, const char* value) {
    Config cfg(platform::server_params());
    try {
      cfg.set(key, value);
      cfg.validate();
    } catch (const ConfigError& e) {
      return std::string(e.what()).find(key) != std::string::npos;
    }
    return false;
  };
  CHECK(refused("pcie.gen", "6"));
  CHECK(refused("pcie.gen", "0"));
  CHECK(refused("pcie.lanes", "32"));
  CHECK(refused("pcie.lanes", "6"));
  CHECK_FALSE(refused("pcie.lanes", "12"));
  CHECK(refused("pcie.latency", "300ns"));  // replaced by rc_latency + link_latency (+ switches)
}

TEST_CASE("a transfer pays one TLP overhead per max-payload chunk", "[pcie]") {
  pcie::LinkTiming t;
  t.bytes_per_s = 1e9;  // 1 byte per ns
  t.max_payload = 256;
  t.tlp_overhead = 24;
  CHECK(t.serialize(4096, 256) == (4096 + 16 * 24) * 1000ull);
  CHECK(t.serialize(257, 256) == (257 + 2 * 24) * 1000ull);
  CHECK(t.serialize(0, 256) == 24 * 1000ull);  // a header-only TLP
  // DLLPs: with one ACK and one UpdateFC per 4 TLPs, TLPs 5..12 (8 more
  // after 4) owe ACKs at 8 and 12 and UpdateFCs at 8 and 12: 4 DLLPs.
  CHECK(t.dllps_owed(4, 8) == 4);
  CHECK(t.dllps_owed(0, 3) == 0);
  CHECK(t.dllps_owed(3, 1) == 2);
}

TEST_CASE("wire times round to the nearest picosecond, each size its own", "[pcie]") {
  pcie::LinkTiming t;
  t.bytes_per_s = 3.0e9;  // 1/3 ns a byte: every size rounds
  // bytes * 1000 / 3 ps, to the nearest (8 B: 2666.67 -> 2667; 24 B: 8000;
  // 4104 B: 1368000; 16008 B: 5336000; 10 B: 3333.33 -> 3333), asked in
  // turns twice.
  for (int round = 0; round < 2; ++round) {
    CHECK(t.wire_time(8) == 2667);
    CHECK(t.wire_time(24) == 8000);
    CHECK(t.wire_time(4104) == 1368000);
    CHECK(t.wire_time(16008) == 5336000);
    CHECK(t.wire_time(10) == 3333);
  }
}

TEST_CASE("gen3 x4 saturates at 3.6009 GB/s of 4 KiB posted writes", "[pcie][saturation]") {
  LinkRig rig(kGen3x4);
  constexpr int n = 1000;
  std::vector<Tick> done;
  // The device posts n back-to-back 4 KiB writes to host memory, all ready at 0.
  rig.run([&] {
    for (int i = 0; i < n; ++i) done.push_back(rig.init.access(rig.init.device, tlm::TLM_WRITE_COMMAND, 0, 4096));
    sc_core::wait(to_sc(done.back() - now_ps()));
  });
  // 4 KiB = 16 TLPs of 256 B, each 256 + 24 = 280 B: 4480 B on the wire,
  // 4480 * 0.25390625 ns = 1137.5 ns. The i-th write (from 0) has arrived
  // at (i + 1) * 1137.5 ns + 300 ns (rc 150 + link 150).
  REQUIRE(done.size() == n);
  CHECK(done.front() == 1137500 + 300000);
  CHECK(done.back() == n * 1137500ull + 300000);
  CHECK(rig.host_mem.arrivals.back() == done.back());
  // Sustained payload: 4096 B per 1137.5 ns = 3.938461538 GB/s * 256 / 280
  // = 3.600879 GB/s.
  double sustained = double(n - 1) * 4096 / (double(done.back() - done.front()) / 1e12);
  CHECK(sustained == Approx(3.600879e9).epsilon(1e-6));
  CHECK(sustained == Approx(kGen3x4Bps * 256 / 280).epsilon(1e-9));
  // The host answers 16 TLPs with 4 ACKs and 4 UpdateFCs: 64 B down per
  // write, 16.25 ns of the down direction; nothing else goes down.
  auto up = rig.link.up_stats(), down = rig.link.down_stats();
  CHECK(up.payload_bytes == n * 4096ull);
  CHECK(up.wire_bytes == n * 4480ull);
  CHECK(up.tlps == n * 16ull);
  CHECK(up.dllps == 0);
  CHECK(up.busy_ps == n * 1137500ull);
  CHECK(down.payload_bytes == 0);
  CHECK(down.dllps == n * 8ull);
  CHECK(down.wire_bytes == n * 64ull);
  CHECK(down.busy_ps == n * 16250ull);
  // Utilisation over the run (it ends when the last write lands):
  // 1,137,500,000 ps busy in 1,137,800,000 ps.
  auto s = rig.link.summary(now_ps());
  CHECK(now_ps() == 1137800000ull);
  CHECK(s["up"]["utilisation"].get<double>() == Approx(1137500000.0 / 1137800000.0));
  CHECK(s["up"]["payload_GBps"].get<double>() == Approx(4096000.0 / 1137.8e-6 / 1e9));  // 3.59993
  CHECK(s["down"]["utilisation"].get<double>() == Approx(16250000.0 / 1137800000.0));
  CHECK(s["down"]["wire_bytes"].get<uint64_t>() == 64000);
}

TEST_CASE("gen3 x4 saturates at 3.6009 GB/s of 128 KiB posted writes", "[pcie][saturation]") {
  LinkRig rig(kGen3x4);
  constexpr int n = 100;
  std::vector<Tick> done;
  rig.run([&] {
    for (int i = 0; i < n; ++i) done.push_back(rig.init.access(rig.init.device, tlm::TLM_WRITE_COMMAND, 0, 131072));
  });
  // 128 KiB = 512 TLPs of 280 B on the wire = 143,360 B = 36,400 ns each.
  CHECK(done.front() == 36400000 + 300000);
  CHECK(done.back() == n * 36400000ull + 300000);
  // 131072 B per 36.4 us = 3.600879 GB/s, as for 4 KiB: the overhead is per TLP.
  double sustained = double(n - 1) * 131072 / (double(done.back() - done.front()) / 1e12);
  CHECK(sustained == Approx(3.600879e9).epsilon(1e-6));
  // 512 TLPs owe 128 ACKs + 128 UpdateFCs = 2048 B back down each.
  CHECK(rig.link.down_stats().wire_bytes == n * 2048ull);
  CHECK(rig.link.up_stats().wire_bytes == n * 143360ull);
}

TEST_CASE("gen3 x4 saturates at 3.5753 GB/s of 4 KiB reads split at MRRS", "[pcie][saturation]") {
  LinkRig rig(kGen3x4);
  constexpr int n = 1000;
  std::vector<Tick> done;
  // The device reads n x 4 KiB of host memory, all issued at 0.
  rig.run([&] {
    for (int i = 0; i < n; ++i) done.push_back(rig.init.access(rig.init.device, tlm::TLM_READ_COMMAND, 0, 4096));
  });
  // Per read: 4096 / 512 (MRRS) = 8 header-only requests up, 8 * 24 = 192 B
  // = 48.75 ns; 16 completions of 256 B down, 4480 B = 1137.5 ns. The 8
  // requests owe 2 ACKs + 2 UpdateFCs = 32 B = 8.125 ns down, and the 16
  // completions 8 DLLPs = 64 B up.
  // Read 0: requests end at 48.75 ns, reach the host at 348.75 ns; its
  // completions end at 348.75 + 1137.5 = 1486.25 ns and arrive 300 ns later.
  CHECK(done.front() == 1786250);
  // Every later read's completions queue behind, and the DLLPs its requests
  // owe (sent while the down direction is backlogged) push them by 8.125 ns:
  // read i ends at 1486.25 + i * (1137.5 + 8.125) ns, plus 300 ns.
  CHECK(done.back() == 1486250 + (n - 1) * 1145625ull + 300000);
  // Sustained: 4096 B per 1145.625 ns = 3.938461538 GB/s * 4096 / (4480 + 32)
  // = 3.575341 GB/s.
  double sustained = double(n - 1) * 4096 / (double(done.back() - done.front()) / 1e12);
  CHECK(sustained == Approx(3.575341e9).epsilon(1e-6));
  CHECK(sustained == Approx(kGen3x4Bps * 4096 / 4512).epsilon(1e-9));
  auto up = rig.link.up_stats(), down = rig.link.down_stats();
  CHECK(up.tlps == n * 8ull);
  CHECK(up.payload_bytes == 0);
  CHECK(up.wire_bytes == n * (192ull + 64));
  CHECK(up.dllps == n * 8ull);
  CHECK(down.payload_bytes == n * 4096ull);
  CHECK(down.tlps == n * 16ull);
  CHECK(down.dllps == n * 4ull);
  CHECK(down.wire_bytes == n * (4480ull + 32));
  CHECK(rig.host_mem.arrivals.size() == n);
  CHECK(rig.host_mem.arrivals[1] == 97500 + 300000);  // the second read's requests, right behind the first's
}

TEST_CASE("gen3 x4 saturates at 3.5753 GB/s of 128 KiB reads split at MRRS", "[pcie][saturation]") {
  LinkRig rig(kGen3x4);
  constexpr int n = 50;
  std::vector<Tick> done;
  rig.run([&] {
    for (int i = 0; i < n; ++i) done.push_back(rig.init.access(rig.init.device, tlm::TLM_READ_COMMAND, 0, 131072));
  });
  // Per read: 256 requests up (6144 B = 1560 ns); 512 completions down
  // (143,360 B = 36,400 ns); the requests owe 64 + 64 DLLPs = 1024 B = 260 ns
  // down. Read 0 ends at 1560 + 300 + 36,400 = 38,260 ns; each later one
  // 36,400 + 260 = 36,660 ns after the one before; all arrive 300 ns later.
  CHECK(done.front() == 38260000 + 300000);
  CHECK(done.back() == 38260000 + (n - 1) * 36660000ull + 300000);
  // 131072 / (143360 + 1024) of 3.938 GB/s = 3.575341 GB/s, as for 4 KiB.
  double sustained = double(n - 1) * 131072 / (double(done.back() - done.front()) / 1e12);
  CHECK(sustained == Approx(3.575341e9).epsilon(1e-6));
  CHECK(rig.link.down_stats().wire_bytes == n * (143360ull + 1024));
}

TEST_CASE("DLLPs take the reverse direction: 14 for 30 TLPs at the default coalescing", "[pcie][dllp]") {
  LinkRig rig(kGen1x1);
  std::vector<Tick> done;
  // The host writes 10 x 768 B to the BAR: 3 TLPs each, 30 TLPs down.
  rig.run([&] {
    for (int i = 0; i < 10; ++i) done.push_back(rig.init.access(rig.init.host, tlm::TLM_WRITE_COMMAND, 0, 768));
  });
  // One ACK and one UpdateFC per 4 TLPs: 30 / 4 = 7 of each, 14 DLLPs of
  // 8 B = 112 B up, 448 ns at 4 ns a byte.
  auto up = rig.link.up_stats(), down = rig.link.down_stats();
  CHECK(up.dllps == 14);
  CHECK(up.wire_bytes == 112);
  CHECK(up.busy_ps == 448000);
  CHECK(up.payload_bytes == 0);
  CHECK(up.tlps == 0);
  // Down: 10 x 3 x (256 + 24) = 8400 B = 33.6 us; the last write lands at
  // 33.6 us + 300 ns: the DLLPs going up delayed nothing.
  CHECK(down.wire_bytes == 8400);
  CHECK(down.busy_ps == 33600000);
  CHECK(done.back() == 33900000);
}

TEST_CASE("DLLPs with ack_coalesce 1 and no UpdateFC", "[pcie][dllp]") {
  LinkRig rig(with(kGen1x1, {{"pcie.ack_coalesce", "1"}, {"pcie.fc_coalesce", "0"}}));
  rig.run([&] {
    for (int i = 0; i < 10; ++i) rig.init.access(rig.init.host, tlm::TLM_WRITE_COMMAND, 0, 768);
  });
  // One ACK per TLP: 30 DLLPs, 240 B up.
  CHECK(rig.link.up_stats().dllps == 30);
  CHECK(rig.link.up_stats().wire_bytes == 240);
}

TEST_CASE("DLLPs delay the traffic queued behind them in their direction", "[pcie][dllp]") {
  LinkRig rig(kGen1x1);
  Tick first = 0, second = 0, third = 0, down_done = 0;
  rig.run([&] {
    // Two 4 KiB device writes up at 0: 4480 B = 17,920 ns each, back to back.
    first = rig.init.access(rig.init.device, tlm::TLM_WRITE_COMMAND, 0, 4096);
    second = rig.init.access(rig.init.device, tlm::TLM_WRITE_COMMAND, 0, 4096);
    // 1 KiB down meanwhile: 4 TLPs = 1120 B = 4480 ns; its ACK and UpdateFC
    // (16 B = 64 ns) go up at 4480 + 150 ns, while the writes hold the up
    // direction until 35,840 ns.
    down_done = rig.init.access(rig.init.host, tlm::TLM_WRITE_COMMAND, 0, 1024);
    // A third write, queued behind: it starts at 35,840 + 64 ns.
    third = rig.init.access(rig.init.device, tlm::TLM_WRITE_COMMAND, 0, 4096);
  });
  CHECK(first == 17920000 + 300000);
  CHECK(second == 35840000 + 300000);
  CHECK(down_done == 4480000 + 300000);
  CHECK(third == 35840000 + 64000 + 17920000 + 300000);  // 54,124 ns; 54,060 without the DLLPs
  CHECK(rig.link.up_stats().busy_ps == 3 * 17920000ull + 64000);
}

TEST_CASE("two switches add their latency and a link hop each", "[pcie][latency]") {
  LinkRig rig(with(kGen1x1, {{"pcie.switches", "2"}, {"pcie.switch_latency", "120ns"}}));
  // One way: rc 150 + 3 hops x 150 + 2 switches x 120 = 840 ns.
  CHECK(rig.link.timing().latency == 840000);
  Tick doorbell = 0, read = 0;
  rig.run([&] {
    // A 4-byte MMIO write: 28 B = 112 ns, then 840 ns.
    doorbell = rig.init.access(rig.init.host, tlm::TLM_WRITE_COMMAND, 0x1000, 4);
    sc_core::wait(to_sc(10 * US));
    // A 4 KiB DMA read at 10 us: 4096 / 512 (MRRS) = 8 requests of 24 B
    // (768 ns) + 840 ns to the host, 16 completions (4480 B = 17,920 ns)
    // + 840 ns back.
    read = rig.init.access(rig.init.device, tlm::TLM_READ_COMMAND, 0, 4096);
  });
  CHECK(doorbell == 952000);
  CHECK(rig.bar.arrivals.at(0) == 952000);
  CHECK(rig.host_mem.arrivals.at(0) == 10000000 + 768000 + 840000);
  CHECK(read == 10000000 + 768000 + 840000 + 17920000 + 840000);  // 30.368 us
}

TEST_CASE("with no switch the default one-way latency is 300 ns", "[pcie][latency]") {
  Config cfg(platform::server_params());
  cfg.validate();
  CHECK(pcie::PcieLink::timing_from(ScopedConfig(cfg, "pcie")).latency == 300000);  // rc 150 + link 150
  cfg.set("pcie.switches", "1");
  CHECK(pcie::PcieLink::timing_from(ScopedConfig(cfg, "pcie")).latency == 300000 + 150000 + 120000);  // + a hop + the switch
}

TEST_CASE("configuration reads and writes make a round trip", "[pcie][config]") {
  LinkRig rig(kGen1x1);
  rig.cfg_space->own_delay = 40 * NS;
  rig.cfg_space->regs[0x10] = 0xef;
  rig.cfg_space->regs[0x11] = 0xbe;
  rig.cfg_space->regs[0x12] = 0xad;
  rig.cfg_space->regs[0x13] = 0xde;
  uint8_t vid[4] = {}, cmd[2] = {0x06, 0x04}, back[4] = {};
  Tick read_done = 0, write_done = 0, back_done = 0;
  tlm::tlm_response_status wide = tlm::TLM_INCOMPLETE_RESPONSE;
  rig.run([&] {
    // Read the dword at 0x10: a 24 B request down (96 ns) + 300 ns; the
    // endpoint answers in 40 ns; a completion with one dword, 28 B (112 ns),
    // + 300 ns back: 848 ns.
    read_done = rig.init.access(rig.init.cfg, tlm::TLM_READ_COMMAND, 0x10, 4, vid);
    sc_core::wait(to_sc(read_done - now_ps()));
    // Write 2 bytes at 0x04: a request with its dword, 28 B (112 ns), +
    // 300 ns; 40 ns; a header-only completion (96 ns) + 300 ns: 848 ns again.
    write_done = rig.init.access(rig.init.cfg, tlm::TLM_WRITE_COMMAND, 0x04, 2, cmd);
    sc_core::wait(to_sc(write_done - now_ps()));
    back_done = rig.init.access(rig.init.cfg, tlm::TLM_READ_COMMAND, 0x04, 4, back);
    // 4 bytes at 0x06 would cross into the next dword: refused, no time.
    rig.init.access(rig.init.cfg, tlm::TLM_READ_COMMAND, 0x06, 4, back);
    wide = rig.init.status();
  });
  CHECK(read_done == 848000);
  CHECK(rig.cfg_space->arrivals.at(0) == 396000);
  CHECK((vid[0] | vid[1] << 8 | vid[2] << 16 | uint32_t(vid[3]) << 24) == 0xdeadbeefu);
  CHECK(write_done == 848000 + 848000);
  CHECK(rig.cfg_space->arrivals.at(1) == 848000 + 412000);
  CHECK(back_done == 3 * 848000);
  CHECK(back[0] == 0x06);
  CHECK(back[1] == 0x04);
  CHECK(wide == tlm::TLM_BURST_ERROR_RESPONSE);
  CHECK(rig.cfg_space->arrivals.size() == 3);
  // Three requests down (24 + 28 + 24 B), three completions up (28 + 24 + 28 B).
  CHECK(rig.link.down_stats().wire_bytes == 76);
  CHECK(rig.link.up_stats().wire_bytes == 80);
  CHECK(rig.link.down_stats().payload_bytes == 4);  // the write's dword
  CHECK(rig.link.up_stats().payload_bytes == 8);    // two read dwords
  CHECK(rig.stats.value("pcie.cfg_reads") == 2);
  CHECK(rig.stats.value("pcie.cfg_writes") == 1);
}

TEST_CASE("a configuration request with no configuration space bound gets an address error", "[pcie][config]") {
  LinkRig rig(kGen1x1, false);
  tlm::tlm_response_status st = tlm::TLM_INCOMPLETE_RESPONSE;
  Tick done = 1;
  rig.run([&] {
    done = rig.init.access(rig.init.cfg, tlm::TLM_READ_COMMAND, 0, 4);
    st = rig.init.status();
  });
  CHECK(st == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(done == 0);
  CHECK(rig.link.down_stats().wire_bytes == 0);
}


TEST_CASE("the waveform shows each direction busy while it sends", "[pcie][trace]") {
  std::string dir = scratch("pcie-vcd");
  {
    LinkRig rig(kGen1x1, true, dir + "/waves");
    REQUIRE(rig.traced);
    rig.run([&] {
      // Two 1 KiB device writes back to back: 4 TLPs = 1120 B = 4480 ns each,
      // busy 0-8960 ns; a third at 20 us: busy 20,000-24,480 ns.
      rig.init.access(rig.init.device, tlm::TLM_WRITE_COMMAND, 0, 1024);
      rig.init.access(rig.init.device, tlm::TLM_WRITE_COMMAND, 0, 1024);
      sc_core::wait(to_sc(20 * US));  // SystemC writes a time step's values when a later one begins

      rig.init.access(rig.init.device, tlm::TLM_WRITE_COMMAND, 0, 1024);
      sc_core::wait(to_sc(20 * US));  // SystemC writes a time step's values when a later one begins
    });
  }
  std::string vcd = slurp(dir + "/waves.vcd");
  using C = std::vector<std::pair<uint64_t, std::string>>;
  // The flag is up from 0 (the initial dump) and stays up across the
  // back-to-back writes.
  C up = vcd_changes_ns(vcd, "pcie.up.busy");
  CHECK(up == C{{0, "1"}, {8960, "0"}, {20000, "1"}, {24480, "0"}});
  // Each write's 4 TLPs owe an ACK and an UpdateFC, 16 B = 64 ns down, sent
  // 150 ns after the TLPs left: 4630-4694, 9110-9174 and 24,630-24,694 ns.
  C down = vcd_changes_ns(vcd, "pcie.down.busy");
  CHECK(down == C{{0, "0"}, {4630, "1"}, {4694, "0"}, {9110, "1"}, {9174, "0"}, {24630, "1"}, {24694, "0"}});
  // Busy time so far, in ns (binary in the VCD): 3 x 4480 = 13,440 at the end.
  C busy = vcd_changes_ns(vcd, "pcie.up.busy_ns");
  REQUIRE(!busy.empty());
  CHECK(std::stoull(busy.back().second, nullptr, 2) == 13440);
  CHECK(busy.back().first == 24480);
}

TEST_CASE("summary.json has a pcie section per direction", "[pcie][platform]") {
  auto s = run("quick", {}, "");
  const auto& p = drive(s)["pcie"];
  REQUIRE(p.is_object());
  double sim = s["sim_time_s"].get<double>();
  CHECK(p["raw_GBps"].get<double>() == Approx(3.938461538));  // gen3 x4 default
  CHECK(p["one_way_latency_ns"].get<double>() == 300);
  for (const char* d : {"down", "up"}) {
    INFO(d);
    const auto& j = p[d];
    // The figures follow from one another: utilisation = busy / simulated
    // time, payload GB/s = payload bytes / simulated time.
    CHECK(j["utilisation"].get<double>() == Approx(j["busy_s"].get<double>() / sim));
    CHECK(j["payload_GBps"].get<double>() == Approx(j["payload_bytes"].get<double>() / sim / 1e9));
    CHECK(j["utilisation"].get<double>() > 0);
    CHECK(j["utilisation"].get<double>() < 1);
    // Every TLP adds 24 B and every DLLP 8 B to the payload.
    CHECK(j["wire_bytes"].get<uint64_t>() == j["payload_bytes"].get<uint64_t>() + 24 * j["tlps"].get<uint64_t>() +
                                                  8 * j["dllps"].get<uint64_t>());
  }
  CHECK(p["up"]["payload_bytes"] == drive(s)["device"]["pcie_bytes_up"]);
  CHECK(p["down"]["payload_bytes"] == drive(s)["device"]["pcie_bytes_down"]);
  // 2000 reads of 4 KiB: at least 2000 x 16 = 32,000 data TLPs up, which owe
  // 8,000 ACKs and 8,000 UpdateFCs down.
  CHECK(p["up"]["tlps"].get<uint64_t>() >= 32000);
  CHECK(p["down"]["dllps"].get<uint64_t>() >= 16000);
}
