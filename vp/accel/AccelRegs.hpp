// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The I/O-stack accelerator's BAR0 layout (FlashShare OSDI'18 sec. 4.3,
// Figures 7 and 10): the registers its driver writes per bio, the
// completion FIFO it reads, each queue's configuration, and the windows
// holding each queue's SQ, CQ and PRP lists, which the SSD reaches peer to
// peer (the paper's BAR1; one BAR here, above the registers).
#include <cstdint>

namespace vp::accel::regs {

// Its PCI identity: a processing accelerator (class 12h) under Xilinx's
// vendor id, which the guest driver (sw/guest/xler) probes for.
constexpr uint16_t VENDOR_ID = 0x10ee, DEVICE_ID = 0x9038;
constexpr uint32_t CLASS_CODE = 0x120000;

// Per bio, latched by a write to BIO_GO (bio->bi_opf, bi_iter.bi_sector,
// bi_iter.bi_size, bi_io_vec, bi_vcnt, and the driver's tag for the bio).
constexpr uint32_t BIO_OP = 0x000;     // 0 read, 1 write
constexpr uint32_t BIO_SLBA = 0x008;   // first LBA
constexpr uint32_t BIO_BYTES = 0x010;  // bytes, a whole number of LBAs
constexpr uint32_t BIO_SEGS = 0x018;   // host address of the segment list: nseg x {u64 addr, u32 len, u32 0}
constexpr uint32_t SEG_BYTES = 16;     // one segment of that list
constexpr uint32_t BIO_NSEG = 0x020;   // segments (bi_vcnt)
constexpr uint32_t BIO_TAG = 0x028;    // handed back in DONE
constexpr uint32_t BIO_QUEUE = 0x030;  // which queue (the submitting core's)
constexpr uint32_t BIO_GO = 0x038;     // any write: the bio goes in
// A read pops the oldest completed bio of any queue: tag in bits 31:0, NVMe
// status (status code type and code, without the phase bit) in 46:32, the
// SQ slot of the command that carried it (its NVMe command id) in 61:47,
// bit 62 set when more completed bios wait behind it, bit 63 set; 0 when
// none is waiting. DONE_Q(q) does the same for queue q's bios alone (a
// queue's interrupt handler reads its own).
constexpr uint32_t DONE = 0x040;
constexpr uint64_t DONE_VALID = 1ull << 63, DONE_MORE = 1ull << 62;
constexpr uint32_t DONE_Q_BASE = 0x200;
constexpr uint32_t DONE_Q(uint32_t q) { return DONE_Q_BASE + 8 * q; }
constexpr uint32_t done_tag(uint64_t v) { return static_cast<uint32_t>(v); }
constexpr uint16_t done_status(uint64_t v) { return static_cast<uint16_t>((v >> 32) & 0x7FFF); }
constexpr uint16_t done_slot(uint64_t v) { return static_cast<uint16_t>((v >> 47) & 0x7FFF); }
constexpr uint32_t IN_FLIGHT = 0x048;  // bios accepted and not yet completed (read only)

// Queue configuration, for the queue QSEL selects.
constexpr uint32_t QSEL = 0x100;
constexpr uint32_t Q_SQ_DOORBELL = 0x108;  // bus address of the SSD's SQ tail doorbell for this queue
constexpr uint32_t Q_CQ_DOORBELL = 0x110;  // bus address of the SSD's CQ head doorbell
constexpr uint32_t Q_ENTRIES = 0x118;      // entries of the SQ and of the CQ (2..kMaxEntries)
constexpr uint32_t Q_VECTOR = 0x120;       // MSI-X vector of this queue's bio completions (Q_NO_VECTOR: none)
constexpr uint64_t Q_NO_VECTOR = 0xFFFF;    // the driver polls DONE_Q instead
constexpr uint32_t Q_ENABLE = 0x128;       // 1: on (tail, head and phase from zero), 0: off

// Namespace geometry (from the SSD's Identify).
constexpr uint32_t LBA_SHIFT = 0x180;     // log2 of the LBA size
constexpr uint32_t MAX_TRANSFER = 0x188;  // the SSD's largest transfer in bytes (MDTS)
constexpr uint32_t NSID = 0x190;

// Queue q's window: its SQ at queue_window(q), its CQ at + CQ_OFFSET, the
// PRP list of SQ slot s at + PRP_OFFSET + s * PRP_SLOT.
constexpr uint32_t kMaxQueues = 15, kMaxEntries = 1024, kPage = 4096;
constexpr uint64_t QUEUE_WINDOW = 0x100000, QUEUE_STRIDE = 0x100000;
constexpr uint64_t CQ_OFFSET = 0x10000, PRP_OFFSET = 0x20000, PRP_SLOT = 512;  // 64 entries, never across a page
constexpr uint32_t kMaxPrpEntries = PRP_SLOT / 8;
constexpr uint32_t kMaxSegs = kMaxPrpEntries + 1;  // a bio's segments: a first page piece, then whole pages
constexpr uint64_t BAR0_SIZE = 16ull << 20;
constexpr uint64_t queue_window(uint32_t q) { return QUEUE_WINDOW + uint64_t(q) * QUEUE_STRIDE; }

}  // namespace vp::accel::regs
