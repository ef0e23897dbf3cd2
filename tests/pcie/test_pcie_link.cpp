#include <catch2/catch.hpp>

#include "platforms/server/ServerRun.hpp"
#include "vp/pcie/PcieLink.hpp"

using namespace vp;

TEST_CASE("link bandwidth follows generation, lanes and encoding", "[pcie]") {
  Config cfg(platform::server_params());
  auto bw = [&](const char* gen, const char* lanes) {
    cfg.set("pcie.gen", gen);
    cfg.set("pcie.lanes", lanes);
    return pcie::PcieLink::timing_from(cfg).bytes_per_s;
  };
  CHECK(bw("1", "1") == Approx(2.5e9 * 0.8 / 8));          // 250 MB/s
  CHECK(bw("2", "8") == Approx(5e9 * 8 * 0.8 / 8));        // 4 GB/s
  CHECK(bw("3", "4") == Approx(8e9 * 4 * 128 / 130 / 8));  // 3.94 GB/s
  CHECK(bw("4", "16") == Approx(16e9 * 16 * 128 / 130 / 8));
}

TEST_CASE("a transfer pays one TLP overhead per max-payload chunk", "[pcie]") {
  pcie::LinkTiming t;
  t.bytes_per_s = 1e9;  // 1 byte per ns
  t.max_payload = 256;
  t.tlp_overhead = 24;
  CHECK(t.serialize(4096, 256) == (4096 + 16 * 24) * 1000ull);
  CHECK(t.serialize(257, 256) == (257 + 2 * 24) * 1000ull);
  CHECK(t.serialize(0, 256) == 24 * 1000ull);  // a header-only TLP
}
