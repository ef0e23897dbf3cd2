// SPDX-License-Identifier: BSD-3-Clause
// The NVMe controller as a driver sees it: bring-up through registers and
// the admin queue, and the status codes of malformed commands.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "vp/platform/ServerRun.hpp"
#include "platforms/server/ServerTop.hpp"
#include "tests/TestSupport.hpp"

using namespace vp;
using namespace vp::nvme;

namespace {
// Elaborates the quick preset with no workload and runs `body` once the
// driver has brought the controller up.
void with_controller(const std::function<void(platform::ServerTop&)>& body,
                     const std::vector<std::pair<std::string, std::string>>& sets = {}) {
  test::with_driver(sets, body);
}

uint8_t sc(const Cqe& c) { return status_sc(c.status()); }

// A Read or Write of `nlb` LBAs at `slba` (at most two pages), data at `buf`.
Sqe rw_cmd(uint8_t op, uint64_t slba, uint32_t nlb, uint64_t buf) {
  Sqe c = Sqe::make(op, 0);
  c.nsid = 1;
  c.prp1 = buf;
  c.prp2 = buf + 4096;
  c.cdw10 = static_cast<uint32_t>(slba);
  c.cdw11 = static_cast<uint32_t>(slba >> 32);
  c.cdw12 = nlb - 1;
  return c;
}
uint8_t sct(const Cqe& c) { return status_sct(c.status()); }
}  // namespace

TEST_CASE("bring-up leaves CSTS.RDY set, the namespace identified and I/O queues working", "[ssd][nvme]") {
  with_controller([](platform::ServerTop& top) {
    auto& d = top.driver;
    CHECK((d.mmio_read(CSTS, 4) & CSTS_RDY) == CSTS_RDY);
    CHECK((d.mmio_read(CC, 4) & CC_EN) == CC_EN);
    CHECK(d.mmio_read(VS, 4) == 0x00010400);
    // quick preset: 16 planes of 64 blocks x 64 pages of 2 KiB; 27% hidden
    // leaves floor(4096 * 0.73) = 2990 pages per plane: 47,840 pages = 23,920 LBAs of 4 KiB.
    CHECK(d.info().ns_lbas == 23920);
    CHECK(d.info().lba_size == 4096);
    CHECK(d.info().io_queues == 2);
    CHECK(d.info().max_transfer == 4096u << 5);
    CHECK(d.info().model == "FlashVP ULL Z-SSD");
    // Each core's queue pair answers a read.
    uint64_t buf = top.memory.alloc("test buffer", 4096);
    for (unsigned core = 0; core < 2; ++core) {
      Sqe c = Sqe::make(IO_READ, 0);
      c.nsid = 1;
      c.prp1 = buf;
      c.cdw10 = 7;
      Cqe e = d.io_raw(core, c);
      CHECK(e.status() == 0);
      CHECK(e.sq_id == core + 1);
    }
  });
}

TEST_CASE("malformed I/O commands complete with the NVMe generic status codes", "[ssd][nvme]") {
  with_controller([](platform::ServerTop& top) {
    auto& d = top.driver;
    uint64_t buf = top.memory.alloc("test buffer", 8192);
    auto read = [&](uint64_t slba, uint32_t nlb) { return rw_cmd(IO_READ, slba, nlb, buf); };
    uint64_t n = d.info().ns_lbas;
    {  // invalid opcode
      Sqe c = read(0, 1);
      c.cdw0 = (c.cdw0 & ~0xFFu) | 0x7F;
      Cqe e = d.io_raw(0, c);
      CHECK(sct(e) == SCT_GENERIC);
      CHECK(sc(e) == SC_INVALID_OPCODE);
      CHECK((e.status() & (1u << 14)) != 0);  // do not retry
    }
    {  // LBA range past the end of the namespace
      CHECK(sc(d.io_raw(0, read(n, 1))) == SC_LBA_OUT_OF_RANGE);
      CHECK(sc(d.io_raw(0, read(n - 1, 2))) == SC_LBA_OUT_OF_RANGE);
      CHECK(d.io_raw(0, read(n - 2, 2)).status() == 0);
    }
    {  // namespace that does not exist
      Sqe c = read(0, 1);
      c.nsid = 2;
      CHECK(sc(d.io_raw(0, c)) == SC_INVALID_NAMESPACE);
    }
    {  // PRP1 not dword aligned
      Sqe c = read(0, 1);
      c.prp1 = buf + 2;
      CHECK(sc(d.io_raw(0, c)) == SC_PRP_OFFSET_INVALID);
    }
    {  // transfer above MDTS
      CHECK(sc(d.io_raw(0, read(0, 33))) == SC_INVALID_FIELD);  // 33 x 4 KiB > 128 KiB
    }
    {  // SGL requested
      Sqe c = read(0, 1);
      c.cdw0 |= 1u << 14;
      CHECK(sc(d.io_raw(0, c)) == SC_INVALID_FIELD);
    }
    {  // buffer outside host memory
      Sqe c = read(0, 1);
      c.prp1 = 0x7000000000ull;
      CHECK(sc(d.io_raw(0, c)) == SC_DATA_TRANSFER_ERROR);
    }
  });
}

