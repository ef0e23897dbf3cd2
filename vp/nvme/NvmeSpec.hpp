// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// NVM Express base specification (1.4) definitions shared by whoever speaks
// NVMe: the controller model and the modeled host driver, as both a device
// and Linux's driver include the same protocol header.
#include <cstdint>
#include <cstring>

namespace vp::nvme {

// Controller registers (BAR0 offsets).
enum Reg : uint32_t {
  CAP = 0x00, VS = 0x08, INTMS = 0x0C, INTMC = 0x10, CC = 0x14, CSTS = 0x1C, NSSR = 0x20,
  AQA = 0x24, ASQ = 0x28, ACQ = 0x30, DOORBELL_BASE = 0x1000,
};
// Where this device's MSI-X table and PBA live inside BAR0 (what its MSI-X
// capability would advertise), and the size of BAR0.
constexpr uint32_t MSIX_TABLE = 0x10000, MSIX_PBA = 0x18000, BAR0_SIZE = 0x20000;
constexpr uint32_t MSIX_ENTRY_SIZE = 16, MSIX_MAX_VECTORS = 1024;

constexpr uint32_t CC_EN = 1u << 0;
constexpr uint32_t CSTS_RDY = 1u << 0, CSTS_CFS = 1u << 1;
// CAP.AMS bits: weighted round robin with urgent class, vendor specific.
constexpr uint64_t CAP_AMS_WRR = 1ull << 17, CAP_AMS_VENDOR = 1ull << 18;
// CC.AMS values; the vendor-specific one selects FlashShare's priority SQ.
enum Ams : uint32_t { AMS_RR = 0, AMS_WRR = 1, AMS_VENDOR = 7 };
// CC.SHN and CSTS.SHST values.
enum Shst : uint32_t { SHST_NORMAL = 0, SHST_OCCURRING = 1, SHST_COMPLETE = 2 };
inline uint32_t csts_shst(uint32_t csts) { return (csts >> 2) & 3; }
inline uint32_t cc_css(uint32_t cc) { return (cc >> 4) & 7; }
inline uint32_t cc_mps(uint32_t cc) { return (cc >> 7) & 0xF; }
inline uint32_t cc_ams(uint32_t cc) { return (cc >> 11) & 7; }
inline uint32_t cc_shn(uint32_t cc) { return (cc >> 14) & 3; }
inline uint32_t cc_iosqes(uint32_t cc) { return (cc >> 16) & 0xF; }
inline uint32_t cc_iocqes(uint32_t cc) { return (cc >> 20) & 0xF; }

inline uint32_t sq_tail_doorbell(uint16_t qid, uint32_t dstrd) { return DOORBELL_BASE + (2u * qid) * (4u << dstrd); }
inline uint32_t cq_head_doorbell(uint16_t qid, uint32_t dstrd) {
  return DOORBELL_BASE + (2u * qid + 1) * (4u << dstrd);
}

enum AdminOpcode : uint8_t {
  ADMIN_DELETE_SQ = 0x00, ADMIN_CREATE_SQ = 0x01, ADMIN_GET_LOG_PAGE = 0x02, ADMIN_DELETE_CQ = 0x04,
  ADMIN_CREATE_CQ = 0x05, ADMIN_IDENTIFY = 0x06, ADMIN_ABORT = 0x08, ADMIN_SET_FEATURES = 0x09,
  ADMIN_GET_FEATURES = 0x0A, ADMIN_ASYNC_EVENT = 0x0C, ADMIN_KEEP_ALIVE = 0x18, ADMIN_FORMAT_NVM = 0x80,
};
enum IoOpcode : uint8_t {
  IO_FLUSH = 0x00, IO_WRITE = 0x01, IO_READ = 0x02, IO_COMPARE = 0x05, IO_WRITE_ZEROES = 0x08, IO_DSM = 0x09,
};
// Identify Controller ONCS bits and the Dataset Management attribute the controller acts on.
constexpr uint16_t ONCS_COMPARE = 1u << 0, ONCS_DSM = 1u << 2, ONCS_WRITE_ZEROES = 1u << 3;
constexpr uint32_t DSM_AD = 1u << 2;  // CDW11: deallocate the ranges
constexpr uint32_t DSM_RANGE_SIZE = 16;  // context attributes, length in LBAs, starting LBA
enum LogId : uint8_t { LOG_ERROR = 0x01, LOG_SMART = 0x02, LOG_FW_SLOT = 0x03 };
enum FeatureId : uint8_t {
  FEAT_ARBITRATION = 0x01, FEAT_POWER_MGMT = 0x02, FEAT_VOLATILE_WC = 0x06, FEAT_NUM_QUEUES = 0x07,
  FEAT_IRQ_COALESCE = 0x08, FEAT_IRQ_CONFIG = 0x09, FEAT_ASYNC_EVENT = 0x0B, FEAT_KEEP_ALIVE = 0x0F,
};
// Get Features CDW10.SEL and the capability bits it returns for SEL = 3.
enum FeatureSel : uint8_t { SEL_CURRENT = 0, SEL_DEFAULT = 1, SEL_SAVED = 2, SEL_CAPABILITIES = 3 };
constexpr uint32_t FEAT_CAP_CHANGEABLE = 1u << 2;
constexpr uint32_t SET_FEATURES_SV = 1u << 31;
enum IdentifyCns : uint8_t {
  CNS_NAMESPACE = 0x00, CNS_CONTROLLER = 0x01, CNS_ACTIVE_NS_LIST = 0x02, CNS_NS_DESCRIPTORS = 0x03,
};
// Namespace identification descriptor types.
constexpr uint8_t NIDT_NGUID = 0x02;
// Asynchronous events: CQE DW0 = type | info << 8 | log page << 16.
enum AerType : uint8_t { AER_ERROR = 0, AER_SMART = 1, AER_NOTICE = 2 };
enum AerErrorInfo : uint8_t { AER_INVALID_DOORBELL = 0x00, AER_INVALID_DOORBELL_VALUE = 0x01 };
// Read/Write CDW12 bit 30: force unit access.
constexpr uint32_t RW_FUA = 1u << 30;
// Hints a patched host driver puts in Read/Write CDW2 (reserved in the
// specification): bits 7:0 FlashShare's workload attribute; bit 8 marks a
// FastDrain page-victimization write, whose CDW3 holds the dirty pages of
// the victimization event (saturating; 0 on untagged commands).
constexpr uint32_t CDW2_ATTR_MASK = 0xFF, CDW2_VICTIM = 1u << 8;
// FastDrain's write-buffer status in a completion (sq_head, or DW0 bits
// 15:0): bits 1:0 the state, bits 15:8 the occupancy in percent.
enum BufferState : uint16_t { BUF_NO_REPORT = 0, BUF_DRAINED = 1, BUF_BETWEEN = 2, BUF_FULL = 3 };
inline uint16_t buffer_status(BufferState s, uint8_t percent) {
  return static_cast<uint16_t>(s | (uint32_t(percent) << 8));
}
inline BufferState buffer_state(uint16_t v) { return static_cast<BufferState>(v & 3); }
inline uint8_t buffer_occupancy(uint16_t v) { return static_cast<uint8_t>(v >> 8); }
// Format NVM CDW10 fields.
inline uint32_t fmt_lbaf(uint32_t cdw10) { return cdw10 & 0xF; }
inline uint32_t fmt_mset(uint32_t cdw10) { return (cdw10 >> 4) & 1; }
inline uint32_t fmt_pi(uint32_t cdw10) { return (cdw10 >> 5) & 7; }
inline uint32_t fmt_ses(uint32_t cdw10) { return (cdw10 >> 9) & 7; }

// Status: status code type (SCT) and status code (SC).
enum Sct : uint8_t { SCT_GENERIC = 0, SCT_COMMAND_SPECIFIC = 1, SCT_MEDIA = 2 };
enum GenericStatus : uint8_t {
  SC_SUCCESS = 0x00, SC_INVALID_OPCODE = 0x01, SC_INVALID_FIELD = 0x02, SC_CID_CONFLICT = 0x03,
  SC_DATA_TRANSFER_ERROR = 0x04, SC_INTERNAL = 0x06, SC_INVALID_NAMESPACE = 0x0B,
  SC_ABORT_REQUESTED = 0x07, SC_ABORTED_SQ_DELETION = 0x08, SC_COMMAND_SEQUENCE = 0x0C,
  SC_PRP_OFFSET_INVALID = 0x13, SC_KEEP_ALIVE_EXPIRED = 0x18, SC_LBA_OUT_OF_RANGE = 0x80,
  SC_CAPACITY_EXCEEDED = 0x81,
};
enum MediaStatus : uint8_t { SC_COMPARE_FAILURE = 0x85 };
enum CommandSpecificStatus : uint8_t {
  SC_CQ_INVALID = 0x00, SC_INVALID_QID = 0x01, SC_INVALID_QSIZE = 0x02, SC_ABORT_LIMIT = 0x03,
  SC_AER_LIMIT = 0x05, SC_INVALID_VECTOR = 0x08, SC_INVALID_LOG_PAGE = 0x09, SC_INVALID_FORMAT = 0x0A,
  SC_INVALID_QUEUE_DELETION = 0x0C, SC_FEATURE_NOT_SAVEABLE = 0x0D,
};
inline uint16_t status(uint8_t sct, uint8_t sc, bool dnr = false) {
  return static_cast<uint16_t>(sc | (sct << 8) | (dnr ? 1u << 14 : 0));
}
inline uint8_t status_sc(uint16_t st) { return st & 0xFF; }
inline uint8_t status_sct(uint16_t st) { return (st >> 8) & 7; }

// 64-byte submission queue entry.
struct Sqe {
  uint32_t cdw0;   // opcode 7:0, fuse 9:8, psdt 15:14, cid 31:16
  uint32_t nsid;
  uint32_t cdw2, cdw3;
  uint64_t mptr;
  uint64_t prp1, prp2;
  uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;

