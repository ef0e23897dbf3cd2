// SPDX-License-Identifier: BSD-3-Clause
// Interrupts as a strict host sees them on the wire: MSI-X messages with
// coalescing and masking, MSI with several vectors and INTMS/INTMC, and the
// INTx pin as assert/deassert messages.
#include "NvmeRig.hpp"

using namespace vp;
using namespace vp::nvme;
using vp::test::NvmeRig;
using vp::test::with_rig;

namespace {
size_t messages(const NvmeRig& r, uint64_t addr, uint32_t data) {
  size_t n = 0;
  for (const auto& m : r.interrupts) n += m.addr == addr && m.data == data;
  return n;
}
Sqe set_feature(uint8_t fid, uint32_t v) {
  Sqe c = Sqe::make(ADMIN_SET_FEATURES, 0);
  c.cdw10 = fid;
  c.cdw11 = v;
  return c;
}
// Puts `n` one-LBA reads in `q` (one doorbell) and waits until all completed.
void reads(NvmeRig& r, NvmeRig::Queue& q, uint32_t n, uint64_t buf) {
  for (uint32_t i = 0; i < n; ++i) r.push(q, NvmeRig::io(IO_READ, i, 1, buf), i + 1 == n);
  Cqe e;
  for (uint32_t i = 0; i < n; ++i) REQUIRE(r.reap(q, e, 50 * MS, false));
  r.set_reg(cq_head_doorbell(q.qid, 0), q.head);
}
constexpr uint64_t kMsi = NvmeRig::kMsiAddr;
}  // namespace

TEST_CASE("interrupt coalescing with a threshold of four sends a quarter of the messages", "[ssd][nvme][irq]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    for (uint32_t v = 0; v <= 2; ++v) r.program_vector(v);
    auto q1 = r.create_pair(1, 64, 1), q2 = r.create_pair(2, 64, 2);
    // Threshold field 3 (0's based: 4 entries), no aggregation time; vector 2 opts out (CD).
    REQUIRE(r.admin(set_feature(FEAT_IRQ_COALESCE, 3)).status() == 0);
    REQUIRE(r.admin(set_feature(FEAT_IRQ_CONFIG, 2 | 1u << 16)).status() == 0);
    size_t admin_before = messages(r, kMsi, 0);
    uint64_t buf = r.alloc(4096);
    reads(r, q1, 16, buf);
    reads(r, q2, 16, buf);
    r.sleep(10 * US);
    CHECK(messages(r, kMsi, 1) == 4);   // 16 completions / 4 per message
    CHECK(messages(r, kMsi, 2) == 16);  // coalescing disabled on this vector
    // The admin queue is never coalesced: one message per admin command.
    r.admin(set_feature(FEAT_ASYNC_EVENT, 0));
    r.admin(set_feature(FEAT_ASYNC_EVENT, 0));
    CHECK(messages(r, kMsi, 0) - admin_before == 2);
  });
}

TEST_CASE("the aggregation time sends a held interrupt that long after the first completion", "[ssd][nvme][irq]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    r.program_vector(0);
    r.program_vector(1);
    auto q = r.create_pair(1, 64, 1);
    // Threshold 256 entries, time 2 x 100 us.
    REQUIRE(r.admin(set_feature(FEAT_IRQ_COALESCE, 0xFF | 2u << 8)).status() == 0);
    uint64_t buf = r.alloc(4096);
    for (uint32_t i = 0; i < 3; ++i) r.push(q, NvmeRig::io(IO_READ, i, 1, buf), i == 2);
    r.sleep(1 * MS);
    Tick first_cqe = 0;
    for (const auto& a : r.upstream)
      if (a.write && a.addr >= q.cq && a.addr < q.cq + 64 * 16) {
        first_cqe = a.at;
        break;
      }
    REQUIRE(first_cqe > 0);
    std::vector<Tick> msgs;
    for (const auto& m : r.interrupts)
      if (m.data == 1) msgs.push_back(m.at);
    REQUIRE(msgs.size() == 1);
    // The timer starts when the controller posts the first entry. The entry
    // crosses gen3 x4 (3.938 GB/s) behind the read's 4 KiB of data: 16 TLPs
    // of 256 B + 24 B = 4480 B = 1137.5 ns, then its own 16 + 24 B = 10.16 ns;
    // the message is 4 + 24 B = 7.11 ns; both pay the same 300 ns latency. So
    // the message lands 200 us - 1137.5 - 10.16 + 7.11 ns = 198,859.45 ns after the entry.
    double gap_ns = double(msgs[0] - first_cqe) / 1000.0;
    CHECK(gap_ns == Approx(198859.45).margin(1.0));
  });
}

