// SPDX-License-Identifier: BSD-3-Clause
// The modeled host on a function without MSI-X (ssd.pci.msix=false) and
// without MSI: the driver falls back as Linux's pci_alloc_irq_vectors does
// (MSI-X, else MSI, else INTx) and the run completes with every byte intact.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
// Two jobs on two cores, one after the other. The second runs on core 1
// while MSI and INTx interrupts go to core 0, so its completions are reaped
// there and must still wake core 1.
const char* kJobs =
    "[global]\ndirect=1\nbs=4k\nsize=256k\niodepth=4\nverify=1\n"
    "[w]\nrw=write\ncpus_allowed=0\n"
    "[r]\nstonewall\nrw=read\ncpus_allowed=1\n";

double counter(const nlohmann::json& s, const char* name) { return s["counters"][name].get<double>(); }

void check_completed(const nlohmann::json& s) {
  INFO(host(s)["verify"].dump());
  // 256 KiB / 4 KiB = 64 writes on core 0, then 64 reads on core 1, all checked.
  REQUIRE(s["jobs"].size() == 2);
  CHECK(s["jobs"][0]["writes"].get<uint64_t>() == 64);
  CHECK(s["jobs"][1]["reads"].get<uint64_t>() == 64);
  CHECK(s["jobs"][1]["core"].get<unsigned>() == 1);
  for (const auto& j : s["jobs"]) CHECK(j["errors"].get<uint64_t>() == 0);
  CHECK(host(s)["verify"]["blocks_checked"].get<uint64_t>() == 64);
  CHECK(host(s)["verify"]["mismatches"].get<uint64_t>() == 0);
}
}  // namespace

TEST_CASE("without MSI-X and MSI the driver falls back to INTx and the run completes", "[platform][irq]") {
  auto s = run("quick", {{"ssd.pci.msix", "false"}, {"ssd.pci.msi", "false"}}, kJobs);
  check_completed(s);
  CHECK(counter(s, "ssd.nvme.msix_sent") == 0);
  CHECK(counter(s, "ssd.nvme.msi_sent") == 0);
  CHECK(counter(s, "ssd.nvme.intx_asserts") >= 1);
  // Every assert the device sent reached the interrupt controller.
  CHECK(counter(s, "host.irq.intx_asserts") == counter(s, "ssd.nvme.intx_asserts"));
  CHECK(counter(s, "host.irq.delivered") >= counter(s, "host.irq.intx_asserts"));
}

TEST_CASE("without MSI-X the driver falls back to MSI and the run completes", "[platform][irq]") {
  auto s = run("quick", {{"ssd.pci.msix", "false"}}, kJobs);
  check_completed(s);
  CHECK(counter(s, "ssd.nvme.msix_sent") == 0);
  CHECK(counter(s, "ssd.nvme.msi_sent") >= 1);
  CHECK(counter(s, "ssd.nvme.intx_asserts") == 0);
}

TEST_CASE("with one MSI vector the admin and both I/O queues share it and the run completes", "[platform][irq]") {
  auto s = run("quick", {{"ssd.pci.msix", "false"}, {"ssd.pci.msi_vectors", "1"}}, kJobs);
  check_completed(s);
  CHECK(counter(s, "ssd.nvme.msix_sent") == 0);
  CHECK(counter(s, "ssd.nvme.msi_sent") >= 1);
  // Without coalescing, one message per completion: 128 I/O completions plus
  // the bring-up's admin commands (msi_sent - admin_commands = 128).
  CHECK(counter(s, "ssd.nvme.msi_sent") - counter(s, "ssd.nvme.admin_commands") == 128);
}

TEST_CASE("with MSI-X the run uses MSI-X only", "[platform][irq]") {
  auto s = run("quick", {}, kJobs);
  check_completed(s);
  CHECK(counter(s, "ssd.nvme.msix_sent") - counter(s, "ssd.nvme.admin_commands") == 128);
  CHECK(counter(s, "ssd.nvme.msi_sent") == 0);
  CHECK(counter(s, "ssd.nvme.intx_asserts") == 0);
}
