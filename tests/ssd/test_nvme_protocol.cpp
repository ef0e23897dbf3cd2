// SPDX-License-Identifier: BSD-3-Clause
// The NVMe controller driven as a strict host would: configuration space,
// registers and queues by hand, every upstream message observed. Expected
// values come from the NVMe 1.4 and PCI specifications, not from the
// modeled driver.
#include <map>
#include <memory>
#include <random>

#include "NvmeRig.hpp"

using namespace vp;
using namespace vp::nvme;
using vp::test::NvmeRig;
using vp::test::with_rig;

namespace {
uint8_t sc(const Cqe& c) { return status_sc(c.status()); }
uint8_t sct(const Cqe& c) { return status_sct(c.status()); }
Sqe feature(uint8_t op, uint8_t fid, uint32_t cdw11, uint32_t sel = 0) {
  Sqe c = Sqe::make(op, 0);
  c.cdw10 = fid | (sel << 8);
  c.cdw11 = cdw11;
  return c;
}
}  // namespace

TEST_CASE("config space names an NVMe function and BAR0 decodes only once memory is enabled", "[ssd][nvme][pci]") {
  with_rig([](NvmeRig& r) {
    CHECK(r.cfg(0x08) >> 8 == 0x010802);
    bool ok = true;
    r.access(false, NvmeRig::kBar + CAP, 0, 4, &ok);
    CHECK_FALSE(ok);  // Unsupported Request: memory space is off at reset
    r.pci_enable();
    uint64_t cap = r.reg(CAP, 8);
    CHECK((cap & 0xFFFF) == 4095);            // MQES: 4096 entries
    CHECK((cap >> 16 & 1) == 1);              // CQR
    CHECK((cap >> 17 & 3) == 3);              // AMS: WRR with urgent, vendor specific
    CHECK((cap >> 37 & 1) == 1);              // NVM command set
    CHECK(r.reg(VS) == 0x00010400);
    // The MSI-X capability points into BAR0 where the controller decodes its table.
    uint32_t table = r.cfg(pcie::PciConfigSpace::kMsixCap + 4), pba = r.cfg(pcie::PciConfigSpace::kMsixCap + 8);
    CHECK(table == MSIX_TABLE);
    CHECK(pba == MSIX_PBA);
    CHECK((r.cfg(pcie::PciConfigSpace::kMsixCap + 2, 2) & 0x7FF) + 1 == 65);  // quick preset: 64 I/O queues + admin
    r.set_reg(MSIX_TABLE + 16 * 3 + 8, 0xABCD);
    CHECK(r.reg(MSIX_TABLE + 16 * 3 + 8) == 0xABCD);
    CHECK(r.reg(MSIX_TABLE + 16 * 3 + 12) == 1);  // vector control: masked since reset
  });
}

TEST_CASE("enable and reset: CC.EN clears every queue and doorbells of a disabled controller are ignored",
          "[ssd][nvme][bringup]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    // Doorbell rung before the controller is enabled: nothing is fetched.
    NvmeRig::Queue early;
    early.qid = 0;
    early.size = 2;
    early.sq = r.alloc(128);
    r.push(early, Sqe::make(ADMIN_KEEP_ALIVE, 0));
    r.sleep(200 * US);
    CHECK(r.upstream.empty());
    // Enable: RDY follows after ssd.nvme.ready_time (10 us).
    Tick t0 = now_ps();
    uint32_t csts = r.enable();
    CHECK((csts & CSTS_RDY) == CSTS_RDY);
    CHECK(now_ps() - t0 >= 10 * US);
    r.program_vector(0);
    r.program_vector(1);
    auto q = r.create_pair(1, 16, 1);
    uint64_t buf = r.alloc(4096);
    Cqe e;
    r.push(q, NvmeRig::io(IO_READ, 0, 1, buf));
    REQUIRE(r.reap(q, e));
    CHECK(e.status() == 0);
    // Reset, then enable again: queue 1 is gone, so its doorbell is an invalid
    // doorbell register (asynchronous event, error type, info 00h, log 01h).
    r.set_reg(CC, 0);
    r.wait_csts([](uint32_t c) { return !(c & CSTS_RDY); });
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    r.push(r.admin_q, Sqe::make(ADMIN_ASYNC_EVENT, 0));
    r.sleep(20 * US);
    r.set_reg(sq_tail_doorbell(1, 0), 1);
    REQUIRE(r.reap(r.admin_q, e));
    CHECK(e.status() == 0);
    CHECK(e.dw0 == (AER_ERROR | AER_INVALID_DOORBELL << 8 | LOG_ERROR << 16));
    // The admin queue works after the reset; creating queue 1 again succeeds.
    auto q2 = r.create_pair(1, 16, 1);
    r.push(q2, NvmeRig::io(IO_READ, 0, 1, buf));
    REQUIRE(r.reap(q2, e));
    CHECK(e.status() == 0);
  });
}

