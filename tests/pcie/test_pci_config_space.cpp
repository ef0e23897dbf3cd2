// SPDX-License-Identifier: BSD-3-Clause
#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "vp/core/Config.hpp"
#include "vp/pcie/PciConfigSpace.hpp"

using namespace vp;
using vp::pcie::PciConfigSpace;
using vp::pcie::PciFunctionShape;
using Change = PciConfigSpace::Change;

namespace {
PciFunctionShape shape_with_bar(uint64_t size) {
  PciFunctionShape s;
  s.bar0_size = size;
  return s;
}

struct Sized {
  uint32_t lo, hi;
};
// Linux's __pci_read_base on a 64-bit memory BAR: turn decoding off, then per
// half save, write all ones, read back, restore; then restore the command.
Sized linux_size_bar0(PciConfigSpace& cs) {
  uint16_t cmd = uint16_t(cs.read(0x04, 2));
  if (cmd & 0x3) cs.write(0x04, cmd & ~0x3u, 2);
  uint32_t l = cs.read(0x10, 4);
  cs.write(0x10, 0xFFFFFFFF, 4);
  uint32_t sz = cs.read(0x10, 4);
  cs.write(0x10, l, 4);
  uint32_t l64 = cs.read(0x14, 4);
  cs.write(0x14, 0xFFFFFFFF, 4);
  uint32_t sz64 = cs.read(0x14, 4);
  cs.write(0x14, l64, 4);
  if (cmd & 0x3) cs.write(0x04, cmd, 2);
  return {sz, sz64};
}
uint64_t size_from(Sized s) {
  uint64_t mask = (uint64_t(s.hi) << 32 | s.lo) & ~uint64_t(0xF);
  return ~mask + 1;
}
}  // namespace

TEST_CASE("pci config BAR0 sizes like hardware under the Linux probe sequence", "[pcie][pcicfg]") {
  PciConfigSpace cs({}, shape_with_bar(16 * 1024));
  CHECK(cs.read(0x10, 4) == 0x00000004);  // memory, 64-bit (10b in bits 2:1), not prefetchable
  CHECK(cs.read(0x14, 4) == 0);
  // Firmware placed the BAR and turned on memory decode and bus mastering.
  cs.write(0x10, 0xFEBF0000, 4);
  cs.write(0x14, 0, 4);
  cs.write(0x04, 0x0006, 2);
  Sized s = linux_size_bar0(cs);
  CHECK(s.lo == 0xFFFFC004);  // ~(0x4000 - 1) = 0xFFFFC000, plus the type bits 0x4
  CHECK(s.hi == 0xFFFFFFFF);  // below 4 GiB every upper address bit is writable
  CHECK(size_from(s) == 0x4000);
  // Everything restored.
  CHECK(cs.read(0x10, 4) == 0xFEBF0004);
  CHECK(cs.read(0x14, 4) == 0);
  CHECK(cs.read(0x04, 2) == 0x0006);
  CHECK(cs.bar0_address() == 0xFEBF0000);
  CHECK(cs.memory_enabled());
  // Address bits below the size read back zero: 0x12345678 & 0xFFFFC000 = 0x12344000.
  cs.write(0x10, 0x12345678, 4);
  cs.write(0x14, 0x00000001, 4);
  CHECK(cs.read(0x10, 4) == 0x12344004);
  CHECK(cs.bar0_address() == 0x112344000ull);
}

TEST_CASE("pci config a 64 KiB BAR0 and an 8 GiB BAR0 size correctly", "[pcie][pcicfg]") {
  PciFunctionShape s64 = shape_with_bar(64 * 1024);
  PciConfigSpace small({}, s64);
  Sized a = linux_size_bar0(small);
  CHECK(a.lo == 0xFFFF0004);  // ~(0x10000 - 1) = 0xFFFF0000
  CHECK(a.hi == 0xFFFFFFFF);
  CHECK(size_from(a) == 0x10000);

  PciConfigSpace big({}, shape_with_bar(8ull << 30));
  Sized b = linux_size_bar0(big);
  CHECK(b.lo == 0x00000004);  // 8 GiB = 2^33: no address bit of the lower half is writable
  CHECK(b.hi == 0xFFFFFFFE);  // ~(2^33 - 1) >> 32 = 0xFFFFFFFE
  CHECK(size_from(b) == 0x200000000ull);
  big.write(0x14, 0x00000003, 4);  // bit 32 is below the size: reads 0 -> 0x2_00000000
  CHECK(big.bar0_address() == 0x200000000ull);
}

