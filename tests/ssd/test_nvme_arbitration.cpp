// SPDX-License-Identifier: BSD-3-Clause
// Submission queue arbitration seen from the host: which SQ each command
// fetch read came from. Queues are filled while bus mastering is off, so
// every queue is full when the controller starts fetching; one fetch engine
// and one command per read make the order of reads the arbitration order.
#include <map>

#include "NvmeRig.hpp"

using namespace vp;
using namespace vp::nvme;
using vp::test::NvmeRig;
using vp::test::with_rig;

namespace {
const vp::test::Sets kSerialFetch = {{"ssd.nvme.fetch_engines", "1"},
                                     {"ssd.nvme.fetch_batch", "1"},
                                     {"ssd.nvme.max_outstanding", "1024"}};
Sqe arbitration(uint32_t hpw, uint32_t mpw, uint32_t lpw, uint32_t ab) {
  Sqe c = Sqe::make(ADMIN_SET_FEATURES, 0);
  c.cdw10 = FEAT_ARBITRATION;
  c.cdw11 = ab | lpw << 8 | mpw << 16 | hpw << 24;
  return c;
}
// Fills each queue with `n[i]` reads, rings every doorbell with bus
// mastering off, then turns it on and waits for every completion.
void fill_and_go(NvmeRig& r, std::vector<NvmeRig::Queue>& qs, const std::vector<uint32_t>& n) {
  uint64_t buf = r.alloc(4096);
  r.set_cfg(0x04, 0x2, 2);  // memory decoding only: the controller cannot fetch
  for (size_t i = 0; i < qs.size(); ++i)
    for (uint32_t k = 0; k < n[i]; ++k) r.push(qs[i], NvmeRig::io(IO_READ, k, 1, buf), k + 1 == n[i]);
  r.sleep(5 * US);
  r.upstream.clear();
  r.set_cfg(0x04, 0x6, 2);
  Cqe e;
  for (size_t i = 0; i < qs.size(); ++i)
    for (uint32_t k = 0; k < n[i]; ++k) REQUIRE(r.reap(qs[i], e));
}
std::string as_string(const std::vector<uint16_t>& v, size_t from, size_t count) {
  std::string s;
  for (size_t i = from; i < from + count && i < v.size(); ++i) s += char('0' + v[i]);
  return s;
}
}  // namespace

TEST_CASE("weighted round robin with weights 4 2 1 fetches in 4 2 1 shares and urgent first",
          "[ssd][nvme][arbitration]") {
  with_rig(
      [](NvmeRig& r) {
        r.pci_enable();
        REQUIRE((r.enable(AMS_WRR) & CSTS_RDY) == CSTS_RDY);
        REQUIRE(r.admin(arbitration(3, 1, 0, 0)).status() == 0);  // HPW+1 = 4, MPW+1 = 2, LPW+1 = 1, burst 1
        // QPRIO: 1 high, 2 medium, 3 low, 0 urgent.
        std::vector<NvmeRig::Queue> qs = {r.create_pair(1, 128, 1, 1), r.create_pair(2, 128, 2, 2),
                                          r.create_pair(3, 128, 3, 3), r.create_pair(4, 128, 4, 0)};
        fill_and_go(r, qs, {84, 42, 21, 5});
        auto order = r.fetch_order(qs);
        REQUIRE(order.size() == 152);
        // Urgent strictly first, then rounds of H H H H M M L while all are full.
        CHECK(as_string(order, 0, 5) == "44444");
        for (size_t round = 0; round < 21; ++round) CHECK(as_string(order, 5 + 7 * round, 7) == "1111223");
        std::map<uint16_t, int> first70;
        for (size_t i = 5; i < 75; ++i) ++first70[order[i]];
        CHECK(first70[1] == 40);
        CHECK(first70[2] == 20);
        CHECK(first70[3] == 10);
      },
      kSerialFetch);
}

