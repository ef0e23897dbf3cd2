// SPDX-License-Identifier: BSD-3-Clause
// The verifier itself must catch a corrupted block, or the integrity tests prove nothing.
#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <map>
#include <vector>

#include "vp/host/workload/VerifyTracker.hpp"

using namespace vp::host;

TEST_CASE("verify tracker accepts intact data and flags one corrupted byte", "[host][verify]") {
  // With and without the write history a power-loss check needs: reads are
  // judged the same either way.
  const bool history = GENERATE(true, false);
  VerifyTracker v(512);
  v.keep_history(history);
  std::vector<uint8_t> wbuf(1024), rbuf(1024);
  IoRequest w;
  w.write = true;
  w.lba = 10;
  w.nlb = 2;
  w.buf = wbuf.data();
  v.write_issued(w);
  v.write_completed(w);
  IoRequest r;
  r.lba = 10;
  r.nlb = 2;
  r.buf = rbuf.data();
  v.read_issued(r);
  rbuf = wbuf;  // the "device" returns what was written
  r.buf = rbuf.data();
  v.read_completed(r);
  CHECK(v.blocks_checked() == 2);
  CHECK(v.mismatches() == 0);
  v.read_issued(r);
  rbuf[700] ^= 1;  // one bit flipped in the second block
  v.read_completed(r);
  CHECK(v.mismatches() == 1);
  CHECK(v.first_bad_lba() == 11);
  if (!history)  // nothing to judge a power loss by: refused, not a report of nothing
    CHECK_THROWS_WITH(v.check_power_loss([](uint64_t, uint8_t*) {}), Catch::Contains("keep_history"));
}

TEST_CASE("verify tracker expects zeros from never-written blocks", "[host][verify]") {
  VerifyTracker v(512);
  std::vector<uint8_t> buf(512, 0);
  IoRequest r;
  r.lba = 99;
  r.nlb = 1;
  r.buf = buf.data();
  v.read_issued(r);
  v.read_completed(r);
  CHECK(v.mismatches() == 0);
  buf[3] = 7;
  v.read_issued(r);
  v.read_completed(r);
  CHECK(v.mismatches() == 1);
}

// ---------------------------------------------------------------- after a power loss
// Hand-worked: which writes NVMe promised to keep, and what the drive may
// legitimately hold instead.
namespace {
using D = VerifyTracker::Durability;

struct PowerRig {
  VerifyTracker v{512};
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<IoRequest> reqs;
  int job = 0;  // a buffered job's identity
  PowerRig() { reqs.reserve(64), bufs.reserve(64); }
  IoRequest& write(uint64_t lba) {
    bufs.emplace_back(512);
    reqs.emplace_back();
    IoRequest& w = reqs.back();
    w.write = true, w.lba = lba, w.nlb = 1, w.buf = bufs.back().data();
    v.write_issued(w);
    return w;
  }
  // What the "device" holds after the loss, block by block.
  std::map<uint64_t, std::vector<uint8_t>> media;
  VerifyTracker::PowerLossReport check(std::function<bool(uint64_t)> undrained = nullptr) {
    return v.check_power_loss(
        [&](uint64_t lba, uint8_t* buf) {
          auto it = media.find(lba);
          if (it == media.end())
            std::memset(buf, 0, 512);
          else
            std::memcpy(buf, it->second.data(), 512);
        },
        undrained);
  }
};
}  // namespace

TEST_CASE("after a power loss a flushed write must be there and an unflushed one may be older",
          "[host][verify][powerloss]") {
  PowerRig r;
  IoRequest& a1 = r.write(5);
  r.v.write_completed(a1, D::Volatile);
  IoRequest& b1 = r.write(6);
  r.v.write_completed(b1, D::Volatile);
  // A buffered job's fsync with a Flush: every direct write completed before it began is durable.
  r.v.sync_started(&r.job);
  r.v.synced(&r.job, true);
  IoRequest& a2 = r.write(5);
  r.v.write_completed(a2, D::Volatile);  // after the Flush: not durable
  SECTION("both hold their last write") {
    r.media[5] = r.bufs[2];
    r.media[6] = r.bufs[1];
    auto rep = r.check();
    CHECK(rep.checked == 2);
    CHECK(rep.intact == 2);
    CHECK(rep.mismatches == 0);
  }
  SECTION("block 5 lost its unflushed write: acknowledged, not durable") {
    r.media[5] = r.bufs[0];
    r.media[6] = r.bufs[1];
    auto rep = r.check();
    CHECK(rep.intact == 1);
    CHECK(rep.not_durable == 1);
    CHECK(rep.mismatches == 0);
  }
  SECTION("block 6 lost its flushed write: a mismatch") {
    r.media[5] = r.bufs[2];  // block 6 reads as zeros
    auto rep = r.check();
    CHECK(rep.intact == 1);
    CHECK(rep.mismatches == 1);
    CHECK(rep.first_bad == 6);
  }
  SECTION("block 5 older than its flushed write: a mismatch") {
    r.media[6] = r.bufs[1];  // block 5 reads as zeros, older than a1
    auto rep = r.check();
    CHECK(rep.mismatches == 1);
    CHECK(rep.first_bad == 5);
  }
}

