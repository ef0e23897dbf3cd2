// SPDX-License-Identifier: BSD-3-Clause
// FastDrain's wire format at the controller: the page-victimization tag of
// a Write (CDW2 bit 8, CDW3 = dirty pages) decoded for the firmware, and
// the write-buffer status a completion reports (forced by
// ssd.nvme.buffer_status_force for host-side studies).
#include <memory>

#include "NvmeRig.hpp"

using namespace vp;
using namespace vp::nvme;
using vp::test::NvmeRig;
using vp::test::with_rig;

namespace {
// The firmware reports a buffer status of its own: between, 42 %.
constexpr uint32_t kOwnStatus = 0x2A02;
using vp::test::RecordingFirmware;

Sqe tagged(uint8_t op, uint32_t cdw2, uint32_t cdw3, uint64_t buf) {
  Sqe c = NvmeRig::io(op, 8, 1, buf);
  c.cdw2 = cdw2;
  c.cdw3 = cdw3;
  return c;
}
}  // namespace

TEST_CASE("a victimization write's CDW2 bit 8 and CDW3 reach the firmware beside the workload attribute",
          "[ssd][nvme][fastdrain]") {
  std::unique_ptr<RecordingFirmware> fw;
  std::vector<ssd::NvmeController::CommandRecord> trace;
  with_rig(
      [&](NvmeRig& r) {
        r.nvme.on_command.subscribe([&](const ssd::NvmeController::CommandRecord& c) { trace.push_back(c); });
        r.pci_enable();
        REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
        auto q = r.create_pair(1, 16, 1);
        uint64_t buf = r.alloc(4096);
        Cqe e;
        // One at a time, so the firmware sees them in this order:
        // 0x105 = bit 8 (victim) | attribute 5, 1234 dirty pages; an
        // untagged write, whose CDW3 is not read (77 must not show); a read,
        // never a victimization whatever bit 8 says.
        for (Sqe c : {tagged(IO_WRITE, 0x105, 1234, buf), tagged(IO_WRITE, 0x005, 77, buf),
                      tagged(IO_READ, 0x105, 99, buf)}) {
          r.push(q, c);
          REQUIRE(r.reap(q, e));
          CHECK(e.status() == 0);
        }
        REQUIRE(fw->seen.size() == 3);
        CHECK(fw->seen[0].op == ssd::IoOp::Write);
        CHECK(fw->seen[0].attr == 5);
        CHECK(fw->seen[0].victim);
        CHECK(fw->seen[0].victim_pages == 1234);
        CHECK(fw->seen[1].attr == 5);
        CHECK_FALSE(fw->seen[1].victim);
        CHECK(fw->seen[1].victim_pages == 0);
        CHECK(fw->seen[2].op == ssd::IoOp::Read);
        CHECK(fw->seen[2].attr == 5);
        CHECK_FALSE(fw->seen[2].victim);
        CHECK(fw->seen[2].victim_pages == 0);
        // The device-side trace (vp-qemu --requests) has the same decode;
        // buffer_status_field = none: nothing reported.
        REQUIRE(trace.size() == 3);
        CHECK((trace[0].victim && trace[0].victim_pages == 1234 && trace[0].attr == 5));
        CHECK((!trace[1].victim && trace[1].victim_pages == 0));
        CHECK((!trace[2].victim && trace[2].victim_pages == 0));
        CHECK(trace[0].buffer_status == 0);
      },
      {},
      [&](Services&) {
        fw = std::make_unique<RecordingFirmware>("recfw", kOwnStatus, false);
        return fw.get();
      });
}

TEST_CASE("buffer_status_force full reports state 3 and 100 percent in sq_head over the firmware's status",
          "[ssd][nvme][fastdrain]") {
  std::unique_ptr<RecordingFirmware> fw;
  std::vector<uint32_t> reported;
  with_rig(
      [&](NvmeRig& r) {
        r.svc.tracker.resize(65, 64);
        r.nvme.on_command.subscribe([&](const ssd::NvmeController::CommandRecord& c) { reported.push_back(c.buffer_status); });
        r.pci_enable();
        REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
        auto q = r.create_pair(1, 16, 1);
        uint64_t buf = r.alloc(4096);
        Cqe e;
        uint16_t cid = r.push(q, tagged(IO_WRITE, 0x100, 10, buf));
        REQUIRE(r.reap(q, e));
        CHECK(e.status() == 0);
        // 0x03 | (100 << 8) = 3 + 25600 = 25603 = 0x6403, not the firmware's 0x2A02.
        CHECK(e.sq_head == 0x6403);
        CHECK(buffer_state(e.sq_head) == BUF_FULL);
        CHECK(buffer_occupancy(e.sq_head) == 100);
        CHECK(e.dw0 == 0);
        CHECK(r.svc.tracker.device(1, cid)->result == 0x6403);
        // A failed command reports nothing: sq_head is the SQ head again
        // (1 entry fetched before, this one the 2nd: head 2).
        Sqe bad = NvmeRig::io(IO_WRITE, 8, 1, buf);
        bad.nsid = 7;
        r.push(q, bad);
        REQUIRE(r.reap(q, e));
        CHECK(e.status() != 0);
        CHECK(e.sq_head == 2);
        CHECK(reported == std::vector<uint32_t>{0x6403, 0});
      },
      {{"ssd.nvme.buffer_status_field", "sq_head"}, {"ssd.nvme.buffer_status_force", "full"}},
      [&](Services&) {
        fw = std::make_unique<RecordingFirmware>("recfw", kOwnStatus, false);
        return fw.get();
      });
}

TEST_CASE("buffer_status_force drained goes in DW0 and leaves sq_head to SQ flow control",
          "[ssd][nvme][fastdrain]") {
  // Three settings, one controller each would need three processes: the
  // forced values are checked through the encoding, the field through one run.
  CHECK(buffer_status(BUF_DRAINED, 0) == 0x0001);    // 1 | 0 << 8
  CHECK(buffer_status(BUF_BETWEEN, 50) == 0x3202);   // 2 | 50 << 8 = 2 + 12800 = 12802
  CHECK(buffer_status(BUF_FULL, 100) == 0x6403);     // 3 | 100 << 8 = 25603
  std::unique_ptr<RecordingFirmware> fw;
  with_rig(
      [&](NvmeRig& r) {
        r.pci_enable();
        REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
        auto q = r.create_pair(1, 16, 1);
        Cqe e;
        r.push(q, tagged(IO_READ, 0, 0, r.alloc(4096)));
        REQUIRE(r.reap(q, e));
        CHECK(e.dw0 == 0x0001);  // drained, 0 %
        CHECK(e.sq_head == 1);   // dw0 leaves SQ flow control intact
      },
      {{"ssd.nvme.buffer_status_field", "dw0"}, {"ssd.nvme.buffer_status_force", "drained"}},
      [&](Services&) {
        fw = std::make_unique<RecordingFirmware>("recfw", kOwnStatus, false);
        return fw.get();
      });
}

TEST_CASE("a forced buffer status without a completion field is a configuration error", "[ssd][nvme][fastdrain]") {
  REQUIRE_THROWS_WITH(vp::test::model_config("quick", {}, {{"ssd.nvme.buffer_status_force", "full"}}),
                      Catch::Contains("ssd.nvme.buffer_status_force") &&
                          Catch::Contains("needs a completion field"));
  CHECK_NOTHROW(vp::test::model_config("quick", {}, {{"ssd.nvme.buffer_status_field", "sq_head"},
                                                     {"ssd.nvme.buffer_status_force", "between"}}));
}
