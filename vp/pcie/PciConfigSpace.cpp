// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/PciConfigSpace.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <fmt/format.h>
#include <stdexcept>

namespace vp::pcie {

namespace {
// PCI ids are written in hex: accept 0x-prefixed hex or plain decimal.
bool parse_id(const std::string& s, uint32_t max, uint32_t& out) {
  bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  std::string digits = hex ? s.substr(2) : s;
  if (digits.empty() || digits.size() > 8) return false;
  for (char ch : digits)
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(ch)) : std::isdigit(static_cast<unsigned char>(ch))))
      return false;
  unsigned long v = std::stoul(digits, nullptr, hex ? 16 : 10);
  if (v > max) return false;
  out = static_cast<uint32_t>(v);
  return true;
}

struct IdKey {
  const char* key;
  uint32_t max;
  const char* allowed;
};
const IdKey kIdKeys[] = {
    {"vendor_id", 0xFFFE, "0x0000..0xfffe (0xffff reads as no device)"},
    {"device_id", 0xFFFF, "0x0000..0xffff"},
    {"revision", 0xFF, "0x00..0xff"},
    {"subsystem_vendor_id", 0xFFFF, "0x0000..0xffff"},
    {"subsystem_id", 0xFFFF, "0x0000..0xffff"},
};

uint32_t id_value(const ScopedConfig& c, const IdKey& k) {
  uint32_t v = 0;
  if (!parse_id(c.get_string(k.key), k.max, v))
    c.fail(k.key, fmt::format("must be {}, in hex (0x1b36) or decimal", k.allowed));
  return v;
}

bool pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
unsigned log2u(uint64_t v) {
  unsigned n = 0;
  while (v > 1) v >>= 1, ++n;
  return n;
}

// Type 0 header offsets and capability ids (PCI Local Bus 3.0, PCIe Base).
constexpr uint32_t kCommand = 0x04, kStatus = 0x06, kRevision = 0x08, kCacheLine = 0x0C, kBar0 = 0x10,
                   kBar1 = 0x14, kSubsystem = 0x2C, kCapPtr = 0x34, kIntLine = 0x3C, kIntPin = 0x3D;
constexpr uint8_t kCapIdPm = 0x01, kCapIdMsi = 0x05, kCapIdMsix = 0x11, kCapIdPcie = 0x10;
// Registers inside the PCI Express capability.
constexpr uint32_t kDevCap = 4, kDevCtl = 8, kLinkCap = 0x0C, kLinkCtl = 0x10, kLinkSta = 0x12, kLinkCap2 = 0x2C,
                   kLinkCtl2 = 0x30;
constexpr uint16_t kDevCtlMps = 7 << 5, kDevCtlMrrs = 7 << 12, kDevCtlFlr = 1 << 15;
}  // namespace

void PciConfigSpace::declare_params(const ParamScope& r, const PciIdentity& d) {
  // Strings, so the ids can be written in hex as everyone writes them.
  auto hex = [](unsigned v, int digits) { return fmt::format("0x{:0{}x}", v, digits); };
  r.string("vendor_id", hex(d.vendor_id, 4), "PCI vendor id of the function (hex 0x.... or decimal)");
  r.string("device_id", hex(d.device_id, 4), "PCI device id of the function (hex 0x.... or decimal)");
  r.string("revision", hex(d.revision, 2), "PCI revision id of the function (hex 0x.. or decimal)");
  r.string("subsystem_vendor_id", hex(d.subsystem_vendor_id, 4), "PCI subsystem vendor id (hex 0x.... or decimal)");
  r.string("subsystem_id", hex(d.subsystem_id, 4), "PCI subsystem id (hex 0x.... or decimal)");
  r.integer("msi_vectors", 32, "MSI vectors the function can send (MSI Multiple Message Capable)")
      .range(1, 32);
  r.boolean("msi", true,
            "the function has an MSI capability; false leaves it out of the capability list, so the host must use "
            "MSI-X or fall back to INTx (NVMe over PCIe expects MSI-X: a study/compatibility knob)");
  r.boolean("msix", true,
            "the function has an MSI-X capability; false leaves it out of the capability list (the table and PBA "
            "stay in BAR0 but can never be enabled), so the host must fall back to MSI or INTx (NVMe over PCIe "
            "expects MSI-X: a study/compatibility knob)");
  r.rule([](const ScopedConfig& c) {
    for (const IdKey& k : kIdKeys) id_value(c, k);
    if (!pow2(static_cast<uint64_t>(c.get_int("msi_vectors"))))
      c.fail("msi_vectors", "must be a power of two (1, 2, 4, 8, 16 or 32)");
  });
}