TEST_CASE("shutdown notification reports processing then complete and stops fetching", "[ssd][nvme][bringup]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    r.program_vector(1);
    auto q = r.create_pair(1, 16, 1);
    uint64_t buf = r.alloc(4096);
    std::memset(r.mem(buf), 0x5A, 4096);
    r.push(q, NvmeRig::io(IO_WRITE, 3, 1, buf));
    // Normal shutdown while the write is in flight: SHST = 01b at once, 10b after the flush.
    r.set_reg(CC, static_cast<uint32_t>(r.reg(CC)) | (1u << 14));
    CHECK(csts_shst(static_cast<uint32_t>(r.reg(CSTS))) == SHST_OCCURRING);
    uint32_t csts = r.wait_csts([](uint32_t c) { return csts_shst(c) == SHST_COMPLETE; });
    CHECK(csts_shst(csts) == SHST_COMPLETE);
    Cqe e;
    REQUIRE(r.reap(q, e));  // the write finished before shutdown completed
    CHECK(e.status() == 0);
    size_t reads = r.upstream.size();
    r.push(q, NvmeRig::io(IO_READ, 3, 1, buf));
    r.sleep(200 * US);
    CHECK_FALSE(r.peek(q, e));  // a shut-down controller fetches nothing more
    CHECK(r.upstream.size() == reads);
    // Reset and enable again: it works, and the data written before shutdown is there.
    r.set_reg(CC, 0);
    r.wait_csts([](uint32_t c) { return !(c & CSTS_RDY); });
    CHECK(csts_shst(static_cast<uint32_t>(r.reg(CSTS))) == SHST_NORMAL);
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    auto q2 = r.create_pair(1, 16, 1);
    std::memset(r.mem(buf), 0, 4096);
    r.push(q2, NvmeRig::io(IO_READ, 3, 1, buf));
    REQUIRE(r.reap(q2, e));
    CHECK(e.status() == 0);
    CHECK(r.mem(buf)[0] == 0x5A);
    CHECK(r.mem(buf)[4095] == 0x5A);
  });
}

TEST_CASE("an arbitration mechanism CAP.AMS does not offer makes enabling fail", "[ssd][nvme][bringup]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    uint32_t csts = r.enable(2);  // 010b is reserved
    CHECK((csts & CSTS_CFS) == CSTS_CFS);
    CHECK((csts & CSTS_RDY) == 0);
  });
}