  uint8_t opcode() const { return cdw0 & 0xFF; }
  uint16_t cid() const { return static_cast<uint16_t>(cdw0 >> 16); }
  uint8_t psdt() const { return (cdw0 >> 14) & 3; }
  uint64_t slba() const { return cdw10 | (uint64_t(cdw11) << 32); }
  uint32_t nlb() const { return (cdw12 & 0xFFFF) + 1; }  // the field is 0-based
  uint8_t attr() const { return static_cast<uint8_t>(cdw2 & CDW2_ATTR_MASK); }
  bool victim() const { return opcode() == IO_WRITE && (cdw2 & CDW2_VICTIM); }  // only writes victimize pages
  uint32_t victim_pages() const { return victim() ? cdw3 : 0; }
  static Sqe make(uint8_t opcode, uint16_t cid) {
    Sqe s;
    std::memset(&s, 0, sizeof s);
    s.cdw0 = opcode | (uint32_t(cid) << 16);
    return s;
  }
};
static_assert(sizeof(Sqe) == 64, "SQE is 64 bytes");

// 16-byte completion queue entry.
struct Cqe {
  uint32_t dw0, dw1;
  uint16_t sq_head, sq_id;
  uint16_t cid;
  uint16_t status_phase;  // bit 0: phase tag; 15:1: status field