TEST_CASE("after a power loss a block is never older than what the device persisted", "[host][verify][powerloss]") {
  PowerRig r;
  IoRequest& w1 = r.write(7);
  r.v.write_completed(w1, D::Volatile);
  IoRequest& w2 = r.write(7);
  r.v.write_completed(w2, D::Volatile);
  IoRequest& w3 = r.write(7);
  r.v.write_completed(w3, D::Volatile);
  r.v.persisted(7, 0, r.bufs[1].data(), 512);  // the cache wrote w2 back
  r.media[7] = r.bufs[0];
  CHECK(r.check().mismatches == 1);  // w1: older than what reached flash
  r.media[7] = r.bufs[1];
  auto rep = r.check();
  CHECK(rep.mismatches == 0);
  CHECK(rep.not_durable == 1);  // w3 was only in the volatile cache
  r.media[7] = r.bufs[2];
  CHECK(r.check().intact == 1);
  // Data the host never wrote there is never acceptable.
  r.media[7] = std::vector<uint8_t>(512, 0xAB);
  CHECK(r.check().mismatches == 1);
}

TEST_CASE("without a volatile cache a completed write is durable unless the drive reports it undrained",
          "[host][verify][powerloss]") {
  PowerRig r;
  IoRequest& w1 = r.write(9);
  r.v.write_completed(w1, D::Durable);
  IoRequest& w2 = r.write(10);
  r.v.write_completed(w2, D::Durable);
  IoRequest& w3 = r.write(10);
  r.v.write_completed(w3, D::Durable);
  r.v.persisted(10, 0, r.bufs[1].data(), 512);
  r.media[10] = r.bufs[1];  // block 9: zeros; block 10: w2, not w3
  CHECK(r.check().mismatches == 2);
  auto rep = r.check([](uint64_t) { return true; });  // the hold-up time saved neither
  CHECK(rep.mismatches == 0);
  CHECK(rep.not_drained == 2);
  r.media[10] = r.bufs[0];  // block 10 older than what was persisted: wrong even undrained
  rep = r.check([](uint64_t) { return true; });
  CHECK(rep.mismatches == 1);
  CHECK(rep.first_bad == 10);
}

TEST_CASE("a buffered write is durable after its own job's fsync, and a block's parts are judged apart",
          "[host][verify][powerloss]") {
  PowerRig r;
  r.v.set_part_bytes(256);
  IoRequest& w1 = r.write(3);
  r.v.write_completed(w1, D::Buffered);
  int other = 0;
  r.v.sync_started(&other);  // another job's fsync: not this write's
  r.v.synced(&other, true);
  IoRequest& w2 = r.write(3);
  r.v.write_completed(w2, D::Buffered);
  // The device persisted w2's first half only; the second half still holds w1.
  r.v.persisted(3, 0, r.bufs[1].data(), 256);
  std::vector<uint8_t> torn(512);
  std::memcpy(torn.data(), r.bufs[1].data(), 256);
  std::memcpy(torn.data() + 256, r.bufs[0].data() + 256, 256);
  r.media[3] = torn;
  auto rep = r.check();
  CHECK(rep.mismatches == 0);
  CHECK(rep.not_durable == 1);
  CHECK(rep.torn == 1);
  // The first half older than what was persisted of it: wrong.
  std::memcpy(torn.data(), r.bufs[0].data(), 256);
  r.media[3] = torn;
  CHECK(r.check().mismatches == 1);
  // Its own job's fsync makes w2 durable: the old half is now a mismatch too.
  r.media[3] = r.bufs[0];
  r.v.sync_started(w2.job);
  r.v.synced(w2.job, false);
  CHECK(r.check().mismatches == 1);
  r.media[3] = r.bufs[1];
  CHECK(r.check().intact == 1);
}

TEST_CASE("what the host does after its power failed is not judged", "[host][verify][powerloss]") {
  PowerRig r;
  IoRequest& w1 = r.write(1);
  r.v.write_completed(w1, D::Durable);
  r.v.freeze();
  IoRequest& w2 = r.write(2);
  r.v.write_completed(w2, D::Durable);
  r.media[1] = r.bufs[0];
  auto rep = r.check();
  CHECK(rep.checked == 1);
  CHECK(rep.intact == 1);
}