TEST_CASE("invalid doorbell writes raise error events masked until the error log is read", "[ssd][nvme][aer]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    r.create_pair(1, 16, 1);
    for (int i = 0; i < 2; ++i) r.push(r.admin_q, Sqe::make(ADMIN_ASYNC_EVENT, 0));
    r.sleep(20 * US);
    r.set_reg(sq_tail_doorbell(1, 0), 16);  // beyond the 16-entry queue
    Cqe e;
    REQUIRE(r.reap(r.admin_q, e));
    CHECK(e.dw0 == (AER_ERROR | AER_INVALID_DOORBELL_VALUE << 8 | LOG_ERROR << 16));
    // A CQ head beyond what was posted is invalid too; this event waits: error events are masked.
    r.set_reg(cq_head_doorbell(1, 0), 5);
    r.sleep(50 * US);
    CHECK_FALSE(r.peek(r.admin_q, e));
    // Reading the Error Information log unmasks: the queued event completes the second request.
    Sqe log = Sqe::make(ADMIN_GET_LOG_PAGE, 0);
    log.prp1 = r.alloc(4096);
    log.cdw10 = LOG_ERROR | ((64 / 4 - 1) << 16);
    Cqe l = r.admin(log);
    CHECK(l.status() == 0);
    // The newest entry is the CQ head doorbell of queue 1: no command (CID FFFFh), status 0.
    uint16_t sqid, cid, st;
    std::memcpy(&sqid, r.mem(log.prp1) + 8, 2);
    std::memcpy(&cid, r.mem(log.prp1) + 10, 2);
    std::memcpy(&st, r.mem(log.prp1) + 12, 2);
    CHECK(sqid == 1);
    CHECK(cid == 0xFFFF);
    CHECK(st == 0);
    REQUIRE(r.reap(r.admin_q, e));
    CHECK(e.dw0 == (AER_ERROR | AER_INVALID_DOORBELL_VALUE << 8 | LOG_ERROR << 16));
    // AERL = 3: four requests may be outstanding, the fifth is refused.
    std::vector<uint16_t> aers;
    for (int i = 0; i < 4; ++i) aers.push_back(r.push(r.admin_q, Sqe::make(ADMIN_ASYNC_EVENT, 0)));
    Cqe fifth = r.admin(Sqe::make(ADMIN_ASYNC_EVENT, 0));
    CHECK(sct(fifth) == SCT_COMMAND_SPECIFIC);
    CHECK(sc(fifth) == SC_AER_LIMIT);
    // Abort one of them: it completes with Command Abort Requested and Abort reports success (DW0 bit 0 clear).
    uint16_t victim = aers[1];
    Sqe ab = Sqe::make(ADMIN_ABORT, 0);
    ab.cdw10 = uint32_t(victim) << 16;  // SQ 0
    r.push(r.admin_q, ab);
    Cqe a1, a2;
    REQUIRE(r.reap(r.admin_q, a1));
    REQUIRE(r.reap(r.admin_q, a2));
    const Cqe& aborted = a1.cid == victim ? a1 : a2;
    const Cqe& abort = a1.cid == victim ? a2 : a1;
    CHECK(aborted.cid == victim);
    CHECK(sc(aborted) == SC_ABORT_REQUESTED);
    CHECK(abort.status() == 0);
    CHECK((abort.dw0 & 1) == 0);
    ab.cdw10 = 1 | (0x7777u << 16);  // a command not found: "not aborted"
    CHECK((r.admin(ab).dw0 & 1) == 1);
  });
}

TEST_CASE("keep alive: the timer rounds up to KAS and its expiry is a fatal status", "[ssd][nvme][admin]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    Sqe id = Sqe::make(ADMIN_IDENTIFY, 0);
    id.prp1 = r.alloc(4096);
    id.cdw10 = CNS_CONTROLLER;
    REQUIRE(r.admin(id).status() == 0);
    uint16_t kas;
    std::memcpy(&kas, r.mem(id.prp1) + idctl::KAS, 2);
    CHECK(kas == 1);  // 100 ms granularity
    // 150 ms rounds up to 200 ms. A Keep Alive 150 ms later restarts it.
    Tick t0 = now_ps();
    REQUIRE(r.admin(feature(ADMIN_SET_FEATURES, FEAT_KEEP_ALIVE, 150)).status() == 0);
    r.sleep(150 * MS - (now_ps() - t0));
    Tick ka = now_ps();
    REQUIRE(r.admin(Sqe::make(ADMIN_KEEP_ALIVE, 0)).status() == 0);
    Tick ka_done = now_ps();
    r.sleep(ka + 195 * MS - now_ps());
    CHECK((r.reg(CSTS) & CSTS_CFS) == 0);
    r.sleep(ka_done + 205 * MS - now_ps());
    CHECK((r.reg(CSTS) & CSTS_CFS) == CSTS_CFS);
  });
}