PciIdentity PciConfigSpace::identity_from(const ScopedConfig& c, PciIdentity id) {
  id.vendor_id = static_cast<uint16_t>(id_value(c, kIdKeys[0]));
  id.device_id = static_cast<uint16_t>(id_value(c, kIdKeys[1]));
  id.revision = static_cast<uint8_t>(id_value(c, kIdKeys[2]));
  id.subsystem_vendor_id = static_cast<uint16_t>(id_value(c, kIdKeys[3]));
  id.subsystem_id = static_cast<uint16_t>(id_value(c, kIdKeys[4]));
  return id;
}

PciFunctionShape PciConfigSpace::shape_from(const ScopedConfig& c, PciFunctionShape base) {
  base.msi_vectors = static_cast<unsigned>(c.get_int("msi_vectors"));
  base.msi = c.get_bool("msi");
  base.msix = c.get_bool("msix");
  return base;
}

PciConfigSpace::PciConfigSpace(const PciIdentity& id, const PciFunctionShape& shape)
    : id_(id), shape_(shape), cfg_(kSize), wmask_(kSize) {
  auto bad = [](const std::string& why) { throw std::invalid_argument("PciConfigSpace: " + why); };
  const PciFunctionShape& s = shape_;
  if (!pow2(s.bar0_size) || s.bar0_size < 16 || s.bar0_size > (uint64_t(1) << 63))
    bad(fmt::format("BAR0 size {} is not a power of two between 16 B and 2^63 B", s.bar0_size));
  if (!pow2(s.msi_vectors) || s.msi_vectors > 32)
    bad(fmt::format("{} MSI vectors: must be a power of two up to 32", s.msi_vectors));
  if (s.msix_vectors < 1 || s.msix_vectors > 2048)
    bad(fmt::format("{} MSI-X vectors: must be 1..2048", s.msix_vectors));
  // The low three bits of the offset registers hold the BIR.
  if ((s.msix_table_offset & 7) || (s.msix_pba_offset & 7)) bad("MSI-X table and PBA offsets must be 8-byte aligned");
  uint64_t table_end = uint64_t(s.msix_table_offset) + 16ull * s.msix_vectors;
  uint64_t pba_end = uint64_t(s.msix_pba_offset) + 8ull * ((s.msix_vectors + 63) / 64);
  if (table_end > s.bar0_size || pba_end > s.bar0_size) bad("MSI-X table or PBA extends beyond BAR0");
  if (s.msix_table_offset < pba_end && s.msix_pba_offset < table_end) bad("MSI-X table and PBA overlap");
  if (!pow2(s.max_payload_supported) || s.max_payload_supported < 128 || s.max_payload_supported > 4096)
    bad(fmt::format("Max_Payload_Size Supported {} B: must be a power of two in 128..4096", s.max_payload_supported));
  if (s.link_speed < 1 || s.link_speed > 5) bad(fmt::format("link speed {}: must be 1..5", s.link_speed));
  static const unsigned widths[] = {1, 2, 4, 8, 12, 16, 32};
  if (std::find(std::begin(widths), std::end(widths), s.link_width) == std::end(widths))
    bad(fmt::format("link width x{}: must be 1, 2, 4, 8, 12, 16 or 32", s.link_width));
  power_on();
}

void PciConfigSpace::put8(uint32_t off, uint8_t v, uint8_t wmask) {
  cfg_[off] = v;
  wmask_[off] = wmask;
}
void PciConfigSpace::put16(uint32_t off, uint16_t v, uint16_t wmask) {
  put8(off, uint8_t(v), uint8_t(wmask));
  put8(off + 1, uint8_t(v >> 8), uint8_t(wmask >> 8));
}
void PciConfigSpace::put32(uint32_t off, uint32_t v, uint32_t wmask) {
  put16(off, uint16_t(v), uint16_t(wmask));
  put16(off + 2, uint16_t(v >> 16), uint16_t(wmask >> 16));
}