TEST_CASE("malformed admin commands complete with the right status codes", "[ssd][nvme]") {
  with_controller([](platform::ServerTop& top) {
    auto& d = top.driver;
    uint64_t page = top.memory.alloc("test buffer", 4096);
    Sqe c = Sqe::make(0xC1, 0);  // vendor specific, not implemented
    CHECK(sc(d.admin(c)) == SC_INVALID_OPCODE);
    c = Sqe::make(ADMIN_IDENTIFY, 0);
    c.prp1 = page;
    c.cdw10 = 0x55;  // unknown CNS
    CHECK(sc(d.admin(c)) == SC_INVALID_FIELD);
    c = Sqe::make(ADMIN_CREATE_SQ, 0);  // queue 1 already exists
    c.prp1 = page;
    c.cdw10 = 1 | (15u << 16);
    c.cdw11 = 1 | (1u << 16);
    Cqe e = d.admin(c);
    CHECK(sct(e) == SCT_COMMAND_SPECIFIC);
    CHECK(sc(e) == SC_INVALID_QID);
    // Free queue pair 2 (core 1's), then try to re-create it wrongly.
    c = Sqe::make(ADMIN_DELETE_SQ, 0);
    c.cdw10 = 2;
    REQUIRE(d.admin(c).status() == 0);
    c = Sqe::make(ADMIN_DELETE_CQ, 0);
    c.cdw10 = 2;
    REQUIRE(d.admin(c).status() == 0);
    c = Sqe::make(ADMIN_DELETE_SQ, 0);  // already gone
    c.cdw10 = 2;
    CHECK(sc(d.admin(c)) == SC_INVALID_QID);
    c = Sqe::make(ADMIN_CREATE_SQ, 0);  // its CQ does not exist
    c.prp1 = page;
    c.cdw10 = 2 | (15u << 16);
    c.cdw11 = 1 | (9u << 16);
    e = d.admin(c);
    CHECK(sct(e) == SCT_COMMAND_SPECIFIC);
    CHECK(sc(e) == SC_CQ_INVALID);
    c = Sqe::make(ADMIN_CREATE_CQ, 0);  // larger than CAP.MQES allows (4096 entries)
    c.prp1 = page;
    c.cdw10 = 2 | (4096u << 16);
    c.cdw11 = 1;
    e = d.admin(c);
    CHECK(sct(e) == SCT_COMMAND_SPECIFIC);
    CHECK(sc(e) == SC_INVALID_QSIZE);
    c = Sqe::make(ADMIN_CREATE_CQ, 0);  // an interrupt vector the controller does not have
    c.prp1 = page;
    c.cdw10 = 2 | (15u << 16);
    c.cdw11 = 1 | 2 | (4000u << 16);
    CHECK(sc(d.admin(c)) == SC_INVALID_VECTOR);
    c = Sqe::make(ADMIN_CREATE_CQ, 0);  // not physically contiguous, but CAP.CQR is set
    c.prp1 = page;
    c.cdw10 = 2 | (15u << 16);
    c.cdw11 = 0;
    CHECK(sc(d.admin(c)) == SC_INVALID_FIELD);
    c = Sqe::make(ADMIN_DELETE_CQ, 0);  // SQ 1 still uses CQ 1
    c.cdw10 = 1;
    e = d.admin(c);
    CHECK(sc(e) == SC_INVALID_QUEUE_DELETION);
  });
}