TEST_CASE("pci config capability list holds PM then MSI then MSI-X then PCI Express", "[pcie][pcicfg]") {
  PciConfigSpace cs;
  CHECK((cs.read(0x06, 2) & 0x0010) == 0x0010);  // Capabilities List
  std::vector<std::pair<uint32_t, uint32_t>> found;  // (offset, id)
  uint32_t ptr = cs.read(0x34, 1) & ~3u;
  for (int guard = 0; ptr != 0 && guard < 48; ++guard) {  // 48 = what fits in 0x40..0xFF
    found.emplace_back(ptr, cs.read(ptr, 1));
    ptr = cs.read(ptr + 1, 1) & ~3u;
  }
  std::vector<std::pair<uint32_t, uint32_t>> want = {{0x40, 0x01}, {0x50, 0x05}, {0x70, 0x11}, {0x80, 0x10}};
  CHECK(found == want);
  CHECK(cs.read(0x100, 4) == 0);  // no extended capability
  // Contents with the default shape (MSI 32 vectors, MSI-X 32 vectors at 0x2000 / PBA 0x3000,
  // MPS supported 256 B, gen 3 x4).
  CHECK(cs.read(0x42, 2) == 0x0003);  // PM version 3, no D1/D2, no PME
  CHECK(cs.read(0x44, 2) == 0x0008);  // D0, No_Soft_Reset
  CHECK(cs.read(0x52, 2) == 0x018A);  // per-vector mask 0x100 | 64-bit 0x80 | MMC log2(32)=5 << 1 = 0x0A
  CHECK(cs.read(0x72, 2) == 0x001F);  // table size 32 - 1
  CHECK(cs.read(0x74, 4) == 0x2000);  // offset 0x2000, BIR 0
  CHECK(cs.read(0x78, 4) == 0x3000);
  CHECK(cs.read(0x82, 2) == 0x0002);      // version 2, PCI Express Endpoint (type 0)
  CHECK(cs.read(0x84, 4) == 0x00008001);  // RBER (bit 15) | MPS 256 B (code 1)
  CHECK(cs.read(0x88, 2) == 0x2810);      // MRRS 512 (2 << 12) | No Snoop 0x800 | Relaxed Ordering 0x10
  CHECK(cs.read(0x8C, 4) == 0x00400043);  // ASPM optionality 1 << 22 | x4 << 4 = 0x40 | gen 3
  CHECK(cs.read(0x92, 2) == 0x1043);      // slot clock 0x1000 | x4 | gen 3
  CHECK(cs.read(0xAC, 4) == 0x0000000E);  // speeds 2.5, 5, 8 GT/s: bits 1..3
  CHECK(cs.max_payload() == 128);
  CHECK(cs.max_read_request() == 512);
}

TEST_CASE("pci config header carries the identity and class 01 08 02", "[pcie][pcicfg]") {
  PciConfigSpace cs;
  CHECK(cs.read(0x00, 1) == 0x36);  // vendor 0x1b36, little endian
  CHECK(cs.read(0x01, 1) == 0x1b);
  CHECK(cs.read(0x00, 4) == 0x00101b36);
  CHECK(cs.read(0x08, 1) == 0x02);  // revision
  CHECK(cs.read(0x09, 1) == 0x02);  // prog-if NVMe
  CHECK(cs.read(0x0A, 1) == 0x08);  // NVM controller
  CHECK(cs.read(0x0B, 1) == 0x01);  // mass storage
  CHECK(cs.read(0x08, 4) == 0x01080202);
  CHECK(cs.read(0x0E, 1) == 0x00);      // header type 0, single function
  CHECK(cs.read(0x2C, 4) == 0x11001af4);  // subsystem 0x1100, subsystem vendor 0x1af4
  CHECK(cs.read(0x3D, 1) == 0x01);      // INTA
  CHECK(cs.read(0x34, 1) == 0x40);

  pcie::PciIdentity id{0x8086, 0x0a54, 0x03, 0x8086, 0x4702};
  PciConfigSpace other(id);
  CHECK(other.read(0x00, 4) == 0x0a548086);
  CHECK(other.read(0x08, 4) == 0x01080203);
  CHECK(other.read(0x2C, 4) == 0x47028086);
}