void PciConfigSpace::power_on() {
  std::fill(cfg_.begin(), cfg_.end(), 0);
  std::fill(wmask_.begin(), wmask_.end(), 0);
  const PciFunctionShape& s = shape_;

  // Type 0 header.
  put16(0x00, id_.vendor_id);
  put16(0x02, id_.device_id);
  // Memory Space, Bus Master, Parity Error Response, SERR# Enable, Interrupt
  // Disable. No I/O BAR, so I/O Space stays 0.
  put16(kCommand, 0, kCmdMemory | kCmdMaster | 1 << 6 | 1 << 8 | kCmdIntxDisable);
  put16(kStatus, 1 << 4);  // Capabilities List; the RW1C error bits never get set here
  put8(kRevision, id_.revision);
  put8(0x09, id_.class_code & 0xFF);         // programming interface
  put8(0x0A, (id_.class_code >> 8) & 0xFF);  // subclass
  put8(0x0B, (id_.class_code >> 16) & 0xFF); // base class
  put8(kCacheLine, 0, 0xFF);  // latency timer (0x0D) is hard-wired 0 on PCIe; header type 0, no BIST
  // BAR0/BAR1: one 64-bit non-prefetchable memory BAR (type 10b in bits 2:1).
  // Address bits below the size are not writable, which is what sizing reads.
  uint64_t addr_mask = ~(s.bar0_size - 1);
  put32(kBar0, 0x4, uint32_t(addr_mask) & 0xFFFFFFF0u);
  put32(kBar1, 0, uint32_t(addr_mask >> 32));
  // BAR2-5, CardBus CIS and the expansion ROM BAR stay 0: not implemented.
  put16(kSubsystem, id_.subsystem_vendor_id);
  put16(kSubsystem + 2, id_.subsystem_id);
  put8(kCapPtr, kPmCap);  // PM is always there, so the list never starts empty
  put8(kIntLine, 0, 0xFF);
  put8(kIntPin, 1);  // INTA; Min_Gnt and Max_Lat are 0 on PCIe

  // Next pointers: each capability links to the next one present.
  const uint8_t after_pm = uint8_t(s.msi ? kMsiCap : s.msix ? kMsixCap : kPcieCap);
  const uint8_t after_msi = uint8_t(s.msix ? kMsixCap : kPcieCap);

  // Power Management, version 3 (PM 1.2): D0 and D3hot only, no PME.
  put8(kPmCap, kCapIdPm);
  put8(kPmCap + 1, after_pm);
  put16(kPmCap + 2, 3);
  put16(kPmCap + 4, 1 << 3, 0x3);  // No_Soft_Reset: D3hot -> D0 keeps the configuration

  // MSI with 64-bit addresses and per-vector masking.
  if (s.msi) {
    unsigned mmc = log2u(s.msi_vectors);
    uint32_t vec_mask = s.msi_vectors == 32 ? 0xFFFFFFFFu : (1u << s.msi_vectors) - 1;
    put8(kMsiCap, kCapIdMsi);
    put8(kMsiCap + 1, after_msi);
    put16(kMsiCap + 2, uint16_t(1 << 8 | 1 << 7 | mmc << 1), 0x0071);  // MSI Enable and Multiple Message Enable
    put32(kMsiCap + 4, 0, 0xFFFFFFFCu);  // dword-aligned message address
    put32(kMsiCap + 8, 0, 0xFFFFFFFFu);
    put16(kMsiCap + 12, 0, 0xFFFF);  // +14: extended message data, not supported
    put32(kMsiCap + 16, 0, vec_mask);  // mask bits for the vectors that exist
    put32(kMsiCap + 20, 0);            // pending bits, set by the device
  }

  // MSI-X: table and PBA in BAR0 (BIR 0).
  if (s.msix) {
    put8(kMsixCap, kCapIdMsix);
    put8(kMsixCap + 1, kPcieCap);
    put16(kMsixCap + 2, uint16_t(s.msix_vectors - 1), 0xC000);  // MSI-X Enable, Function Mask
    put32(kMsixCap + 4, s.msix_table_offset);
    put32(kMsixCap + 8, s.msix_pba_offset);
  }

  // PCI Express capability, version 2, PCI Express Endpoint; last in the chain.
  put8(kPcieCap, kCapIdPcie);
  put8(kPcieCap + 1, 0);
  put16(kPcieCap + 2, 0x0002);
  put32(kPcieCap + kDevCap,
        log2u(s.max_payload_supported / 128) | 1u << 15 | (s.flr_capable ? 1u << 28 : 0));  // + Role-Based Error Reporting
  // Error reporting enables, Relaxed Ordering, MPS, No Snoop, MRRS.
  // Defaults: Relaxed Ordering and No Snoop enabled, MPS 128 B, MRRS 512 B.
  put16(kPcieCap + kDevCtl, 1 << 4 | 1 << 11 | 2 << 12, 0x000F | 1 << 4 | kDevCtlMps | 1 << 11 | kDevCtlMrrs);
  put32(kPcieCap + kLinkCap, s.link_speed | s.link_width << 4 | 1u << 22);  // + ASPM Optionality Compliance; no ASPM
  put16(kPcieCap + kLinkCtl, 0, 0x00CB);  // ASPM Control, RCB, Common Clock Configuration, Extended Synch
  put16(kPcieCap + kLinkSta, uint16_t(s.link_speed | s.link_width << 4 | 1 << 12));  // trained at max; slot clock
  put32(kPcieCap + kLinkCap2, ((1u << s.link_speed) - 1) << 1);  // Supported Link Speeds Vector
  put16(kPcieCap + kLinkCtl2, uint16_t(s.link_speed));           // Target Link Speed (not writable here)
}