TEST_CASE("features: arbitration and coalescing and queues and power and cache answer as set", "[ssd][nvme][admin]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    auto get = [&](uint8_t fid, uint32_t sel = 0, uint32_t cdw11 = 0) {
      return r.admin(feature(ADMIN_GET_FEATURES, fid, cdw11, sel));
    };
    auto set = [&](uint8_t fid, uint32_t v) { return r.admin(feature(ADMIN_SET_FEATURES, fid, v)); };
    CHECK(set(FEAT_ARBITRATION, 0x03010002).status() == 0);  // HPW 3, MPW 1, LPW 0, AB 2
    CHECK(get(FEAT_ARBITRATION).dw0 == 0x03010002);
    CHECK(get(FEAT_ARBITRATION, SEL_DEFAULT).dw0 == 0);
    CHECK(get(FEAT_ARBITRATION, SEL_SAVED).dw0 == 0);  // nothing is saveable: the default
    CHECK(get(FEAT_ARBITRATION, SEL_CAPABILITIES).dw0 == FEAT_CAP_CHANGEABLE);
    CHECK(set(FEAT_IRQ_COALESCE, 0x0A07).status() == 0);
    CHECK(get(FEAT_IRQ_COALESCE).dw0 == 0x0A07);
    CHECK(set(FEAT_IRQ_CONFIG, 5 | 1u << 16).status() == 0);
    CHECK(get(FEAT_IRQ_CONFIG, 0, 5).dw0 == (5 | 1u << 16));
    CHECK(get(FEAT_IRQ_CONFIG, 0, 6).dw0 == 6);
    CHECK(sc(set(FEAT_IRQ_CONFIG, 65)) == SC_INVALID_FIELD);  // 65 vectors: 0..64
    CHECK(sc(set(FEAT_IRQ_CONFIG, 0 | 1u << 16)) == SC_INVALID_FIELD);  // the admin vector is never coalesced
    CHECK(set(FEAT_ASYNC_EVENT, 0x1FF).status() == 0);
    CHECK(get(FEAT_ASYNC_EVENT).dw0 == 0x1FF);
    CHECK(set(FEAT_POWER_MGMT, 0).status() == 0);
    CHECK(sc(set(FEAT_POWER_MGMT, 1)) == SC_INVALID_FIELD);  // NPSS = 0: only power state 0
    CHECK(sc(set(FEAT_VOLATILE_WC, 1)) == SC_INVALID_FIELD);  // Identify VWC = 0: no volatile cache to switch
    CHECK(sc(get(FEAT_VOLATILE_WC)) == SC_INVALID_FIELD);
    CHECK(sc(get(0x7E)) == SC_INVALID_FIELD);
    Sqe save = feature(ADMIN_SET_FEATURES, FEAT_ARBITRATION, 0);
    save.cdw10 |= SET_FEATURES_SV;
    Cqe s = r.admin(save);
    CHECK(sct(s) == SCT_COMMAND_SPECIFIC);
    CHECK(sc(s) == SC_FEATURE_NOT_SAVEABLE);
    Cqe nq = set(FEAT_NUM_QUEUES, 3 | 1u << 16);  // 4 SQs, 2 CQs
    CHECK(nq.status() == 0);
    CHECK(nq.dw0 == (3 | 1u << 16));
    r.create_pair(1, 16, 1);
    CHECK(sc(set(FEAT_NUM_QUEUES, 7 | 7u << 16)) == SC_COMMAND_SEQUENCE);  // only before I/O queues exist
    Sqe cq = Sqe::make(ADMIN_CREATE_CQ, 0);  // CQ 3 is beyond the 2 granted
    cq.prp1 = r.alloc(4096);
    cq.cdw10 = 3 | (15u << 16);
    cq.cdw11 = 1;
    CHECK(sc(r.admin(cq)) == SC_INVALID_QID);
  });
}