TEST_CASE("a write through a PRP list reads back through another queue", "[ssd][nvme]") {
  with_controller([](platform::ServerTop& top) {
    auto& d = top.driver;
    const uint32_t pages = 5;  // PRP1 + a list of four entries
    uint64_t wbuf = top.memory.alloc("test buffer", pages * 4096), rbuf = top.memory.alloc("test buffer", pages * 4096);
    uint8_t* w = d.host_ptr(wbuf);
    for (uint32_t i = 0; i < pages * 4096; ++i) w[i] = static_cast<uint8_t>(i * 7 + i / 4096);
    auto cmd = [&](uint8_t op, uint64_t buf) {
      uint64_t list = top.memory.alloc("test buffer", 4096);
      auto* e = reinterpret_cast<uint64_t*>(d.host_ptr(list));
      for (uint32_t i = 1; i < pages; ++i) e[i - 1] = buf + i * 4096ull;
      Sqe c = Sqe::make(op, 0);
      c.nsid = 1;
      c.prp1 = buf;
      c.prp2 = list;
      c.cdw10 = 1000;
      c.cdw12 = pages - 1;
      return c;
    };
    REQUIRE(d.io_raw(0, cmd(IO_WRITE, wbuf)).status() == 0);
    REQUIRE(d.io_raw(1, cmd(IO_READ, rbuf)).status() == 0);
    CHECK(std::memcmp(d.host_ptr(rbuf), w, pages * 4096) == 0);
  });
}

TEST_CASE("disabling the controller drops RDY and enabling without admin queues reports fatal status",
          "[ssd][nvme]") {
  with_controller([](platform::ServerTop& top) {
    auto& d = top.driver;
    d.mmio_write(CC, 0, 4);
    sc_core::wait(sc_core::sc_time(20, sc_core::SC_US));  // ssd.nvme.ready_time is 10 us
    CHECK((d.mmio_read(CSTS, 4) & CSTS_RDY) == 0);
    d.mmio_write(ASQ, 0, 8);  // no admin submission queue
    d.mmio_write(CC, CC_EN | (6u << 16) | (4u << 20), 4);
    sc_core::wait(sc_core::sc_time(20, sc_core::SC_US));
    uint32_t csts = static_cast<uint32_t>(d.mmio_read(CSTS, 4));
    CHECK((csts & CSTS_RDY) == 0);
    CHECK((csts & CSTS_CFS) == CSTS_CFS);
  });
}

TEST_CASE("round robin arbitration shares a busy controller evenly between queues", "[ssd][nvme][arbitration]") {
  // Four command slots in the controller, two cores each keeping 16 reads in
  // their own SQ, one die behind it all: the controller, not the host, picks
  // who goes next, one command per queue per turn.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  platform::RunOptions o;
  o.preset = "quick";
  o.sets = {{"host.cores", "2"}, {"ssd.nvme.max_outstanding", "4"}, {"ssd.flash.channels", "1"},
            {"ssd.flash.dies_per_package", "1"}, {"ssd.flash.planes_per_die", "1"},
            {"ssd.flash.blocks_per_plane", "256"},
            {"workload.fio", "[q]\ndirect=1\nrw=randread\nbs=4k\niodepth=16\nnumber_ios=3000\nnumjobs=2\n"}};
  Config cfg = platform::build_config(o);
  auto s = platform::run_platform(cfg, o).summary;
  REQUIRE(s["jobs"].size() == 2);
  CHECK(s["jobs"][0]["core"] != s["jobs"][1]["core"]);
  double a = s["jobs"][0]["iops"].get<double>(), b = s["jobs"][1]["iops"].get<double>();
  CHECK(a == Approx(b).epsilon(0.03));
  // Together they get the die's limit: 2 pages of 2 KiB per read, each page
  // 35 ns + 3 us + 2.56 us on the die: 1 / 11.19 us.
  CHECK(a + b == Approx(1e6 / 11.19).epsilon(0.03));
}