  bool phase() const { return status_phase & 1; }
  uint16_t status() const { return status_phase >> 1; }
};
static_assert(sizeof(Cqe) == 16, "CQE is 16 bytes");

constexpr uint32_t IDENTIFY_SIZE = 4096;
// Offsets into the Identify Controller and Identify Namespace data structures.
namespace idctl {
constexpr uint32_t VID = 0, SSVID = 2, SN = 4, MN = 24, FR = 64, RAB = 72, IEEE = 73, MDTS = 77, CNTLID = 78,
                   VER = 80, CNTRLTYPE = 111, OACS = 256, ACL = 258, AERL = 259, FRMW = 260, LPA = 261,
                   ELPE = 262, NPSS = 263, KAS = 320, SQES = 512, CQES = 513, NN = 516, ONCS = 520, FNA = 524,
                   VWC = 525, SUBNQN = 768, PSD0 = 2048;
constexpr uint16_t OACS_FORMAT = 1u << 1;
}
constexpr uint32_t LOG_PAGE_SIZE = 512, ERROR_ENTRY_SIZE = 64, ERROR_LOG_ENTRIES = 16;
// Offsets into the SMART / Health Information log; counters are 128-bit little endian.
namespace smart {
constexpr uint32_t CRITICAL_WARNING = 0, TEMPERATURE = 1, AVAILABLE_SPARE = 3, SPARE_THRESHOLD = 4,
                   PERCENT_USED = 5, DATA_UNITS_READ = 32, DATA_UNITS_WRITTEN = 48, HOST_READS = 64,
                   HOST_WRITES = 80, BUSY_MINUTES = 96, POWER_CYCLES = 112, POWER_ON_HOURS = 128,
                   UNSAFE_SHUTDOWNS = 144, MEDIA_ERRORS = 160, ERROR_ENTRIES = 176;
}
namespace idns {
constexpr uint32_t NSZE = 0, NCAP = 8, NUSE = 16, NLBAF = 25, FLBAS = 26, NGUID = 104, LBAF0 = 128;
}

}  // namespace vp::nvme