TEST_CASE("pci config identity parameters parse hex and reject bad ids", "[pcie][pcicfg][config]") {
  ParamRegistry reg;
  PciConfigSpace::declare_params(ParamScope(reg, "ssd.pci"));
  Config cfg(reg);
  CHECK_NOTHROW(cfg.validate());
  pcie::PciIdentity d = PciConfigSpace::identity_from(ScopedConfig(cfg, "ssd.pci"));
  CHECK(d.vendor_id == 0x1b36);
  CHECK(d.device_id == 0x0010);
  CHECK(d.revision == 2);
  CHECK(d.subsystem_vendor_id == 0x1af4);
  CHECK(d.subsystem_id == 0x1100);
  CHECK(cfg.get_int("ssd.pci.msi_vectors") == 32);

  cfg.set("ssd.pci.vendor_id", "0x8086");
  cfg.set("ssd.pci.device_id", "2644");  // decimal 2644 = 0x0a54
  CHECK_NOTHROW(cfg.validate());
  CHECK(PciConfigSpace::identity_from(ScopedConfig(cfg, "ssd.pci")).vendor_id == 0x8086);
  CHECK(PciConfigSpace::identity_from(ScopedConfig(cfg, "ssd.pci")).device_id == 0x0a54);

  cfg.set("ssd.pci.vendor_id", "0xffff");
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("ssd.pci.vendor_id") && Catch::Contains("no device"));
  cfg.set("ssd.pci.vendor_id", "0x8086");
  cfg.set("ssd.pci.revision", "0x100");
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("ssd.pci.revision"));
  cfg.set("ssd.pci.revision", "2");
  cfg.set("ssd.pci.subsystem_id", "0xzz");
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("ssd.pci.subsystem_id"));
  cfg.set("ssd.pci.subsystem_id", "0x1100");
  cfg.set("ssd.pci.msi_vectors", "12");
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("ssd.pci.msi_vectors") && Catch::Contains("power of two"));
  CHECK_THROWS_WITH(cfg.set("ssd.pci.msi_vectors", "64"), Catch::Contains("[1, 32]"));
  cfg.set("ssd.pci.msi_vectors", "8");
  CHECK_NOTHROW(cfg.validate());
}

TEST_CASE("pci config read-only fields ignore all-ones writes everywhere", "[pcie][pcicfg]") {
  PciConfigSpace cs;  // 16 KiB BAR, MSI 32, MSI-X 32, MPS 256 B, gen 3 x4, no FLR
  std::map<Change, int> changes;
  cs.on_change([&](Change c) { ++changes[c]; });
  for (uint32_t off = 0; off < 4096; off += 4) cs.write(off, 0xFFFFFFFF, 4);
  // Only the writable bits took the ones; everything else not listed reads 0.
  std::map<uint32_t, uint32_t> want = {
      {0x00, 0x00101b36},
      {0x04, 0x00100546},  // status 0x0010 | command: MEM 0x2 BM 0x4 PER 0x40 SERR 0x100 INTxDis 0x400
      {0x08, 0x01080202},
      {0x0C, 0x000000FF},  // cache line size
      {0x10, 0xFFFFC004},
      {0x14, 0xFFFFFFFF},
      {0x2C, 0x11001af4},
      {0x34, 0x00000040},
      {0x3C, 0x000001FF},  // pin 1, line 0xFF
      {0x40, 0x00035001},  // PMC 0x0003, next 0x50, id 01
      {0x44, 0x0000000B},  // D3hot (3) | No_Soft_Reset 0x8
      {0x50, 0x01DB7005},  // control 0x0180 | MME 5 << 4 | MMC 5 << 1 | enable = 0x01DB; next 0x70; id 05
      {0x54, 0xFFFFFFFC},
      {0x58, 0xFFFFFFFF},
      {0x5C, 0x0000FFFF},
      {0x60, 0xFFFFFFFF},  // 32 mask bits
      {0x70, 0xC01F8011},  // enable | function mask | table size 31; next 0x80; id 0x11
      {0x74, 0x00002000},
      {0x78, 0x00003000},
      {0x80, 0x00020010},
      {0x84, 0x00008001},
      {0x88, 0x0000583F},  // 0xF | RO 0x10 | MPS clamped to 1 (0x20) | NS 0x800 | MRRS clamped to 5 (0x5000)
      {0x8C, 0x00400043},
      {0x90, 0x104300CB},  // link status 0x1043, link control 0xCB
      {0xAC, 0x0000000E},
      {0xB0, 0x00000003},  // target link speed, fixed here
  };
  int wrong = 0;
  for (uint32_t off = 0; off < 4096; off += 4) {
    uint32_t expect = want.count(off) ? want[off] : 0;
    if (cs.read(off, 4) != expect) {
      ++wrong;
      INFO("offset 0x" << std::hex << off << " reads 0x" << cs.read(off, 4) << " want 0x" << expect);
      CHECK(cs.read(off, 4) == expect);
    }
  }
  CHECK(wrong == 0);
  CHECK(cs.power_state() == 3);
  CHECK(cs.max_payload() == 256);
  CHECK(cs.max_read_request() == 4096);
  CHECK(changes[Change::Command] == 1);
  CHECK(changes[Change::Msi] == 5);  // dwords 0x50 (control), 0x54, 0x58, 0x5C (data), 0x60 (mask)
  CHECK(changes[Change::MsiX] == 1);
  CHECK(changes[Change::PowerState] == 1);
  CHECK(changes[Change::FunctionLevelReset] == 0);
}