TEST_CASE("a masked MSI-X vector holds its message in the PBA until unmasked", "[ssd][nvme][irq]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    r.program_vector(0);
    r.program_vector(1, true);
    auto q = r.create_pair(1, 16, 1);
    uint64_t buf = r.alloc(4096);
    reads(r, q, 1, buf);
    r.sleep(5 * US);
    CHECK(messages(r, kMsi, 1) == 0);
    CHECK(r.reg(MSIX_PBA) == 0x2);  // pending bit of vector 1
    r.set_reg(MSIX_TABLE + 16 + 12, 0);  // unmask
    r.sleep(5 * US);
    CHECK(messages(r, kMsi, 1) == 1);
    CHECK(r.reg(MSIX_PBA) == 0);
    // The function mask in the MSI-X capability holds every vector.
    r.set_cfg(pcie::PciConfigSpace::kMsixCap + 2, 0xC000, 2);
    reads(r, q, 1, buf);
    r.sleep(5 * US);
    CHECK(messages(r, kMsi, 1) == 1);
    CHECK(r.reg(MSIX_PBA) == 0x2);
    r.set_cfg(pcie::PciConfigSpace::kMsixCap + 2, 0x8000, 2);
    r.sleep(5 * US);
    CHECK(messages(r, kMsi, 1) == 2);
  });
}

TEST_CASE("MSI with four vectors: data carries the vector and INTMS holds it until INTMC", "[ssd][nvme][irq]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable(false);
    const uint32_t msi = pcie::PciConfigSpace::kMsiCap;
    const uint64_t addr = host::InterruptController::msi_address(1);
    r.set_cfg(msi + 4, static_cast<uint32_t>(addr));
    r.set_cfg(msi + 8, static_cast<uint32_t>(addr >> 32));
    r.set_cfg(msi + 12, 0x40, 2);
    r.set_cfg(msi + 2, (2u << 4) | 1, 2);  // Multiple Message Enable: 4 vectors; MSI on
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    Sqe c = Sqe::make(ADMIN_CREATE_CQ, 0);  // vector 5 is beyond the 4 enabled
    c.prp1 = r.alloc(4096);
    c.cdw10 = 1 | (15u << 16);
    c.cdw11 = 1 | 2 | (5u << 16);
    CHECK(status_sc(r.admin(c).status()) == SC_INVALID_VECTOR);
    auto q = r.create_pair(1, 16, 2);
    uint64_t buf = r.alloc(4096);
    reads(r, q, 1, buf);
    r.sleep(5 * US);
    CHECK(messages(r, addr, 0x42) == 1);  // data 0x40 with vector 2 in its low bits
    r.set_reg(INTMS, 1u << 2);
    CHECK(r.reg(INTMS) == 0x4);
    reads(r, q, 1, buf);
    r.sleep(5 * US);
    CHECK(messages(r, addr, 0x42) == 1);
    r.set_reg(INTMC, 1u << 2);
    r.sleep(5 * US);
    CHECK(messages(r, addr, 0x42) == 2);
    CHECK(r.reg(INTMC) == 0);
  });
}

TEST_CASE("without MSI or MSI-X the INTx pin follows unconsumed completions and INTMS bit 0", "[ssd][nvme][irq]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable(false);
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    const uint64_t intx = host::InterruptController::intx_address();
    CHECK(r.interrupts.empty());  // nothing completed yet
    auto q = r.create_pair(1, 16, 0);
    uint64_t buf = r.alloc(4096);
    r.sleep(2 * US);  // the last admin completion's deassert lands
    size_t asserts = messages(r, intx, 1), deasserts = messages(r, intx, 0);
    r.push(q, NvmeRig::io(IO_READ, 0, 1, buf));
    Cqe e;
    REQUIRE(r.reap(q, e, 50 * MS, false));
    r.sleep(2 * US);
    CHECK(messages(r, intx, 1) == asserts + 1);
    CHECK((r.cfg(0x04) >> 16 & 0x8) == 0x8);  // Interrupt Status
    r.set_reg(cq_head_doorbell(1, 0), q.head);
    r.sleep(2 * US);
    CHECK(messages(r, intx, 0) == deasserts + 1);
    CHECK((r.cfg(0x04) >> 16 & 0x8) == 0);
    // INTMS bit 0 keeps the pin down.
    r.set_reg(INTMS, 1);
    r.push(q, NvmeRig::io(IO_READ, 0, 1, buf));
    REQUIRE(r.reap(q, e, 50 * MS, false));
    r.sleep(2 * US);
    CHECK(messages(r, intx, 1) == asserts + 1);
    r.set_reg(INTMC, 1);  // unmasked with the entry still there: the pin goes up
    r.sleep(2 * US);
    CHECK(messages(r, intx, 1) == asserts + 2);
  });
}

TEST_CASE("completion queues sharing a vector each signal it", "[ssd][nvme][irq]") {
  with_rig([](NvmeRig& r) {
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    r.program_vector(0);
    r.program_vector(3);
    auto q1 = r.create_pair(1, 16, 3), q2 = r.create_pair(2, 16, 3);
    uint64_t buf = r.alloc(4096);
    reads(r, q1, 2, buf);
    reads(r, q2, 3, buf);
    r.sleep(5 * US);
    CHECK(messages(r, kMsi, 3) == 5);
    CHECK(messages(r, kMsi, 1) + messages(r, kMsi, 2) == 0);
  });
}
