// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The zssd platform with round figures for hand arithmetic (one core, round
// host costs, PCIe 3.0 x4, Z-NAND timing, SSD DRAM), and the times worked
// out from them that the latency tests of both platforms add up.
#include "tests/TestSupport.hpp"

namespace vp::test {

inline const Sets kIdle = {
    {"host.cores", "1"},
    {"host.core.submit_cost", "1us"},
    {"host.core.isr_cost", "2us"},
    {"host.core.complete_cost", "0.5us"},
    {"host.core.ctx_switch_cost", "3us"},
    {"host.dram.latency", "60ns"},
    {"pcie.gen", "3"},
    {"pcie.lanes", "4"},
    {"pcie.tlp_overhead", "24B"},
    {"pcie.max_payload", "256B"},
    {"pcie.rc_latency", "150ns"},   // one way: 150 + 150 = 300 ns with no switch
    {"pcie.link_latency", "150ns"},
    {"pcie.switches", "0"},
    {"ssd.fw.clock", "800MHz"},
    {"ssd.fw.cost.parse", "400"},
    {"ssd.fw.cost.trans", "160"},
    {"ssd.fw.cost.compose", "80"},
    {"ssd.flash.page_size", "2KiB"},
    {"ssd.flash.t_cmd", "35ns"},
    {"ssd.flash.t_read", "3us"},
    {"ssd.flash.bus_rate", "800MT/s"},
    {"ssd.flash.bus_width", "8"},
    // SSD DRAM with round figures: 32 bits at 1000 MT/s = 4 B/ns, transfers
    // stretched by 1 / (1 - 0.2) for refresh; one bank of 8 KiB rows, so a
    // row is hit only by the access right after one to the same row, and
    // with t_rp = 0 a miss costs the same whether the bank was closed or
    // open: t_rcd + t_cl = 25 ns. The staging buffers (256 slots x 128 KiB
    // = 32 MiB) come first, the map right after them.
    {"ssd.dram.bus_width", "32"},
    {"ssd.dram.data_rate", "1000MT/s"},
    {"ssd.dram.banks", "1"},
    {"ssd.dram.row_size", "8KiB"},
    {"ssd.dram.t_rcd", "10ns"},
    {"ssd.dram.t_cl", "15ns"},
    {"ssd.dram.t_rp", "0ns"},
    {"ssd.dram.refresh_overhead", "0.2"},
};

// kIdle for vp-drive: without the keys of host parts it does not have (the cores' costs).
inline Sets drive_keys(const Sets& sets) {
  Sets kept;
  for (const auto& kv : sets)
    if (platform::drive_params().find(kv.first)) kept.push_back(kv);
  return kept;
}


// PCIe 3.0 x4 after 128b/130b: 8e9 * 4 * 128/130 / 8 = 3.938461538e9 B/s.
// Wire time of a TLP carrying n payload bytes plus 24 bytes of overhead:
inline constexpr double kLinkBps = 8e9 * 4 * 128.0 / 130.0 / 8.0;
inline double wire_ns(double bytes) { return bytes / kLinkBps * 1e9; }

// SSD DRAM time of the two map entries of a 4 KiB request (two 2 KiB pages,
// logical pages 2k and 2k+1: 8 adjacent bytes, one row), the first a miss
// (the last access was to another row), the second a hit, each a 4-byte
// transfer of 1 ns / 0.8 = 1.25 ns: (25 + 1.25) + (15 + 1.25) = 42.5 ns.
// The second page's flash command goes out that much after the firmware.
inline constexpr double kMapNs = 42.5;
// Staging 4 KiB in a slot's buffer (one row): 4096 / 4 / 0.8 = 1280 ns of
// transfer; the first access to the row misses (25 ns), the next hits (15 ns).
inline constexpr double kStageMissNs = 25 + 1280, kStageHitNs = 15 + 1280;

}  // namespace vp::test