TEST_CASE("Format NVM deallocates the namespace and rejects formats it does not have", "[ssd][nvme][admin]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    auto q = r.create_pair(1, 16, 1);
    uint64_t buf = r.alloc(8192);
    std::memset(r.mem(buf), 0xC3, 8192);
    Cqe e;
    r.push(q, NvmeRig::io(IO_WRITE, 100, 2, buf, buf + 4096));
    REQUIRE(r.reap(q, e));
    REQUIRE(e.status() == 0);
    Sqe f = Sqe::make(ADMIN_FORMAT_NVM, 0);
    f.nsid = 1;
    f.cdw10 = 1;  // LBA format 1 does not exist
    CHECK(sc(r.admin(f)) == SC_INVALID_FORMAT);
    f.cdw10 = 1u << 5;  // protection information
    CHECK(sc(r.admin(f)) == SC_INVALID_FORMAT);
    f.cdw10 = 2u << 9;  // cryptographic erase
    CHECK(sc(r.admin(f)) == SC_INVALID_FIELD);
    f.cdw10 = 1u << 9;  // user data erase
    CHECK(r.admin(f).status() == 0);
    r.push(q, NvmeRig::io(IO_READ, 100, 2, buf, buf + 4096));
    REQUIRE(r.reap(q, e));
    CHECK(e.status() == 0);
    CHECK(std::all_of(r.mem(buf), r.mem(buf) + 8192, [](uint8_t b) { return b == 0; }));
  });
}

TEST_CASE("Identify reports the namespace GUID in its descriptor list and the admin limits", "[ssd][nvme][admin]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    Sqe id = Sqe::make(ADMIN_IDENTIFY, 0);
    id.prp1 = r.alloc(4096);
    id.nsid = 1;
    id.cdw10 = CNS_NS_DESCRIPTORS;
    REQUIRE(r.admin(id).status() == 0);
    const uint8_t* d = r.mem(id.prp1);
    CHECK(d[0] == NIDT_NGUID);
    CHECK(d[1] == 16);
    CHECK(d[20] == 0);  // the list ends after one descriptor
    uint8_t guid[16];
    std::memcpy(guid, d + 4, 16);
    id.cdw10 = CNS_NAMESPACE;
    REQUIRE(r.admin(id).status() == 0);
    CHECK(std::memcmp(guid, r.mem(id.prp1) + idns::NGUID, 16) == 0);
    CHECK(std::any_of(guid, guid + 16, [](uint8_t b) { return b != 0; }));
    id.cdw10 = CNS_CONTROLLER;
    id.nsid = 0;
    REQUIRE(r.admin(id).status() == 0);
    d = r.mem(id.prp1);
    CHECK(d[idctl::AERL] == 3);
    CHECK(d[idctl::ACL] == 3);
    CHECK((d[idctl::OACS] & idctl::OACS_FORMAT) != 0);
    CHECK(d[idctl::VWC] == 0);
    id.cdw10 = CNS_ACTIVE_NS_LIST;
    id.nsid = 0xFFFFFFFE;
    CHECK(sc(r.admin(id)) == SC_INVALID_NAMESPACE);
    id.cdw10 = CNS_NS_DESCRIPTORS;
    id.nsid = 2;
    CHECK(sc(r.admin(id)) == SC_INVALID_NAMESPACE);
  });
}

