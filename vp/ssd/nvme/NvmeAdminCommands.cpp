// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/nvme/NvmeAdminCommands.hpp"

#include "vp/ssd/nvme/NvmeIoCommands.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

namespace vp::ssd {

using namespace vp::nvme;

namespace {
constexpr uint32_t kHostPage = 4096;  // CAP.MPSMIN = MPSMAX = 0

void put16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }
void put32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
void put64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
void put128(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }  // the high half stays zero
void put_str(uint8_t* p, const std::string& s, size_t n) {  // space padded, as Identify wants
  std::memset(p, ' ', n);
  std::memcpy(p, s.data(), std::min(n, s.size()));
}
}  // namespace

void NvmeAdminCommands::execute(uint32_t s) {
  Slot& sl = c_.slots_[s];
  if (sl.generation != c_.generation_) return c_.release(s);
  const Sqe& c = sl.sqe;
  Tick delay = 0;
  uint16_t st = 0;
  if ((c.cdw0 >> 8 & 3) != 0 || c.psdt() != 0) return c_.complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  switch (c.opcode()) {
    case ADMIN_IDENTIFY: st = identify(sl, delay); break;
    case ADMIN_SET_FEATURES:
    case ADMIN_GET_FEATURES: st = features(sl); break;
    case ADMIN_CREATE_CQ: st = create_cq(c); break;
    case ADMIN_CREATE_SQ: st = create_sq(c); break;
    case ADMIN_DELETE_SQ: st = delete_sq(c); break;
    case ADMIN_DELETE_CQ: st = delete_cq(c); break;
    case ADMIN_GET_LOG_PAGE: st = get_log_page(sl, delay); break;
    case ADMIN_ABORT: st = abort(sl); break;
    case ADMIN_KEEP_ALIVE: c_.keep_alive(); break;
    case ADMIN_FORMAT_NVM: return format(s);
    case ADMIN_ASYNC_EVENT:
      if (c_.aer_slots_.size() >= NvmeController::kAerLimit) {
        st = status(SCT_COMMAND_SPECIFIC, SC_AER_LIMIT);
        break;
      }
      c_.aer_slots_.push_back(s);  // held until an event occurs
      return c_.deliver_events();
    default: st = status(SCT_GENERIC, SC_INVALID_OPCODE, true); break;
  }
  c_.complete(s, st, delay);
}

// Abort: a command still waiting in its SQ cannot be reached without
// fetching it, and one in flight is past its point of no return, so only an
// outstanding Asynchronous Event Request is aborted; otherwise DW0 bit 0
// says "not aborted", which the specification allows.
uint16_t NvmeAdminCommands::abort(Slot& sl) {
  const Sqe& c = sl.sqe;
  uint16_t sqid = c.cdw10 & 0xFFFF, cid = static_cast<uint16_t>(c.cdw10 >> 16);
  sl.dw0 = 1;
  if (sqid != 0) return 0;
  for (auto it = c_.aer_slots_.begin(); it != c_.aer_slots_.end(); ++it) {
    if (c_.slots_[*it].sqe.cid() != cid) continue;
    uint32_t victim = *it;
    c_.aer_slots_.erase(it);
    c_.complete(victim, status(SCT_GENERIC, SC_ABORT_REQUESTED));
    sl.dw0 = 0;
    break;
  }
  return 0;
}

// Format NVM: one LBA format, no metadata or protection information, no
// cryptographic erase; the user data is deallocated (reads return zeros).
void NvmeAdminCommands::format(uint32_t s) {
  Slot& sl = c_.slots_[s];
  const Sqe& c = sl.sqe;
  if (c.nsid != 1 && c.nsid != 0xFFFFFFFFu) return c_.complete(s, status(SCT_GENERIC, SC_INVALID_NAMESPACE, true));
  if (fmt_lbaf(c.cdw10) != 0 || fmt_mset(c.cdw10) || fmt_pi(c.cdw10))
    return c_.complete(s, status(SCT_COMMAND_SPECIFIC, SC_INVALID_FORMAT, true));
  if (fmt_ses(c.cdw10) > 1) return c_.complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  sl.steps.clear();
  sl.step = 0;
  const uint64_t piece = (uint64_t(1) << 30) / c_.lba_size_ * c_.lba_size_, end = c_.namespace_lbas() * c_.lba_size_;
  for (uint64_t off = 0; off < end; off += piece)
    sl.steps.push_back({IoOp::Trim, off, static_cast<uint32_t>(std::min(piece, end - off))});
  sl.compare = false;
  sl.hc.sqid = 0;
  sl.hc.fua = false;
  if (sl.steps.empty()) return c_.complete(s, 0);
  c_.io_->run_step(s);
}