namespace {
// A Read or Write of `nlb` LBAs at `slba` through queue pair 0, the data in host memory at `buf`.
Cqe rw(platform::ServerTop& top, uint8_t op, uint64_t slba, uint32_t nlb, uint64_t buf) {
  return top.driver.io_raw(0, rw_cmd(op, slba, nlb, buf));
}
uint8_t* hostmem(platform::ServerTop& top, uint64_t addr) { return top.dram.data() + (addr - host::HostBus::kDramBase); }
}  // namespace

TEST_CASE("Dataset Management with deallocate trims its ranges and the rest stays", "[ssd][nvme][dsm]") {
  with_controller([](platform::ServerTop& top) {
    auto& d = top.driver;
    uint64_t data = top.memory.alloc("test buffer", 8192), list = top.memory.alloc("test buffer", 4096);
    std::memset(hostmem(top, data), 0xA5, 8192);
    REQUIRE(rw(top, IO_WRITE, 10, 2, data).status() == 0);
    REQUIRE(rw(top, IO_WRITE, 12, 2, data).status() == 0);
    // Two ranges: LBAs 10-11 and LBA 100 (written by preconditioning).
    uint32_t r[8] = {0, 2, 10, 0, 0, 1, 100, 0};
    std::memcpy(hostmem(top, list), r, sizeof r);
    Sqe c = Sqe::make(IO_DSM, 0);
    c.nsid = 1;
    c.prp1 = list;
    c.cdw10 = 1;       // two ranges
    c.cdw11 = DSM_AD;  // deallocate
    CHECK(d.io_raw(0, c).status() == 0);
    // 3 LBAs of 4 KiB = 6 flash pages of 2 KiB.
    CHECK(top.drive.ftl.summary()["trimmed_pages"] == 6);
    std::memset(hostmem(top, data), 0x11, 8192);
    REQUIRE(rw(top, IO_READ, 10, 2, data).status() == 0);
    CHECK(std::all_of(hostmem(top, data), hostmem(top, data) + 8192, [](uint8_t b) { return b == 0; }));
    REQUIRE(rw(top, IO_READ, 12, 2, data).status() == 0);
    CHECK(std::all_of(hostmem(top, data), hostmem(top, data) + 8192, [](uint8_t b) { return b == 0xA5; }));
    // Without the deallocate attribute the ranges are hints: nothing changes.
    c.cdw11 = 0;
    CHECK(d.io_raw(0, c).status() == 0);
    CHECK(top.drive.ftl.summary()["trimmed_pages"] == 6);
    // A range past the namespace is refused before anything is trimmed.
    r[6] = static_cast<uint32_t>(d.info().ns_lbas);
    std::memcpy(hostmem(top, list), r, sizeof r);
    c.cdw11 = DSM_AD;
    CHECK(sc(d.io_raw(0, c)) == SC_LBA_OUT_OF_RANGE);
  });
}