TEST_CASE("deleting an SQ with commands in flight aborts them with the SQ deletion status", "[ssd][nvme][admin]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    auto q = r.create_pair(1, 64, 1);
    uint64_t buf = r.alloc(8 * 4096);
    for (uint32_t i = 0; i < 8; ++i) r.push(q, NvmeRig::io(IO_WRITE, i * 8, 1, buf + i * 4096), i == 7);
    r.sleep(3 * US);  // fetched, not yet programmed (a Z-NAND program takes 100 us)
    Sqe del = Sqe::make(ADMIN_DELETE_SQ, 0);
    del.cdw10 = 1;
    CHECK(r.admin(del).status() == 0);
    int aborted = 0;
    Cqe e;
    while (r.reap(q, e, 1 * MS)) aborted += sc(e) == SC_ABORTED_SQ_DELETION;
    CHECK(aborted == 8);
    r.sleep(1 * MS);  // the firmware's late answers are dropped, nothing is posted
    CHECK_FALSE(r.peek(q, e));
  });
}

// With latency-first DMA (ssd.priority.dma) commands also wait in the DMA
// engine's queues: on a gen1 x1 link 8 reads finish on flash in about 10 us,
// then their data goes 17.92 us apiece, two on the link at a time. At 20 us
// the first two are on the link (their entries booked behind their data;
// the first lands near 28 us, when the third would start) and the other six
// wait in the queue: deleting the SQ aborts those, each
// command gets exactly one completion, and the queued transfers never run.
TEST_CASE("deleting an SQ aborts the commands waiting for the DMA engine", "[ssd][nvme][admin][priority]") {
  with_rig(
      [](NvmeRig& r) {
        r.nvme.set_latency_first_dma(true);
        r.pci_enable();
        REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
        auto q = r.create_pair(1, 64, 1);
        uint64_t buf = r.alloc(8 * 4096);
        for (uint32_t i = 0; i < 8; ++i) r.push(q, NvmeRig::io(IO_READ, i * 8, 1, buf + i * 4096), i == 7);
        r.sleep(20 * US);
        Sqe del = Sqe::make(ADMIN_DELETE_SQ, 0);
        del.cdw10 = 1;
        CHECK(r.admin(del).status() == 0);
        int aborted = 0, done = 0;
        Cqe e;
        while (r.reap(q, e, 1 * MS)) {
          aborted += sc(e) == SC_ABORTED_SQ_DELETION;
          done += e.status() == 0;
        }
        CHECK(aborted == 6);
        CHECK(done == 2);
        r.sleep(1 * MS);
        CHECK_FALSE(r.peek(q, e));
      },
      {{"pcie.gen", "1"}, {"pcie.lanes", "1"}});
}

namespace {
// A firmware with a volatile write cache: what the controller tells it (every
// command with its FUA flag, the cache switch) and what it reports back.
constexpr uint32_t kBufferStatus = 0x0123;
using CachingFirmware = vp::test::RecordingFirmware;
}  // namespace