TEST_CASE("pci config command register bits and INTx status", "[pcie][pcicfg]") {
  PciConfigSpace cs;
  int cmd_changes = 0;
  cs.on_change([&](Change c) { cmd_changes += c == Change::Command; });
  CHECK(cs.read(0x04, 2) == 0);
  cs.write(0x04, 0x0001, 2);  // I/O Space: hard-wired 0
  CHECK(cs.read(0x04, 2) == 0);
  CHECK(cmd_changes == 0);
  cs.write(0x04, 0x0002, 2);
  CHECK(cs.memory_enabled());
  CHECK_FALSE(cs.bus_master());
  cs.write(0x04, 0x0006, 2);
  CHECK(cs.bus_master());
  cs.write(0x04, 0x0006, 2);  // same value: no notification
  CHECK(cmd_changes == 2);
  cs.write(0x04, 0xFFFF, 2);
  CHECK(cs.read(0x04, 2) == 0x0546);  // 0x2 | 0x4 | 0x40 | 0x100 | 0x400
  CHECK(cs.intx_disabled());
  CHECK(cmd_changes == 3);

  cs.set_intx_status(true);
  CHECK(cs.read(0x06, 2) == 0x0018);  // Interrupt Status 0x8 | Capabilities List 0x10
  CHECK_FALSE(cs.intx_asserted());    // disabled
  cs.write(0x04, 0x0006, 2);
  CHECK(cs.intx_asserted());
  cs.write(0x06, 0xFFFF, 2);  // status bits are not the host's to set or clear here
  CHECK(cs.read(0x06, 2) == 0x0018);
  cs.set_intx_status(false);
  CHECK(cs.read(0x06, 2) == 0x0010);
  CHECK_FALSE(cs.intx_asserted());
}

TEST_CASE("pci config MSI-X enable and function mask", "[pcie][pcicfg]") {
  PciFunctionShape s;
  s.bar0_size = 64 * 1024;
  s.msix_vectors = 65;
  s.msix_table_offset = 0xC000;
  s.msix_pba_offset = 0xE000;
  PciConfigSpace cs({}, s);
  std::vector<Change> seen;
  cs.on_change([&](Change c) { seen.push_back(c); });
  CHECK(cs.read(0x72, 2) == 0x0040);  // 65 - 1
  CHECK(cs.read(0x74, 4) == 0xC000);
  CHECK(cs.read(0x78, 4) == 0xE000);
  cs.write(0x72, 0xC000, 2);
  CHECK(cs.msix_enabled());
  CHECK(cs.msix_function_masked());
  CHECK(cs.read(0x72, 2) == 0xC040);
  cs.write(0x73, 0x80, 1);  // unmask by byte
  CHECK(cs.msix_enabled());
  CHECK_FALSE(cs.msix_function_masked());
  cs.write(0x72, 0x3FFF, 2);  // table size and reserved bits are read-only
  CHECK(cs.read(0x72, 2) == 0x0040);
  CHECK_FALSE(cs.msix_enabled());
  cs.write(0x74, 0xFFFFFFFF, 4);  // table offset/BIR read-only
  CHECK(cs.read(0x74, 4) == 0xC000);
  CHECK(seen == std::vector<Change>{Change::MsiX, Change::MsiX, Change::MsiX});
}

