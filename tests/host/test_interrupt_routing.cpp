// SPDX-License-Identifier: BSD-3-Clause
// The host's vector table: blocks per driver, MSI alignment, the shared pin.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "vp/host/driver/InterruptRouting.hpp"

using vp::host::InterruptRouting;
using vp::host::IoRequest;

namespace {
struct Recorder : vp::host::IrqHandler {
  std::vector<uint32_t> got;
  void handle_irq(uint32_t v, std::vector<IoRequest*>&) override { got.push_back(v); }
};
}  // namespace

TEST_CASE("interrupt vectors go to the driver that owns them, numbered from its own zero", "[host][irq][routing]") {
  vp::StatRegistry stats;
  InterruptRouting r(stats);
  Recorder nvme, accel, legacy_a, legacy_b;
  // NVMe takes 5 MSI-X vectors (admin + 4 cores): 0..4. An MSI function
  // asking for 4 messages needs a block aligned to 4: 8..11, not 5..8.
  CHECK(r.allocate(5, 1, nvme, "nvme") == 0);
  CHECK(r.allocate(4, 4, accel, "accel") == 8);
  CHECK_THROWS_AS(r.allocate(2, 3, accel, "bad"), std::logic_error);
  r.share_intx(legacy_a, "a");
  r.share_intx(legacy_b, "b");
  std::vector<IoRequest*> done;
  for (uint32_t v : {0u, 4u, 8u, 11u, 5u, 12u}) r.dispatch(v, done);
  r.dispatch(InterruptRouting::kIntxVector, done);
  CHECK(nvme.got == std::vector<uint32_t>{0, 4});
  CHECK(accel.got == std::vector<uint32_t>{0, 3});
  CHECK(legacy_a.got == std::vector<uint32_t>{0});  // every handler on the shared pin runs
  CHECK(legacy_b.got == std::vector<uint32_t>{0});
  CHECK(r.spurious() == 2);  // 5..7 and 12 belong to nobody
  CHECK(stats.value("host.irq.spurious") == 2);
  CHECK(r.owner_of(9) == "accel");
  CHECK(r.owner_of(InterruptRouting::kIntxVector) == "a, b");
  CHECK(r.owner_of(6).empty());
}