TEST_CASE("a volatile write cache is advertised and switched and Flush and FUA reach the firmware",
          "[ssd][nvme][admin]") {
  std::unique_ptr<CachingFirmware> fw;
  with_rig(
      [&](NvmeRig& r) {
        r.pci_enable();
        REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
        CHECK(fw->switches == std::vector<bool>{true});  // enabled by the reset that enabling is
        Sqe id = Sqe::make(ADMIN_IDENTIFY, 0);
        id.prp1 = r.alloc(4096);
        id.cdw10 = CNS_CONTROLLER;
        REQUIRE(r.admin(id).status() == 0);
        CHECK((r.mem(id.prp1)[idctl::VWC] & 1) == 1);
        CHECK(r.admin(feature(ADMIN_GET_FEATURES, FEAT_VOLATILE_WC, 0)).dw0 == 1);
        auto q = r.create_pair(1, 16, 1);
        uint64_t buf = r.alloc(4096);
        Cqe e;
        Sqe w = NvmeRig::io(IO_WRITE, 5, 1, buf);
        r.push(q, w);
        REQUIRE(r.reap(q, e));
        w.cdw12 |= RW_FUA;
        r.push(q, w);
        REQUIRE(r.reap(q, e));
        Sqe f = Sqe::make(IO_FLUSH, 0);
        f.nsid = 0xFFFFFFFF;  // all namespaces
        r.push(q, f);
        REQUIRE(r.reap(q, e));
        CHECK(e.status() == 0);
        REQUIRE(fw->seen.size() == 3);
        CHECK((fw->seen[0].op == ssd::IoOp::Write && !fw->seen[0].fua));
        CHECK((fw->seen[1].op == ssd::IoOp::Write && fw->seen[1].fua));
        CHECK(fw->seen[2].op == ssd::IoOp::Flush);
        REQUIRE(r.admin(feature(ADMIN_SET_FEATURES, FEAT_VOLATILE_WC, 0)).status() == 0);
        CHECK(r.admin(feature(ADMIN_GET_FEATURES, FEAT_VOLATILE_WC, 0)).dw0 == 0);
        CHECK(fw->switches == std::vector<bool>{true, false});
        // A controller reset restores the default: cache on.
        r.set_reg(CC, 0);
        r.wait_csts([](uint32_t c) { return !(c & CSTS_RDY); });
        CHECK(fw->switches == std::vector<bool>{true, false, true});
      },
      {}, [&](Services&) {
        fw = std::make_unique<CachingFirmware>("cachefw", kBufferStatus, true);
        return fw.get();
      });
}

// Random commands on both queues: each one completes (with whatever status
// a real controller would give), the controller stays ready, and the
// simulator neither crashes nor hangs.
TEST_CASE("random commands all complete and leave the controller working", "[ssd][nvme][fuzz]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    auto q = r.create_pair(1, 64, 1);
    const uint64_t scratch = r.alloc(64 * 4096);  // the only memory PRPs may land in
    std::mt19937_64 rng(12345);
    auto pick_prp = [&]() -> uint64_t {
      switch (rng() % 4) {
        case 0: return scratch + (rng() % (60 * 4096) & ~3ull);       // dword aligned, any offset
        case 1: return scratch + (rng() % 60) * 4096;                  // page aligned
        case 2: return scratch + (rng() % (60 * 4096));                // anything
        default: return 0x7000000000ull + (rng() % 4096) * 4096;        // outside host memory
      }
    };
    uint64_t lbas = r.nvme.namespace_lbas();
    std::map<uint16_t, int> statuses;
    for (int i = 0; i < 2000; ++i) {
      Sqe c{};
      for (auto* dw : {&c.cdw10, &c.cdw11, &c.cdw12, &c.cdw13, &c.cdw14, &c.cdw15, &c.cdw2, &c.cdw3})
        *dw = static_cast<uint32_t>(rng());
      c.prp1 = pick_prp();
      c.prp2 = pick_prp();
      bool io = i % 2 == 1;
      static const uint8_t io_ops[] = {IO_FLUSH, IO_WRITE, IO_READ, IO_COMPARE, IO_WRITE_ZEROES, IO_DSM, 0x04, 0x7F};
      // Admin: everything but queue deletion, event requests (held by design)
      // and the Keep Alive feature (its expiry is a fatal status on purpose).
      static const uint8_t admin_ops[] = {ADMIN_CREATE_SQ,   ADMIN_GET_LOG_PAGE, ADMIN_CREATE_CQ, ADMIN_IDENTIFY,
                                          ADMIN_ABORT,       ADMIN_SET_FEATURES, ADMIN_GET_FEATURES,
                                          ADMIN_KEEP_ALIVE,  ADMIN_FORMAT_NVM,   0x7C};
      uint8_t op = io ? io_ops[rng() % 8] : admin_ops[rng() % 10];
      c.cdw0 = op | static_cast<uint32_t>(rng() % 8 == 0 ? (rng() & 0xC300) : 0);  // sometimes fused or SGL
      c.nsid = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) : 1;
      if (io && rng() % 2) {  // a plausible range half the time
        uint64_t slba = rng() % lbas;
        c.cdw10 = static_cast<uint32_t>(slba);
        c.cdw11 = static_cast<uint32_t>(slba >> 32);
        c.cdw12 = (c.cdw12 & 0xFFFF0000u) | static_cast<uint32_t>(rng() % 40);
      }
      if (!io && (op == ADMIN_SET_FEATURES || op == ADMIN_GET_FEATURES) && (c.cdw10 & 0xFF) == FEAT_KEEP_ALIVE)
        c.cdw10 &= ~0xFFu;
      if (!io && op == ADMIN_CREATE_SQ) c.cdw10 = (c.cdw10 & 0xFFFF0000u) | (2 + rng() % 8);  // never queue 1
      Cqe e;
      if (io) {
        r.push(q, c);
        REQUIRE(r.reap(q, e, 1 * SEC));
      } else {
        e = r.admin(c);
      }
      ++statuses[e.status() & 0x7FF];
    }
    CHECK((r.reg(CSTS) & (CSTS_RDY | CSTS_CFS)) == CSTS_RDY);
    CHECK(statuses.size() > 5);  // the mix really exercised several error paths
    // Still serving I/O normally.
    uint64_t buf = r.alloc(4096);
    std::memset(r.mem(buf), 0x11, 4096);
    Cqe e;
    r.push(q, NvmeRig::io(IO_WRITE, 1, 1, buf));
    REQUIRE(r.reap(q, e));
    CHECK(e.status() == 0);
  });
}