TEST_CASE("pci config MSI multiple message enable is clamped to capable", "[pcie][pcicfg]") {
  PciFunctionShape s;
  s.msi_vectors = 8;  // MMC = 3
  PciConfigSpace cs({}, s);
  CHECK(cs.read(0x52, 2) == 0x0186);  // 0x100 | 0x80 | 3 << 1
  cs.write(0x52, 0x0051, 2);          // MME 5 (32 vectors) and enable
  CHECK(cs.read(0x52, 2) == 0x01B7);  // MME clamped to 3: 0x186 | 3 << 4 | 1
  CHECK(cs.msi_enabled());
  CHECK(cs.msi_enabled_vectors() == 8);
  cs.write(0x52, 0x0021, 2);  // MME 2: 4 vectors
  CHECK(cs.msi_enabled_vectors() == 4);
  cs.write(0x52, 0x0071, 2);  // MME 7 (reserved): clamped to 3
  CHECK(cs.msi_enabled_vectors() == 8);
  // Address: the two low bits are reserved zero.
  cs.write(0x54, 0xFEE00003, 4);
  cs.write(0x58, 0x00000001, 4);
  CHECK(cs.read(0x54, 4) == 0xFEE00000);
  CHECK(cs.msi_address() == 0x1FEE00000ull);
  cs.write(0x5C, 0x12344021, 4);  // data is 16 bits; 0x5E (extended data) is not implemented
  CHECK(cs.msi_data() == 0x4021);
  CHECK(cs.read(0x5C, 4) == 0x00004021);
  // Mask bits exist for the 8 capable vectors only.
  cs.write(0x60, 0xFFFFFFFF, 4);
  CHECK(cs.read(0x60, 4) == 0x000000FF);
  cs.write(0x60, 0x00000008, 4);
  CHECK(cs.msi_vector_masked(3));
  CHECK_FALSE(cs.msi_vector_masked(2));
  CHECK(cs.msi_vector_masked(8));  // no such vector
  // Pending bits: set by the device, read-only to the host.
  cs.set_msi_pending(2, true);
  cs.set_msi_pending(9, true);  // beyond capable: ignored
  CHECK(cs.read(0x64, 4) == 0x00000004);
  cs.write(0x64, 0, 4);
  CHECK(cs.msi_pending(2));
  cs.set_msi_pending(2, false);
  CHECK(cs.read(0x64, 4) == 0);

  PciFunctionShape one;
  one.msi_vectors = 1;
  PciConfigSpace single({}, one);
  single.write(0x52, 0x0071, 2);
  CHECK(single.read(0x52, 2) == 0x0181);  // MMC 0, MME stays 0, enabled
  CHECK(single.msi_enabled_vectors() == 1);
  single.write(0x60, 0xFFFFFFFF, 4);
  CHECK(single.read(0x60, 4) == 0x00000001);
}