void PciConfigSpace::reset(Reset kind) {
  // FLR leaves link-related state alone (PCIe Base, function level reset).
  uint16_t mps = get16(kPcieCap + kDevCtl) & kDevCtlMps, linkctl = get16(kPcieCap + kLinkCtl);
  power_on();
  if (kind == Reset::FunctionLevel) {
    set16(kPcieCap + kDevCtl, uint16_t((get16(kPcieCap + kDevCtl) & ~kDevCtlMps) | mps));
    set16(kPcieCap + kLinkCtl, linkctl);
  }
}

bool PciConfigSpace::access_ok(uint32_t offset, unsigned size) {
  return (size == 1 || size == 2 || size == 4) && offset % size == 0 && offset < kSize && kSize - offset >= size;
}

uint32_t PciConfigSpace::read(uint32_t offset, unsigned size) const {
  if (!access_ok(offset, size)) return size < 4 ? (1u << (8 * size)) - 1 : 0xFFFFFFFFu;
  uint32_t v = 0;
  for (unsigned i = 0; i < size; ++i) v |= uint32_t(cfg_[offset + i]) << (8 * i);
  return v;
}

void PciConfigSpace::write(uint32_t offset, uint32_t value, unsigned size) {
  if (!access_ok(offset, size)) return;
  // What the device reacts to, before the write.
  const uint16_t cmd0 = command(), msix0 = get16(kMsixCap + 2);
  const unsigned pm0 = power_state();
  std::array<uint8_t, 18> msi0;  // control, address, data, mask bits (not the device's pending bits)
  std::copy_n(cfg_.begin() + kMsiCap + 2, msi0.size(), msi0.begin());

  bool flr = false;
  for (unsigned i = 0; i < size; ++i) {
    uint32_t o = offset + i;
    uint8_t b = uint8_t(value >> (8 * i));
    if (o == kPcieCap + kDevCtl + 1 && (b & (kDevCtlFlr >> 8)) && shape_.flr_capable) flr = true;
    cfg_[o] = uint8_t((cfg_[o] & ~wmask_[o]) | (b & wmask_[o]));
  }
  if (flr) {  // Initiate FLR reads 0 and the rest of this write is moot
    reset(Reset::FunctionLevel);
    notify(Change::FunctionLevelReset);
    return;
  }

  // D1 and D2 are not supported: a write asking for them changes nothing.
  if (power_state() == 1 || power_state() == 2) cfg_[kPmCap + 4] = uint8_t((cfg_[kPmCap + 4] & ~3u) | pm0);
  // Multiple Message Enable never exceeds Multiple Message Capable.
  uint8_t& msictl = cfg_[kMsiCap + 2];
  unsigned mmc = (msictl >> 1) & 7, mme = (msictl >> 4) & 7;
  if (mme > mmc) msictl = uint8_t((msictl & ~0x70u) | mmc << 4);
  // MPS never exceeds what is supported; MRRS codes above 4096 B are reserved.
  uint16_t devctl = get16(kPcieCap + kDevCtl);
  unsigned mps = (devctl >> 5) & 7, mps_max = log2u(shape_.max_payload_supported / 128), mrrs = (devctl >> 12) & 7;
  if (mps > mps_max) devctl = uint16_t((devctl & ~kDevCtlMps) | mps_max << 5);
  if (mrrs > 5) devctl = uint16_t((devctl & ~kDevCtlMrrs) | 5 << 12);
  set16(kPcieCap + kDevCtl, devctl);

  if (command() != cmd0) notify(Change::Command);
  if (!std::equal(msi0.begin(), msi0.end(), cfg_.begin() + kMsiCap + 2)) notify(Change::Msi);
  if (get16(kMsixCap + 2) != msix0) notify(Change::MsiX);
  if (power_state() != pm0) notify(Change::PowerState);
}

uint64_t PciConfigSpace::bar0_address() const {
  return (uint64_t(get32(kBar1)) << 32 | get32(kBar0)) & ~uint64_t(0xF);
}

void PciConfigSpace::set_intx_status(bool level) {
  cfg_[kStatus] = uint8_t(level ? cfg_[kStatus] | 0x08 : cfg_[kStatus] & ~0x08);
}

bool PciConfigSpace::msi_vector_masked(unsigned v) const {
  return v >= shape_.msi_vectors || ((get32(kMsiCap + 16) >> v) & 1);
}

void PciConfigSpace::set_msi_pending(unsigned v, bool pending) {
  if (!shape_.msi || v >= shape_.msi_vectors) return;  // no capability: nowhere to show it
  uint32_t bits = get32(kMsiCap + 20);
  bits = pending ? bits | 1u << v : bits & ~(1u << v);
  put32(kMsiCap + 20, bits);  // read-only to the host
}

bool PciConfigSpace::msi_pending(unsigned v) const {
  return shape_.msi && v < shape_.msi_vectors && ((get32(kMsiCap + 20) >> v) & 1);
}

}  // namespace vp::pcie