TEST_CASE("Write Zeroes zeroes its LBAs and Identify advertises it and Dataset Management", "[ssd][nvme][dsm]") {
  with_controller([](platform::ServerTop& top) {
    auto& d = top.driver;
    uint64_t data = top.memory.alloc("test buffer", 8192), page = top.memory.alloc("test buffer", 4096);
    Sqe id = Sqe::make(ADMIN_IDENTIFY, 0);
    id.prp1 = page;
    id.cdw10 = CNS_CONTROLLER;
    REQUIRE(d.admin(id).status() == 0);
    uint16_t oncs;
    std::memcpy(&oncs, hostmem(top, page) + idctl::ONCS, 2);
    CHECK(oncs == (ONCS_COMPARE | ONCS_DSM | ONCS_WRITE_ZEROES));
    std::memset(hostmem(top, data), 0x5A, 8192);
    REQUIRE(rw(top, IO_WRITE, 40, 2, data).status() == 0);
    Sqe z = Sqe::make(IO_WRITE_ZEROES, 0);
    z.nsid = 1;
    z.cdw10 = 41;
    z.cdw12 = 0;  // one LBA
    CHECK(d.io_raw(0, z).status() == 0);
    REQUIRE(rw(top, IO_READ, 40, 2, data).status() == 0);
    CHECK(std::all_of(hostmem(top, data), hostmem(top, data) + 4096, [](uint8_t b) { return b == 0x5A; }));
    CHECK(std::all_of(hostmem(top, data) + 4096, hostmem(top, data) + 8192, [](uint8_t b) { return b == 0; }));
    z.cdw10 = static_cast<uint32_t>(d.info().ns_lbas);
    CHECK(sc(d.io_raw(0, z)) == SC_LBA_OUT_OF_RANGE);
  });
}

namespace {
// Get Log Page of `bytes` from `offset` into host memory at `buf`.
Cqe get_log(platform::ServerTop& top, uint8_t lid, uint32_t bytes, uint64_t buf, uint64_t offset = 0) {
  Sqe c = Sqe::make(ADMIN_GET_LOG_PAGE, 0);
  c.nsid = 0xFFFFFFFFu;
  c.prp1 = buf;
  uint32_t numd = bytes / 4 - 1;
  c.cdw10 = lid | (numd & 0xFFFF) << 16;
  c.cdw11 = numd >> 16;
  c.cdw12 = static_cast<uint32_t>(offset);
  return top.driver.admin(c);
}
uint64_t le64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
}  // namespace

TEST_CASE("the SMART and error and firmware logs report what happened", "[ssd][nvme][log]") {
  with_controller([](platform::ServerTop& top) {
    auto& d = top.driver;
    uint64_t data = top.memory.alloc("test buffer", 8192), log = top.memory.alloc("test buffer", 4096);
    for (uint64_t lba : {1, 2, 3}) REQUIRE(rw(top, IO_READ, lba, 1, data).status() == 0);
    for (uint64_t lba : {10, 20}) REQUIRE(rw(top, IO_WRITE, lba, 2, data).status() == 0);
    REQUIRE(get_log(top, LOG_SMART, 512, log).status() == 0);
    const uint8_t* s = hostmem(top, log);
    CHECK(s[smart::CRITICAL_WARNING] == 0);
    CHECK(s[smart::AVAILABLE_SPARE] == 100);
    CHECK(s[smart::SPARE_THRESHOLD] == 10);
    CHECK(s[smart::PERCENT_USED] == 0);                 // nothing erased yet
    CHECK(le64(s + smart::DATA_UNITS_READ) == 1);      // 12 KiB, in thousands of 512 bytes, rounded up
    CHECK(le64(s + smart::DATA_UNITS_WRITTEN) == 1);   // 16 KiB
    CHECK(le64(s + smart::HOST_READS) == 3);
    CHECK(le64(s + smart::HOST_WRITES) == 2);
    CHECK(le64(s + smart::POWER_CYCLES) == 1);
    CHECK(le64(s + smart::UNSAFE_SHUTDOWNS) == 0);
    CHECK(le64(s + smart::ERROR_ENTRIES) == 0);
    // A bad command lands in the error log, newest first.
    Sqe bad = Sqe::make(0x7F, 0);
    bad.nsid = 1;
    Cqe e = d.io_raw(1, bad);
    REQUIRE(sc(e) == SC_INVALID_OPCODE);
    REQUIRE(get_log(top, LOG_ERROR, 128, log).status() == 0);
    CHECK(le64(s) == 1);  // error count
    uint16_t sqid, cid, st;
    std::memcpy(&sqid, s + 8, 2);
    std::memcpy(&cid, s + 10, 2);
    std::memcpy(&st, s + 12, 2);
    CHECK(sqid == 2);
    CHECK(cid == e.cid);
    CHECK(st >> 1 == e.status());
    CHECK(le64(s + 64) == 0);  // the second entry is empty
    // An offset into the SMART log: its data units read first.
    REQUIRE(get_log(top, LOG_SMART, 16, log, smart::DATA_UNITS_READ).status() == 0);
    CHECK(le64(s) == 1);
    REQUIRE(get_log(top, LOG_SMART, 512, log).status() == 0);
    CHECK(le64(s + smart::ERROR_ENTRIES) == 1);
    // Firmware slot 1 is active and holds revision 0.1.
    REQUIRE(get_log(top, LOG_FW_SLOT, 512, log).status() == 0);
    CHECK(s[0] == 1);
    CHECK(std::string(reinterpret_cast<const char*>(s + 8), 3) == "0.1");
    // A log page the controller does not have.
    Cqe u = get_log(top, 0x7E, 512, log);
    CHECK(sct(u) == SCT_COMMAND_SPECIFIC);
    CHECK(sc(u) == SC_INVALID_LOG_PAGE);
    CHECK(sc(get_log(top, LOG_SMART, 512, log, 4096)) == SC_INVALID_FIELD);  // offset past the log
  });
}