TEST_CASE("pci config byte and word accesses at odd positions", "[pcie][pcicfg]") {
  PciConfigSpace cs;
  CHECK(cs.read(0x02, 2) == 0x0010);  // device id
  CHECK(cs.read(0x0B, 1) == 0x01);
  CHECK(cs.read(0x3D, 1) == 0x01);
  CHECK(cs.read(0x53, 1) == 0x01);  // high byte of MSI control: per-vector masking
  cs.write(0x3C, 0x0B, 1);
  CHECK(cs.read(0x3C, 2) == 0x010B);  // line 11, pin 1 untouched
  cs.write(0x3D, 0x04, 1);            // pin is read-only
  CHECK(cs.read(0x3D, 1) == 0x01);
  // BAR0 by bytes: bit 14-15 writable in byte 0x11, all of 0x12 and 0x13.
  cs.write(0x11, 0xFF, 1);
  CHECK(cs.read(0x10, 4) == 0x0000C004);
  cs.write(0x13, 0xAB, 1);
  CHECK(cs.read(0x10, 4) == 0xAB00C004);
  cs.write(0x10, 0xFF, 1);  // type bits and address bits 4-7 are read-only
  CHECK(cs.read(0x10, 4) == 0xAB00C004);
  cs.write(0x05, 0x04, 1);  // Interrupt Disable alone
  CHECK(cs.read(0x04, 2) == 0x0400);
  cs.write(0x56, 0xFEE0, 2);  // upper word of MSI address low
  CHECK(cs.msi_address() == 0xFEE00000ull);
  cs.write(0x0C, 0x10, 1);  // cache line size: 16 dwords
  CHECK(cs.read(0x0C, 4) == 0x00000010);
  // Misaligned accesses do not exist on the wire: all ones, nothing written.
  CHECK(cs.read(0x01, 2) == 0xFFFF);
  CHECK(cs.read(0x02, 4) == 0xFFFFFFFF);
  CHECK(cs.read(0x00, 3) == 0xFFFFFF);
  cs.write(0x3B, 0x2222, 2);
  cs.write(0x3E, 0x33333333, 4);
  CHECK(cs.read(0x3C, 4) == 0x0000010B);
}

TEST_CASE("pci config out of range accesses read ones and never crash", "[pcie][pcicfg]") {
  PciConfigSpace cs;
  CHECK(cs.read(0xFFC, 4) == 0);  // last dword of the extended space
  CHECK(cs.read(0x100, 4) == 0);
  CHECK(cs.read(4096, 4) == 0xFFFFFFFF);
  CHECK(cs.read(4096, 1) == 0xFF);
  CHECK(cs.read(0xFFFF, 1) == 0xFF);
  CHECK(cs.read(0xFFFFFFFC, 4) == 0xFFFFFFFF);  // offset + size would wrap
  CHECK(cs.read(0, 8) == 0xFFFFFFFF);
  CHECK(cs.read(0, 0) == 0);
  std::vector<uint32_t> before;
  for (uint32_t off = 0; off < 4096; off += 4) before.push_back(cs.read(off, 4));
  cs.write(4096, 0xFFFFFFFF, 4);
  cs.write(0xFFFFFFFC, 0xFFFFFFFF, 4);
  cs.write(0x04, 0xFFFFFFFF, 8);
  std::vector<uint32_t> after;
  for (uint32_t off = 0; off < 4096; off += 4) after.push_back(cs.read(off, 4));
  CHECK(before == after);
}

TEST_CASE("pci config power management keeps D1 and D2 writes out", "[pcie][pcicfg]") {
  PciConfigSpace cs;
  int pm_changes = 0;
  cs.on_change([&](Change c) { pm_changes += c == Change::PowerState; });
  cs.write(0x10, 0xFEBF0000, 4);
  cs.write(0x44, 0x0001, 2);  // D1: unsupported
  CHECK(cs.power_state() == 0);
  cs.write(0x44, 0x0003, 2);
  CHECK(cs.power_state() == 3);
  CHECK(cs.read(0x44, 2) == 0x000B);
  cs.write(0x44, 0x0002, 2);  // D2: unsupported, stays D3hot
  CHECK(cs.power_state() == 3);
  cs.write(0x44, 0x0000, 2);
  CHECK(cs.power_state() == 0);
  CHECK(pm_changes == 2);
  CHECK(cs.bar0_address() == 0xFEBF0000);  // No_Soft_Reset: D3hot -> D0 kept the BAR
}