uint16_t NvmeAdminCommands::identify(Slot& sl, Tick& delay) {
  const Sqe& c = sl.sqe;
  uint8_t cns = c.cdw10 & 0xFF;
  if (sl.buf.size() < IDENTIFY_SIZE) sl.buf.resize(IDENTIFY_SIZE);
  uint8_t* d = sl.buf.data();
  std::memset(d, 0, IDENTIFY_SIZE);
  switch (cns) {
    case CNS_CONTROLLER: {
      // The ids in the function's configuration header.
      put16(d + idctl::VID, static_cast<uint16_t>(c_.pci_.read(0x00, 2)));
      put16(d + idctl::SSVID, static_cast<uint16_t>(c_.pci_.read(0x2C, 2)));
      put_str(d + idctl::SN, c_.serial_, 20);
      put_str(d + idctl::MN, c_.model_, 40);
      put_str(d + idctl::FR, "0.1", 8);
      d[idctl::RAB] = static_cast<uint8_t>(c_.cfg_.get_int("arbitration_burst"));
      d[idctl::MDTS] = static_cast<uint8_t>(c_.mdts_);
      put16(d + idctl::CNTLID, 1);
      put32(d + idctl::VER, 0x00010400);
      d[idctl::CNTRLTYPE] = 1;  // I/O controller
      put16(d + idctl::OACS, idctl::OACS_FORMAT);
      d[idctl::ACL] = NvmeController::kAbortLimit - 1;
      d[idctl::AERL] = NvmeController::kAerLimit - 1;
      d[idctl::FRMW] = 1 << 1 | 1;  // one firmware slot, read only
      d[idctl::LPA] = 1 << 2;       // Get Log Page takes offsets and 32-bit lengths
      d[idctl::ELPE] = ERROR_LOG_ENTRIES - 1;
      d[idctl::NPSS] = 0;           // one power state
      put16(d + idctl::KAS, NvmeController::kKasMs / 100);
      d[idctl::SQES] = 0x66;  // required and maximum entry size: 64 bytes
      d[idctl::CQES] = 0x44;  // 16 bytes
      put32(d + idctl::NN, 1);
      put16(d + idctl::ONCS, ONCS_COMPARE | ONCS_DSM | ONCS_WRITE_ZEROES);
      d[idctl::FNA] = 0;
      d[idctl::VWC] = c_.fw->volatile_write_cache() ? 1 : 0;
      put_str(d + idctl::SUBNQN, "nqn.2026-11.io.flashvp:nvme:" + c_.serial_, 256);
      std::memset(d + idctl::SUBNQN + 28 + c_.serial_.size(), 0, 256 - std::min<size_t>(256, 28 + c_.serial_.size()));
      put16(d + idctl::PSD0, NvmeController::kMaxPowerCw);  // power state 0: maximum power in centiwatts
      break;
    }
    case CNS_NAMESPACE: {
      if (c.nsid != 1) return status(SCT_GENERIC, SC_INVALID_NAMESPACE, true);
      uint64_t n = c_.namespace_lbas();
      put64(d + idns::NSZE, n);
      put64(d + idns::NCAP, n);
      put64(d + idns::NUSE, n);
      d[idns::NLBAF] = 0;  // one format
      d[idns::FLBAS] = 0;
      std::memcpy(d + idns::NGUID, nguid().data(), 16);
      uint32_t lbads = 0;
      while ((1u << lbads) < c_.lba_size_) ++lbads;
      put32(d + idns::LBAF0, lbads << 16);
      break;
    }
    case CNS_ACTIVE_NS_LIST:
      if (c.nsid >= 0xFFFFFFFEu) return status(SCT_GENERIC, SC_INVALID_NAMESPACE, true);
      if (c.nsid < 1) put32(d, 1);  // namespaces with an id above nsid
      break;
    case CNS_NS_DESCRIPTORS:
      if (c.nsid != 1) return status(SCT_GENERIC, SC_INVALID_NAMESPACE, true);
      d[0] = NIDT_NGUID;
      d[1] = 16;
      std::memcpy(d + 4, nguid().data(), 16);
      break;
    default: return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  }
  return send_to_host(sl, IDENTIFY_SIZE, delay);
}