TEST_CASE("resets with event requests outstanding give back every command slot", "[ssd][nvme][bringup]") {
  with_rig(
      [](NvmeRig& r) {
        r.pci_enable();
        for (int cycle = 0; cycle < 3; ++cycle) {
          REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
          for (int i = 0; i < 4; ++i) r.push(r.admin_q, Sqe::make(ADMIN_ASYNC_EVENT, 0));  // all 4 slots held
          r.sleep(20 * US);
          r.set_reg(CC, 0);
          r.wait_csts([](uint32_t c) { return !(c & CSTS_RDY); });
        }
        // With slots lost at each reset, nothing could be fetched any more.
        REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
        auto q = r.create_pair(1, 16, 1);
        Cqe e;
        r.push(q, NvmeRig::io(IO_READ, 0, 1, r.alloc(4096)));
        REQUIRE(r.reap(q, e));
        CHECK(e.status() == 0);
      },
      {{"ssd.nvme.max_outstanding", "4"}});
}

TEST_CASE("the firmware's buffer status goes in the completion field the configuration names",
          "[ssd][nvme][fastdrain]") {
  std::unique_ptr<CachingFirmware> fw;
  with_rig(
      [&](NvmeRig& r) {
        r.svc.tracker.resize(65, 64);
        r.pci_enable();
        REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
        auto q = r.create_pair(1, 16, 1);
        Cqe e;
        uint16_t cid = r.push(q, NvmeRig::io(IO_WRITE, 0, 1, r.alloc(4096)));
        REQUIRE(r.reap(q, e));
        CHECK(e.status() == 0);
        CHECK(e.sq_head == kBufferStatus);  // FastDrain's choice: SQ head overridden
        CHECK(e.dw0 == 0);
        CHECK(r.svc.tracker.device(1, cid)->result == kBufferStatus);
      },
      {{"ssd.nvme.buffer_status_field", "sq_head"}},
      [&](Services&) {
        fw = std::make_unique<CachingFirmware>("cachefw", kBufferStatus, true);
        return fw.get();
      });
}
