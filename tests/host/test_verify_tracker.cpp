// The verifier itself must catch a corrupted block, or the integrity tests prove nothing.
#include <catch2/catch.hpp>
#include <vector>

#include "vp/host/VerifyTracker.hpp"

using namespace vp::host;

TEST_CASE("verify tracker accepts intact data and flags one corrupted byte", "[host][verify]") {
  VerifyTracker v(512);
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