// A namespace GUID derived from the serial number: stable across runs.
std::array<uint8_t, 16> NvmeAdminCommands::nguid() const {
  std::array<uint8_t, 16> g{};
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the serial
  for (char ch : c_.serial_) h = (h ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
  std::memcpy(g.data(), &h, 8);
  h = (h ^ 1) * 1099511628211ull;
  std::memcpy(g.data() + 8, &h, 8);
  return g;
}

uint16_t NvmeAdminCommands::send_to_host(Slot& sl, uint32_t bytes, Tick& delay) {
  uint16_t st = c_.walk_prps(sl, bytes, delay);
  if (st) return st;
  if (!c_.move_data(sl, true, bytes, delay)) return status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR);
  return 0;
}

// Get Log Page: Error Information (the last 16 errors, newest first),
// SMART / Health from the controller's counters and the firmware's media
// wear, Firmware Slot. Offsets and 32-bit lengths are honoured (LPA bit 2).
uint16_t NvmeAdminCommands::get_log_page(Slot& sl, Tick& delay) {
  const Sqe& c = sl.sqe;
  uint8_t lid = c.cdw10 & 0xFF;
  uint64_t dwords = ((uint64_t(c.cdw11 & 0xFFFF) << 16) | (c.cdw10 >> 16)) + 1;
  uint64_t offset = c.cdw12 | (uint64_t(c.cdw13) << 32), bytes = dwords * 4;
  if (bytes > (uint64_t(kHostPage) << c_.mdts_) || (offset & 3)) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  std::vector<uint8_t> log;
  switch (lid) {
    case LOG_ERROR: {
      log.assign(ERROR_LOG_ENTRIES * ERROR_ENTRY_SIZE, 0);
      for (size_t i = 0; i < c_.error_log_.size(); ++i) {
        const ErrorEntry& e = c_.error_log_[i];
        uint8_t* d = log.data() + i * ERROR_ENTRY_SIZE;
        std::memcpy(d, &e.count, 8);
        put16(d + 8, e.sqid);
        put16(d + 10, e.cid);
        put16(d + 12, static_cast<uint16_t>(e.status << 1));
        put16(d + 14, 0xFFFF);  // parameter error location: not reported
        std::memcpy(d + 16, &e.lba, 8);
        put32(d + 24, e.nsid);
      }
      break;
    }
    case LOG_SMART: {
      if (c.nsid != 0 && c.nsid != 1 && c.nsid != 0xFFFFFFFFu) return status(SCT_GENERIC, SC_INVALID_NAMESPACE, true);
      log.assign(LOG_PAGE_SIZE, 0);
      uint8_t* d = log.data();
      MediaHealth h = c_.fw->health();
      // Temperature is not modeled: 0 (no reading). No spare is ever lost: bad blocks are not modeled.
      d[smart::AVAILABLE_SPARE] = 100;
      d[smart::SPARE_THRESHOLD] = 10;
      d[smart::PERCENT_USED] = static_cast<uint8_t>(std::min(255.0, std::floor(h.mean_erase_count * 100 / h.endurance)));
      put128(d + smart::DATA_UNITS_READ, (c_.st_.bytes_read.value + 511999) / 512000);  // thousands of 512-byte units
      put128(d + smart::DATA_UNITS_WRITTEN, (c_.st_.bytes_written.value + 511999) / 512000);
      put128(d + smart::HOST_READS, c_.st_.read_cmds.value);
      put128(d + smart::HOST_WRITES, c_.st_.write_cmds.value);
      Tick busy = c_.busy_ps_ + (c_.io_outstanding_ ? now_ps() - c_.busy_since_ : 0);
      put128(d + smart::BUSY_MINUTES, busy / (60 * SEC));
      put128(d + smart::POWER_CYCLES, 1 + h.unsafe_shutdowns);
      put128(d + smart::POWER_ON_HOURS, now_ps() / (3600 * SEC));
      put128(d + smart::UNSAFE_SHUTDOWNS, h.unsafe_shutdowns);
      put128(d + smart::ERROR_ENTRIES, c_.st_.errors.value);
      break;
    }
    case LOG_FW_SLOT:
      log.assign(LOG_PAGE_SIZE, 0);
      log[0] = 1;  // slot 1 active
      put_str(log.data() + 8, "0.1", 8);
      break;
    default: return status(SCT_COMMAND_SPECIFIC, SC_INVALID_LOG_PAGE, true);
  }
  if (offset >= log.size()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  bool retain = c.cdw10 & (1u << 15);  // RAE: keep the asynchronous event masked
  if (lid == LOG_ERROR && !retain && c_.error_events_masked_) {
    c_.error_events_masked_ = false;
    c_.eq_.after(0, [this] { c_.deliver_events(); });  // after this command's own completion
  }
  if (sl.buf.size() < bytes) sl.buf.resize(bytes);
  std::memset(sl.buf.data(), 0, bytes);  // past the end of the log: zeros
  std::memcpy(sl.buf.data(), log.data() + offset, std::min<uint64_t>(bytes, log.size() - offset));
  return send_to_host(sl, static_cast<uint32_t>(bytes), delay);
}

// Get / Set Features. No feature is saveable: Set with SV fails, Get of the
// saved value returns the default.
uint16_t NvmeAdminCommands::features(Slot& sl) {
  const Sqe& c = sl.sqe;
  uint8_t fid = c.cdw10 & 0xFF;
  if (c.opcode() == ADMIN_GET_FEATURES) {
    uint8_t sel = (c.cdw10 >> 8) & 7;
    if (sel > SEL_CAPABILITIES) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
    return feature_value(fid, sel, c.cdw11, sl.dw0);
  }
  if (c.cdw10 & SET_FEATURES_SV) return status(SCT_COMMAND_SPECIFIC, SC_FEATURE_NOT_SAVEABLE, true);
  uint32_t v = c.cdw11;
  switch (fid) {
    case FEAT_ARBITRATION:
      c_.feat_.arbitration = v;
      if (c_.csts_ & CSTS_RDY) c_.configure_arbiter();
      break;
    case FEAT_POWER_MGMT:
      if ((v & 0x1F) != 0) return status(SCT_GENERIC, SC_INVALID_FIELD, true);  // NPSS = 0: only PS0
      c_.feat_.power = v & 0xFF;
      break;
    case FEAT_VOLATILE_WC:
      if (!c_.fw->volatile_write_cache()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      c_.feat_.write_cache = v & 1;
      c_.fw->set_write_cache(c_.feat_.write_cache);
      break;
    case FEAT_NUM_QUEUES: {
      uint32_t nsqr = v & 0xFFFF, ncqr = v >> 16;
      if (nsqr == 0xFFFF || ncqr == 0xFFFF) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      for (uint32_t q = 1; q <= c_.max_queues_; ++q)  // only before any I/O queue exists
        if (c_.sqs_[q].valid || c_.cqs_[q].valid) return status(SCT_GENERIC, SC_COMMAND_SEQUENCE, true);
      c_.nsq_alloc_ = static_cast<uint16_t>(std::min(nsqr + 1, c_.max_queues_));
      c_.ncq_alloc_ = static_cast<uint16_t>(std::min(ncqr + 1, c_.max_queues_));
      break;
    }
    case FEAT_IRQ_COALESCE:
      c_.feat_.coalescing = v & 0xFFFF;
      c_.irq_.set_coalescing(static_cast<uint8_t>(v & 0xFF), static_cast<uint8_t>((v >> 8) & 0xFF));
      break;
    case FEAT_IRQ_CONFIG: {
      uint32_t iv = v & 0xFFFF;
      if (iv >= c_.irq_.vectors()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      if (iv == 0 && (v >> 16 & 1)) return status(SCT_GENERIC, SC_INVALID_FIELD, true);  // admin is never coalesced
      c_.irq_.set_coalescing_disabled(static_cast<uint16_t>(iv), v >> 16 & 1);
      break;
    }
    case FEAT_ASYNC_EVENT: c_.feat_.async_events = v & 0x3FF; break;
    case FEAT_KEEP_ALIVE:
      c_.feat_.keep_alive_ms = v;
      c_.keep_alive();  // a new timer starts now
      break;
    default: return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  }
  uint32_t dw0 = 0;
  feature_value(fid, SEL_CURRENT, v, dw0);
  sl.dw0 = dw0;  // Number of Queues answers what was allocated; the others echo the value
  return 0;
}

uint16_t NvmeAdminCommands::feature_value(uint8_t fid, uint8_t sel, uint32_t cdw11, uint32_t& dw0) {
  bool current = sel == SEL_CURRENT;
  switch (fid) {
    case FEAT_ARBITRATION:
      dw0 = current ? c_.feat_.arbitration : static_cast<uint32_t>(c_.cfg_.get_int("arbitration_burst"));
      break;
    case FEAT_POWER_MGMT: dw0 = current ? c_.feat_.power : 0; break;
    case FEAT_VOLATILE_WC:
      if (!c_.fw->volatile_write_cache()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      dw0 = current ? c_.feat_.write_cache : 1;
      break;
    case FEAT_NUM_QUEUES: {
      uint32_t nsq = c_.nsq_alloc_ && current ? c_.nsq_alloc_ : c_.max_queues_, ncq = c_.ncq_alloc_ && current ? c_.ncq_alloc_ : c_.max_queues_;
      dw0 = (nsq - 1) | ((ncq - 1) << 16);
      break;
    }
    case FEAT_IRQ_COALESCE: dw0 = current ? c_.feat_.coalescing : 0; break;
    case FEAT_IRQ_CONFIG: {
      uint32_t iv = cdw11 & 0xFFFF;
      if (iv >= c_.irq_.vectors()) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
      dw0 = iv | (current && c_.irq_.coalescing_disabled(static_cast<uint16_t>(iv)) ? 1u << 16 : 0);
      break;
    }
    case FEAT_ASYNC_EVENT: dw0 = current ? c_.feat_.async_events : 0; break;
    case FEAT_KEEP_ALIVE: dw0 = current ? c_.feat_.keep_alive_ms : 0; break;
    default: return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  }
  if (sel == SEL_CAPABILITIES) dw0 = FEAT_CAP_CHANGEABLE;
  return 0;
}

uint16_t NvmeAdminCommands::create_cq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF, size = (c.cdw10 >> 16) + 1;
  bool pc = c.cdw11 & 1, ien = c.cdw11 & 2;
  uint32_t iv = c.cdw11 >> 16;
  uint32_t limit = c_.ncq_alloc_ ? c_.ncq_alloc_ : c_.max_queues_;
  if (qid == 0 || qid > limit || c_.cqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  if (size < 2 || size > c_.max_entries_ || cc_iocqes(c_.cc_) != 4)
    return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QSIZE, true);
  // With MSI-X, any table entry; with MSI or INTx the vectors the function has.
  uint32_t vectors = c_.pci_.msix_enabled() ? c_.irq_.vectors() : c_.pci_.msi_enabled() ? c_.pci_.msi_enabled_vectors() : 1;
  if (ien && iv >= vectors) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_VECTOR, true);
  if (!pc || c.prp1 == 0 || c.prp1 % kHostPage) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  CompQueue& q = c_.cqs_[qid];
  q = CompQueue{};
  q.valid = true;
  q.base = c.prp1;
  q.size = size;
  q.ien = ien;
  q.vector = static_cast<uint16_t>(iv);
  c_.cq_occupancy_[qid] = 0;
  c_.svc_.waves.show(c_.cq_occupancy_[qid]);  // its row starts here
  return 0;
}

uint16_t NvmeAdminCommands::create_sq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF, size = (c.cdw10 >> 16) + 1;
  bool pc = c.cdw11 & 1;
  uint32_t cqid = c.cdw11 >> 16;
  uint32_t limit = c_.nsq_alloc_ ? c_.nsq_alloc_ : c_.max_queues_;
  if (qid == 0 || qid > limit || c_.sqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  if (size < 2 || size > c_.max_entries_ || cc_iosqes(c_.cc_) != 6)
    return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QSIZE, true);
  if (cqid == 0 || cqid > c_.max_queues_ || !c_.cqs_[cqid].valid) return status(SCT_COMMAND_SPECIFIC, SC_CQ_INVALID, true);
  if (!pc || c.prp1 == 0 || c.prp1 % kHostPage) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  c_.sqs_[qid] = SubQueue{true, c.prp1, size, 0, 0, static_cast<uint16_t>(cqid), 0, 0, {}};
  c_.arb_.add_queue(static_cast<uint16_t>(qid), sq_priority(c.cdw11));  // QPRIO, used by WRR and FlashShare
  c_.svc_.waves.show(c_.sq_occupancy_[qid]);  // its row starts here
  return 0;
}

// Delete I/O SQ: entries not fetched are dropped; commands in flight are
// completed now with "aborted due to SQ deletion" (their firmware work is
// discarded when it returns), before this command completes.
uint16_t NvmeAdminCommands::delete_sq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF;
  if (qid == 0 || qid > c_.max_queues_ || !c_.sqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  CompQueue& cq = c_.cqs_[c_.sqs_[qid].cqid];
  // Commands fetched behind a write (in-order fetch) never started: they
  // complete aborted now and free their slots.
  std::deque<uint32_t> parked = std::move(c_.sqs_[qid].parked);
  c_.sqs_[qid].parked.clear();
  for (uint32_t s : parked) c_.complete(s, status(SCT_GENERIC, SC_ABORTED_SQ_DELETION));
  for (uint32_t s = 0; s < c_.slots_.size(); ++s) {
    Slot& sl = c_.slots_[s];
    if (!sl.busy || sl.aborted || sl.sqid != qid || sl.generation != c_.generation_) continue;
    auto w = std::find(cq.waiting.begin(), cq.waiting.end(), s);
    if (w != cq.waiting.end()) continue;  // finished already; posted below or dropped
    sl.aborted = true;
    c_.complete(s, status(SCT_GENERIC, SC_ABORTED_SQ_DELETION));
  }
  // Completions still waiting for room in the CQ are lost with their SQ.
  for (auto it = cq.waiting.begin(); it != cq.waiting.end();) {
    if (c_.slots_[*it].sqid == qid) {
      uint32_t s = *it;
      it = cq.waiting.erase(it);
      if (!c_.slots_[s].aborted) c_.release(s);  // an aborted one is released when the firmware returns it
    } else {
      ++it;
    }
  }
  c_.waiting_ -= c_.sq_occupancy_[qid];
  c_.sq_occupancy_[qid] = 0;
  c_.sqs_[qid] = SubQueue{};
  c_.arb_.remove_queue(static_cast<uint16_t>(qid));
  return 0;
}

uint16_t NvmeAdminCommands::delete_cq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF;
  if (qid == 0 || qid > c_.max_queues_ || !c_.cqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  for (const auto& sq : c_.sqs_)
    if (sq.valid && sq.cqid == qid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QUEUE_DELETION, true);
  c_.cqs_[qid] = CompQueue{};
  c_.cq_occupancy_[qid] = 0;
  if (c_.irq_.pin_based()) c_.irq_.cq_level(c_.cq_entries_outstanding(), 0);
  return 0;
}

}  // namespace vp::ssd