TEST_CASE("round robin with an arbitration burst of 4 fetches four commands per read", "[ssd][nvme][arbitration]") {
  with_rig(
      [](NvmeRig& r) {
        r.pci_enable();
        REQUIRE((r.enable(AMS_RR) & CSTS_RDY) == CSTS_RDY);
        REQUIRE(r.admin(arbitration(0, 0, 0, 2)).status() == 0);  // AB = 2: 4 commands a turn
        std::vector<NvmeRig::Queue> qs = {r.create_pair(1, 64, 1), r.create_pair(2, 64, 2)};
        fill_and_go(r, qs, {12, 6});
        // Turns: 1 x4, 2 x4, 1 x4, 2 x2, 1 x4; each turn one read of 4 x 64 B (2 x 64 B for the short one).
        std::vector<uint32_t> lens;
        for (const auto& a : r.upstream)
          if (!a.write && ((a.addr >= qs[0].sq && a.addr < qs[0].sq + 64 * 64) ||
                           (a.addr >= qs[1].sq && a.addr < qs[1].sq + 64 * 64)))
            lens.push_back(a.len);
        CHECK(lens == std::vector<uint32_t>{256, 256, 256, 128, 256});
        CHECK(as_string(r.fetch_order(qs), 0, 18) == "111122221111221111");
      },
      {{"ssd.nvme.fetch_engines", "1"}, {"ssd.nvme.fetch_batch", "8"}});
}

TEST_CASE("FlashShare arbitration serves the latency SQ first and drains the throughput SQ at its 9th command",
          "[ssd][nvme][arbitration][flashshare]") {
  with_rig(
      [](NvmeRig& r) {
        r.pci_enable();
        REQUIRE((r.enable(AMS_VENDOR) & CSTS_RDY) == CSTS_RDY);
        // QPRIO high: latency-critical SQ; medium: throughput SQ (one core's pair sharing CQ... here one CQ each).
        std::vector<NvmeRig::Queue> qs = {r.create_pair(1, 128, 1, 1), r.create_pair(2, 128, 2, 2)};
        // Eight throughput commands are not enough to jump the queue.
        fill_and_go(r, qs, {20, 8});
        auto order = r.fetch_order(qs);
        CHECK(as_string(order, 0, 28) == std::string(20, '1') + std::string(8, '2'));
        // Nine are: the throughput SQ is drained, all nine, before the latency SQ goes on.
        fill_and_go(r, qs, {20, 9});
        order = r.fetch_order(qs);
        CHECK(as_string(order, 0, 29) == std::string(9, '2') + std::string(20, '1'));
      },
      kSerialFetch);
}

TEST_CASE("FlashShare arbitration drains a throughput command that waited 200 us behind latency traffic",
          "[ssd][nvme][arbitration][flashshare]") {
  with_rig(
      [](NvmeRig& r) {
        r.pci_enable();
        REQUIRE((r.enable(AMS_VENDOR) & CSTS_RDY) == CSTS_RDY);
        std::vector<NvmeRig::Queue> qs = {r.create_pair(1, 1024, 1, 1), r.create_pair(2, 16, 2, 2)};
        uint64_t buf = r.alloc(4096);
        // 1000 latency-critical reads keep the single fetch engine busy for
        // far longer than 200 us (each fetch read is a PCIe round trip, > 600 ns).
        for (uint32_t k = 0; k < 1000; ++k) r.push(qs[0], NvmeRig::io(IO_READ, k % 64, 1, buf), k == 999);
        r.sleep(10 * US);
        Tick rung = now_ps();
        r.push(qs[1], NvmeRig::io(IO_READ, 0, 1, buf));
        Cqe e;
        REQUIRE(r.reap(qs[1], e));
        Tick fetched = 0;
        size_t ls_before = 0;
        for (const auto& a : r.upstream) {
          if (a.write) continue;
          if (a.addr >= qs[1].sq && a.addr < qs[1].sq + 16 * 64) {
            fetched = a.at;
            break;
          }
          if (a.addr >= qs[0].sq && a.addr < qs[0].sq + 1024 * 64) ++ls_before;
        }
        // The doorbell lands ~0.3 us after it is written; the guard fires at
        // 200 us + 1 ps after that, and the fetch read then in flight finishes first.
        CHECK(fetched - rung > 200 * US);
        CHECK(fetched - rung < 203 * US);
        CHECK(ls_before < 1000);  // the latency SQ still had entries: the guard, not idleness, let it in
        CHECK(ls_before > 200);
      },
      kSerialFetch);
}

TEST_CASE("the workload attribute in CDW2 reaches the firmware and the request record", "[ssd][nvme][flashshare]") {
  with_rig([](NvmeRig& r) {
    r.svc.tracker.resize(65, 64);
    r.pci_enable();
    REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
    auto q = r.create_pair(1, 64, 1);
    uint64_t buf = r.alloc(4096);
    Sqe c = NvmeRig::io(IO_READ, 0, 1, buf);
    c.cdw2 = 0x2A;
    uint16_t cid = r.push(q, c);
    Cqe e;
    REQUIRE(r.reap(q, e));
    DeviceHalf* d = r.svc.tracker.device(1, cid);
    REQUIRE(d != nullptr);
    CHECK(d->attr == 0x2A);
  });
}