TEST_CASE("SMART percentage used follows the mean erase count over the rated endurance", "[ssd][nvme][log]") {
  with_controller(
      [](platform::ServerTop& top) {
        auto& d = top.driver;
        uint64_t data = top.memory.alloc("test buffer", 32 * 4096), log = top.memory.alloc("test buffer", 4096);
        // 600 writes of 128 KiB over the first 4800 LBAs: GC has to erase.
        for (uint64_t k = 0; k < 600; ++k) {
          Sqe c = Sqe::make(IO_WRITE, 0);
          c.nsid = 1;
          c.prp1 = data;
          c.prp2 = top.memory.alloc("test buffer", 4096);
          uint64_t* list = reinterpret_cast<uint64_t*>(hostmem(top, c.prp2));
          for (int i = 0; i < 31; ++i) list[i] = data + 4096 * (i + 1);
          c.cdw10 = static_cast<uint32_t>((k * 32) % 4800);
          c.cdw12 = 31;
          REQUIRE(d.io_raw(0, c).status() == 0);
        }
        REQUIRE(get_log(top, LOG_SMART, 512, log).status() == 0);
        double mean = top.drive.ftl.summary()["erase_count"]["mean"].get<double>();
        REQUIRE(mean > 0.05);
        // Rated for 2 cycles: percentage used = floor(100 x mean / 2).
        CHECK(hostmem(top, log)[smart::PERCENT_USED] == static_cast<uint8_t>(std::floor(mean * 50)));
      },
      {{"ssd.flash.endurance", "2"}});
}

TEST_CASE("Compare succeeds on equal data and reports a compare failure otherwise", "[ssd][nvme]") {
  with_controller([](platform::ServerTop& top) {
    auto& d = top.driver;
    uint64_t data = top.memory.alloc("test buffer", 8192);
    for (int i = 0; i < 8192; ++i) hostmem(top, data)[i] = static_cast<uint8_t>(i * 7);
    REQUIRE(rw(top, IO_WRITE, 30, 2, data).status() == 0);
    CHECK(rw(top, IO_COMPARE, 30, 2, data).status() == 0);
    hostmem(top, data)[5000] ^= 1;  // one bit of the second LBA differs
    Cqe e = rw(top, IO_COMPARE, 30, 2, data);
    CHECK(sct(e) == SCT_MEDIA);
    CHECK(sc(e) == SC_COMPARE_FAILURE);
    CHECK(rw(top, IO_COMPARE, 30, 1, data).status() == 0);  // the first LBA alone still matches
    CHECK(sc(rw(top, IO_COMPARE, d.info().ns_lbas, 1, data)) == SC_LBA_OUT_OF_RANGE);
    // The data was not changed by comparing.
    std::memset(hostmem(top, data), 0, 8192);
    REQUIRE(rw(top, IO_READ, 30, 2, data).status() == 0);
    CHECK(hostmem(top, data)[5000] == static_cast<uint8_t>(5000 * 7));
  });
}
