// SPDX-License-Identifier: BSD-3-Clause
// In-order fetch (ssd.nvme.in_order_fetch): a command behind a write in its
// SQ waits for the write to finish, as IMCOM'17 describes ("R_1 has to wait
// for the completion of W_{k+1}"), while other SQs go on. The drive under
// the rig has no cache: a write finishes when its page is programmed, at
// least tPROG = 100 us (Z-NAND) after it starts; a read takes tR 3 us plus
// its transfers, well under 50 us on an idle drive.
#include <catch2/catch.hpp>

#include "tests/ssd/NvmeRig.hpp"

using namespace vp;
using namespace vp::test;
using namespace vp::nvme;

namespace {
// Reaps `n` completions of `q`; returns the time each command id completed.
std::map<uint16_t, Tick> reap_times(NvmeRig& r, NvmeRig::Queue& q, size_t n) {
  std::map<uint16_t, Tick> at;
  for (size_t i = 0; i < n; ++i) {
    Cqe e;
    REQUIRE(r.reap(q, e));
    CHECK(e.status() == 0);
    at[e.cid] = now_ps();
  }
  return at;
}

// One SQ: a write of LBA 0, then a read of LBA 64, rung together at `start`.
struct WriteThenRead {
  Tick start, write, read;
};
WriteThenRead write_then_read(bool in_order) {
  WriteThenRead w{};
  with_rig(
      [&](NvmeRig& r) {
        r.pci_enable();
        REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
        auto q = r.create_pair(1, 16, 1);
        uint64_t buf = r.alloc(8192);
        uint16_t wc = r.push(q, NvmeRig::io(IO_WRITE, 0, 1, buf), false);
        uint16_t rc = r.push(q, NvmeRig::io(IO_READ, 64, 1, buf + 4096), false);
        w.start = now_ps();
        r.ring_sq(q);
        auto at = reap_times(r, q, 2);
        w.write = at.at(wc) - w.start;
        w.read = at.at(rc) - w.start;
      },
      {{"ssd.nvme.in_order_fetch", in_order ? "true" : "false"}});
  return w;
}
}  // namespace

TEST_CASE("without in-order fetch a read behind a write in its SQ completes first", "[ssd][nvme][in_order]") {
  auto w = write_then_read(false);
  CHECK(w.write > 100 * US);
  CHECK(w.read < 50 * US);
}

TEST_CASE("with in-order fetch a read behind a write in its SQ waits for the write", "[ssd][nvme][in_order]") {
  auto w = write_then_read(true);
  CHECK(w.write > 100 * US);
  CHECK(w.read > w.write);
}

namespace {
// SQ 1: two writes (LBAs 0 and 8); SQ 2: a read (LBA 64); rung together.
// Returns the completion times of write 1, write 2 and the read.
struct TwoQueues {
  std::array<Tick, 3> t{};
  uint64_t outstanding_max = 0, hol_ps = 0;
};
TwoQueues two_queues(bool in_order) {
  TwoQueues out;
  auto& t = out.t;
  with_rig(
      [&](NvmeRig& r) {
        r.pci_enable();
        REQUIRE((r.enable() & CSTS_RDY) == CSTS_RDY);
        auto qw = r.create_pair(1, 16, 1), qr = r.create_pair(2, 16, 2);
        uint64_t buf = r.alloc(3 * 4096);
        uint16_t w1 = r.push(qw, NvmeRig::io(IO_WRITE, 0, 1, buf), false);
        uint16_t w2 = r.push(qw, NvmeRig::io(IO_WRITE, 8, 1, buf + 4096), false);
        uint16_t rd = r.push(qr, NvmeRig::io(IO_READ, 64, 1, buf + 8192), false);
        Tick start = now_ps();
        r.ring_sq(qw);
        r.ring_sq(qr);
        auto rt = reap_times(r, qr, 1);
        auto wt = reap_times(r, qw, 2);
        t = {wt.at(w1) - start, wt.at(w2) - start, rt.at(rd) - start};
        out.outstanding_max = r.svc.stats.value("ssd.nvme.outstanding_max");
        out.hol_ps = r.svc.stats.value("ssd.nvme.hol_stall_ps");
      },
      {{"ssd.nvme.in_order_fetch", in_order ? "true" : "false"}});
  return out;
}
}  // namespace

TEST_CASE("with in-order fetch a write SQ's writes go one at a time while another SQ's read goes on",
          "[ssd][nvme][in_order]") {
  auto q = two_queues(true);
  const auto& t = q.t;
  // The read SQ is not held by the write SQ.
  CHECK(t[2] < 50 * US);
  // Write 2 starts only when write 1 has finished: a whole program later.
  CHECK(t[1] >= t[0] + 100 * US);
  // The three commands were all in the controller at once (write 2 waiting
  // in its slot); SQ 1 was held while each write ran: at least two programs.
  CHECK(q.outstanding_max == 3);
  CHECK(q.hol_ps >= 200 * US);
  CHECK(q.hol_ps <= t[1]);
}

TEST_CASE("without in-order fetch the same two writes run side by side", "[ssd][nvme][in_order]") {
  auto q = two_queues(false);
  const auto& t = q.t;
  CHECK(q.outstanding_max == 3);
  CHECK(q.hol_ps == 0);
  CHECK(t[2] < 50 * US);
  // LBAs 0 and 8 are programmed on different dies at once: well under a program apart.
  CHECK(t[1] < t[0] + 50 * US);
}
