// SPDX-License-Identifier: BSD-3-Clause
// ssd.pci.msi / ssd.pci.msix: the function built without either interrupt
// capability. The chain a host walks from 0x34 must hold exactly the
// capabilities present, and an absent one can never be enabled.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "vp/core/Config.hpp"
#include "vp/pcie/PciConfigSpace.hpp"

using namespace vp;
using vp::pcie::PciConfigSpace;
using vp::pcie::PciFunctionShape;

namespace {
using Cap = std::pair<uint32_t, uint32_t>;  // offset, capability id

// What a host's capability walk finds: 0x34, then each next pointer.
std::vector<Cap> walk(const PciConfigSpace& cs) {
  std::vector<Cap> caps;
  for (uint32_t p = cs.read(0x34, 1) & 0xFC; p && caps.size() < 48; p = cs.read(p + 1, 1) & 0xFC)
    caps.push_back({p, cs.read(p, 1)});
  return caps;
}

PciConfigSpace build(bool msi, bool msix) {
  PciFunctionShape s;
  s.msi = msi;
  s.msix = msix;
  return PciConfigSpace({}, s);
}
}  // namespace

// Layout (PciConfigSpace): PM at 0x40, MSI at 0x50, MSI-X at 0x70, PCIe at
// 0x80; ids PM 0x01, MSI 0x05, MSI-X 0x11, PCIe 0x10.
TEST_CASE("with MSI and MSI-X the chain is PM MSI MSI-X PCIe", "[pcie][config][caps]") {
  PciConfigSpace cs = build(true, true);
  CHECK(walk(cs) == std::vector<Cap>{{0x40, 0x01}, {0x50, 0x05}, {0x70, 0x11}, {0x80, 0x10}});
  cs.write(0x72, 0x8000, 2);
  CHECK(cs.msix_enabled());  // the control: this test would notice if enabling failed everywhere
}

TEST_CASE("without MSI-X the chain is PM MSI PCIe and MSI-X never enables", "[pcie][config][caps]") {
  PciConfigSpace cs = build(true, false);
  // MSI's next pointer skips 0x70: 0x50 -> 0x80.
  CHECK(walk(cs) == std::vector<Cap>{{0x40, 0x01}, {0x50, 0x05}, {0x80, 0x10}});
  CHECK(cs.read(0x70, 4) == 0);  // the empty place reads 0
  cs.write(0x72, 0x8000, 2);     // MSI-X Enable into nothing
  CHECK_FALSE(cs.msix_enabled());
  CHECK(cs.read(0x70, 4) == 0);
  cs.write(0x52, 1, 2);  // MSI still works
  CHECK(cs.msi_enabled());
}

TEST_CASE("without MSI the chain is PM MSI-X PCIe and MSI never enables", "[pcie][config][caps]") {
  PciConfigSpace cs = build(false, true);
  // PM's next pointer skips 0x50: 0x40 -> 0x70.
  CHECK(walk(cs) == std::vector<Cap>{{0x40, 0x01}, {0x70, 0x11}, {0x80, 0x10}});
  for (uint32_t o = 0x50; o < 0x68; o += 4) CHECK(cs.read(o, 4) == 0);  // the 24 bytes MSI would use
  cs.write(0x52, 0x0071, 2);  // MSI Enable with 8 messages
  cs.write(0x54, 0xFEE00000u, 4);
  CHECK_FALSE(cs.msi_enabled());
  CHECK(cs.read(0x54, 4) == 0);
  cs.set_msi_pending(0, true);  // the device has nowhere to show it
  CHECK_FALSE(cs.msi_pending(0));
  CHECK(cs.read(0x64, 4) == 0);
  cs.write(0x72, 0x8000, 2);
  CHECK(cs.msix_enabled());
}

TEST_CASE("without MSI and MSI-X the chain is PM then PCIe and only INTx is left", "[pcie][config][caps]") {
  PciConfigSpace cs = build(false, false);
  // 0x34 -> 0x40 (PM, next 0x80) -> 0x80 (PCIe, next 0): header word at 0x40 = 0x8001.
  CHECK(walk(cs) == std::vector<Cap>{{0x40, 0x01}, {0x80, 0x10}});
  CHECK(cs.read(0x40, 2) == 0x8001);
  cs.write(0x52, 1, 2);
  cs.write(0x72, 0x8000, 2);
  CHECK_FALSE(cs.msi_enabled());
  CHECK_FALSE(cs.msix_enabled());
  // INTx still signals: Interrupt Status (status bit 3) with Interrupt Disable clear.
  cs.set_intx_status(true);
  CHECK(cs.intx_asserted());
  CHECK((cs.read(0x06, 2) & 0x0018) == 0x0018);  // Capabilities List (bit 4) and Interrupt Status (bit 3)
  // A function level reset keeps the shape: still PM then PCIe.
  cs.reset(PciConfigSpace::Reset::FunctionLevel);
  CHECK(walk(cs) == std::vector<Cap>{{0x40, 0x01}, {0x80, 0x10}});
}

TEST_CASE("ssd.pci.msi and ssd.pci.msix are declared true and reach the shape", "[pcie][config][caps]") {
  ParamRegistry reg;
  PciConfigSpace::declare_params(ParamScope(reg, "ssd.pci"));
  Config cfg(reg);
  cfg.validate();
  CHECK(cfg.get_bool("ssd.pci.msi"));
  CHECK(cfg.get_bool("ssd.pci.msix"));
  cfg.set("ssd.pci.msix", "false");
  cfg.set("ssd.pci.msi_vectors", "4");
  PciFunctionShape s = PciConfigSpace::shape_from(ScopedConfig(cfg, "ssd.pci"));
  CHECK(s.msi);
  CHECK_FALSE(s.msix);
  CHECK(s.msi_vectors == 4);
  CHECK(s.msix_vectors == PciFunctionShape{}.msix_vectors);  // the rest of the base is kept
}