TEST_CASE("pci config PCI Express payload and link fields follow the shape", "[pcie][pcicfg]") {
  PciFunctionShape s;
  s.max_payload_supported = 512;  // code 2
  s.link_speed = 4;
  s.link_width = 8;
  PciConfigSpace cs({}, s);
  CHECK(cs.read(0x84, 4) == 0x00008002);
  CHECK(cs.read(0x8C, 4) == 0x00400084);  // 1 << 22 | 8 << 4 | 4
  CHECK(cs.read(0x92, 2) == 0x1084);
  CHECK(cs.read(0xAC, 4) == 0x0000001E);  // 2.5 to 16 GT/s: bits 1..4
  CHECK(cs.read(0xB0, 2) == 0x0004);
  cs.write(0x88, 0x2810 | 5 << 5, 2);  // ask for MPS 4096: clamped to 512
  CHECK(cs.max_payload() == 512);
  CHECK(cs.read(0x88, 2) == 0x2850);  // 0x2810 | 2 << 5
  cs.write(0x88, 0x3030, 2);  // MPS 1 (256 B), MRRS 3 (1024 B), RO on, NS off
  CHECK(cs.max_payload() == 256);
  CHECK(cs.max_read_request() == 1024);
  CHECK(cs.read(0x88, 2) == 0x3030);
  cs.write(0x8C, 0, 4);  // link capabilities are read-only
  cs.write(0x92, 0, 2);
  CHECK(cs.read(0x8C, 4) == 0x00400084);
  CHECK(cs.read(0x92, 2) == 0x1084);
}

TEST_CASE("pci config function level reset keeps MPS and link control only", "[pcie][pcicfg]") {
  PciFunctionShape s;
  s.flr_capable = true;
  PciConfigSpace cs({}, s);
  std::vector<Change> seen;
  cs.on_change([&](Change c) { seen.push_back(c); });
  CHECK(cs.read(0x84, 4) == 0x10008001);  // FLR capable 1 << 28
  cs.write(0x10, 0xFEBF0000, 4);
  cs.write(0x04, 0x0406, 2);
  cs.write(0x52, 0x0001, 2);
  cs.write(0x72, 0x8000, 2);
  cs.write(0x88, 0x3030, 2);  // MPS 256, MRRS 1024
  cs.write(0x90, 0x0040, 2);  // Common Clock Configuration
  cs.set_intx_status(true);
  seen.clear();
  cs.write(0x88, 0x8000 | 0x3030, 2);  // Initiate FLR
  CHECK(seen == std::vector<Change>{Change::FunctionLevelReset});
  CHECK(cs.read(0x10, 4) == 0x00000004);
  CHECK(cs.read(0x04, 4) == 0x00100000);  // command 0, status: capabilities list only
  CHECK_FALSE(cs.msi_enabled());
  CHECK_FALSE(cs.msix_enabled());
  CHECK(cs.read(0x88, 2) == 0x2830);  // MPS kept (1 << 5), the rest back to 0x2810; Initiate FLR reads 0
  CHECK(cs.read(0x90, 2) == 0x0040);
  cs.reset(PciConfigSpace::Reset::Conventional);
  CHECK(cs.read(0x88, 2) == 0x2810);
  CHECK(cs.read(0x90, 2) == 0x0000);

  PciConfigSpace no_flr;  // not FLR capable: the bit does nothing
  no_flr.write(0x04, 0x0006, 2);
  no_flr.write(0x88, 0x8000 | 0x2810, 2);
  CHECK(no_flr.read(0x04, 2) == 0x0006);
  CHECK(no_flr.read(0x84, 4) == 0x00008001);
}

TEST_CASE("pci config rejects shapes no hardware could have", "[pcie][pcicfg]") {
  auto make = [](auto tweak) {
    PciFunctionShape s;
    tweak(s);
    PciConfigSpace cs({}, s);
  };
  CHECK_NOTHROW(make([](PciFunctionShape&) {}));
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.bar0_size = 24 * 1024; }), std::invalid_argument);
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.msi_vectors = 3; }), std::invalid_argument);
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.msi_vectors = 64; }), std::invalid_argument);
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.msix_vectors = 0; }), std::invalid_argument);
  // 32 vectors x 16 B = 512 B from 0x3F00 ends at 0x4100, beyond 16 KiB.
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.msix_table_offset = 0x3F00; }), std::invalid_argument);
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.msix_pba_offset = 0x2100; }), std::invalid_argument);  // in the table
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.msix_pba_offset = 0x3004; }), std::invalid_argument);  // BIR bits
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.max_payload_supported = 8192; }), std::invalid_argument);
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.link_speed = 6; }), std::invalid_argument);
  CHECK_THROWS_AS(make([](PciFunctionShape& s) { s.link_width = 3; }), std::invalid_argument);
  CHECK_NOTHROW(make([](PciFunctionShape& s) { s.msix_pba_offset = 0x2200; }));  // right after the table
}
