// SPDX-License-Identifier: BSD-3-Clause
// Two drives on one platform (say, the SSD and a second SSD behind an
// accelerator): each drive's components read keys under the drive's own
// scope, its rules name those keys, and its statistics are its own.
#include <catch2/catch.hpp>
#include <cstring>
#include <systemc>

#include "tests/ModelRig.hpp"
#include "tests/pcie/LinkRig.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/ssd/Drive.hpp"

using namespace vp;
using namespace vp::test;

namespace {
// Two drives' parameters; both small (one plane per channel, 1 MiB blocks of
// 2 KiB pages, 512 pages a block); the second has twice the channels and blocks.
Config two_drives() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  static ParamRegistry reg;
  if (reg.all().empty()) {
    ssd::Drive::declare_params(ParamScope(reg, "ssd"));
    ssd::Drive::declare_params(ParamScope(reg, "ssd2"));
  }
  Config cfg(reg);
  for (const char* d : {"ssd", "ssd2"}) {
    auto set = [&](const std::string& k, const std::string& v) { cfg.set(scoped_key(d, k), v, "test"); };
    set("flash.dies_per_package", "1");
    set("flash.planes_per_die", "1");
    set("dram.size", "256MiB");
    set("cache.size", "16MiB");
  }
  cfg.set("ssd.flash.channels", "1", "test");
  cfg.set("ssd.flash.blocks_per_plane", "32", "test");
  cfg.set("ssd2.flash.channels", "2", "test");
  cfg.set("ssd2.flash.blocks_per_plane", "64", "test");
  cfg.set("ssd2.nvme.max_queue_entries", "256", "test");
  flash::FlashArray::apply_cell(cfg, "ssd.flash");
  flash::FlashArray::apply_cell(cfg, "ssd2.flash");
  return cfg;
}

// Drives a drive's configuration and BAR0 from the host side; its DMA lands
// in a recording target.
struct DriveHost : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<DriveHost> cfg, bar;
  RecordingTarget mem;
  explicit DriveHost(sc_core::sc_module_name n) : sc_module(n), cfg("cfg"), bar("bar"), mem("mem") {}
  void attach(ssd::Drive& d) {
    cfg.bind(d.config());
    bar.bind(d.bar0());
    d.dma().bind(mem.socket);
  }
  uint64_t access(tlm_utils::simple_initiator_socket<DriveHost>& s, bool write, uint64_t addr, uint64_t v,
                  unsigned len) {
    tlm::tlm_generic_payload gp;
    prepare(gp, write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, reinterpret_cast<uint8_t*>(&v), len);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    s->b_transport(gp, d);
    REQUIRE(gp.is_response_ok());
    sc_core::wait(d);
    return v;
  }
};
}  // namespace

TEST_CASE("a second drive in its own scope reads its own keys and counts into its own statistics",
          "[ssd][scope]") {
  Config cfg = two_drives();
  // The drive's own rules, checked per drive and naming that drive's keys:
  // an LBA must be a whole number of flash pages.
  cfg.set("ssd2.flash.page_size", "8KiB", "test");
  CHECK_THROWS_WITH(cfg.validate(),
                    Catch::Contains("ssd2.nvme.lba_size") && Catch::Contains("ssd2.flash.page_size") &&
                        !Catch::Contains("'ssd.") && !Catch::Contains(" ssd."));
  cfg.set("ssd2.flash.page_size", "2KiB", "test");
  REQUIRE_NOTHROW(cfg.validate());

  // Capacity by hand: 32 blocks x 512 pages = 16,384 pages a plane, 73 % of
  // them (overprovision 0.27) floored = 11,960 pages x 2 KiB, one plane;
  // the second: 64 x 512 = 32,768 x 0.73 = 23,920 pages x 2 planes.
  CHECK(ssd::Drive::capacity_bytes(cfg) == 11960ull * 2048);
  CHECK(ssd::Drive::capacity_bytes(cfg, "ssd2") == 2 * 23920ull * 2048);

  ModelServices m(cfg);
  Services& svc = m.svc;
  StatRegistry& stats = m.stats;
  pcie::LinkTiming link;
  ssd::Drive one("one", svc, link), two("two", svc, link, nullptr, "ssd2");
  DriveHost host1("host1"), host2("host2");
  host1.attach(one);
  host2.attach(two);
  CHECK(one.flash.geometry().channels == 1);
  CHECK(two.flash.geometry().channels == 2);
  CHECK(one.ftl.logical_pages() == 11960);
  CHECK(two.ftl.logical_pages() == 2 * 23920);

  // Each controller advertises its own largest queue (CAP.MQES, 0's based).
  uint64_t cap1 = 0, cap2 = 0;
  sc_core::sc_spawn([&] {
    for (auto [h, cap] : {std::pair{&host1, &cap1}, {&host2, &cap2}}) {
      h->access(h->cfg, true, 0x04, 0x6, 2);  // memory decoding and bus mastering
      *cap = h->access(h->bar, false, 0x0, 0, 8);
    }
  });
  sc_core::sc_start();
  CHECK((cap1 & 0xFFFF) == 4095);
  CHECK((cap2 & 0xFFFF) == 255);

  // Each drive's summary sections, in its entry of drives.
  stats.part_in("drives", {{"name", "ssd"}}, {"ssd"});
  stats.part_in("drives", {{"name", "ssd2"}}, {"ssd2"});
  auto sections = stats.sections_json();
  for (unsigned k : {0u, 1u})
    for (const char* s : {"flash", "ftl", "firmware", "dram"}) {
      INFO(k << " " << s);
      CHECK(sections.at("drives").at(k).contains(s));
    }
  // A flat map: 4 bytes per logical page.
  CHECK(sections["drives"][0]["ftl"]["map_dram_bytes"] == 4 * 11960);
  CHECK(sections["drives"][1]["ftl"]["map_dram_bytes"] == 4 * 2 * 23920);
  CHECK(stats.find("ssd2.ftl.page_writes") != nullptr);
  CHECK(stats.find("ssd2.flash.reads") != nullptr);
}

TEST_CASE("a second drive whose SSD DRAM is too small names its own keys", "[ssd][scope]") {
  Config cfg = two_drives();
  cfg.set("ssd2.cache.organisation", "uni", "test");
  cfg.set("ssd2.cache.size", "512MiB", "test");
  REQUIRE_NOTHROW(cfg.validate());
  ModelServices m(cfg);
  Services& svc = m.svc;
  pcie::LinkTiming link;
  ssd::Drive one("one", svc, link);
  CHECK_THROWS_WITH(ssd::Drive("two", svc, link, nullptr, "ssd2"),
                    Catch::Contains("ssd2.cache.size") && Catch::Contains("ssd2.dram.size") &&
                        !Catch::Contains(" ssd.cache") && !Catch::Contains("'ssd.cache"));
}
