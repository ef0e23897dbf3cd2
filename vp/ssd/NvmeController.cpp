#include "vp/ssd/NvmeController.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "vp/core/Payload.hpp"

namespace vp::ssd {

using namespace vp::nvme;

namespace {
constexpr uint32_t kHostPage = 4096;  // CAP.MPSMIN = MPSMAX = 0

void put16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }
void put32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
void put64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
void put_str(uint8_t* p, const std::string& s, size_t n) {  // space padded, as Identify wants
  std::memset(p, ' ', n);
  std::memcpy(p, s.data(), std::min(n, s.size()));
}
}  // namespace

void NvmeController::declare_params(ParamRegistry& r) {
  r.integer("ssd.nvme.max_io_queues", 64, "I/O submission and completion queues the controller supports")
      .range(1, 1023);
  r.integer("ssd.nvme.max_queue_entries", 4096, "largest queue the controller accepts (CAP.MQES + 1)")
      .range(2, 65536);
  r.integer("ssd.nvme.dstrd", 0, "doorbell stride: doorbells are (4 << dstrd) bytes apart (CAP.DSTRD)")
      .range(0, 8);
  r.integer("ssd.nvme.max_inflight", 256, "commands the controller holds between fetch and completion")
      .range(1, 65536);
  r.integer("ssd.nvme.mdts", 5, "maximum data transfer size, as a power of two of 4 KiB pages (Identify MDTS)")
      .range(1, 10);
  r.size("ssd.nvme.lba_size", "4KiB", "logical block size of namespace 1").range(512, 65536);
  r.time("ssd.nvme.ready_time", "10us", "time from CC.EN changing to CSTS.RDY following it");
  r.time("ssd.nvme.admin_time", "2us", "controller time to execute one admin command");
  r.string("ssd.nvme.model", "FlashVP ULL Z-SSD", "model number reported by Identify");
  r.string("ssd.nvme.serial", "FVP0000000001", "serial number reported by Identify");
  r.rule([](const Config& c) {
    uint64_t lba = c.get_size("ssd.nvme.lba_size"), page = c.get_size("ssd.flash.page_size");
    if ((lba & (lba - 1)) != 0) c.fail("ssd.nvme.lba_size", "must be a power of two");
    if (lba % page != 0)
      c.fail("ssd.nvme.lba_size", fmt::format("must be a multiple of the FTL mapping unit (ssd.flash.page_size = {})",
                                              format_size(page)));
  });
}

NvmeController::NvmeController(sc_core::sc_module_name name, Services& svc)
    : sc_module(name),
      bar0("bar0"),
      dma("dma"),
      fw("fw"),
      svc_(svc),
      eq_("eq"),
      max_queues_(static_cast<uint32_t>(svc.cfg.get_int("ssd.nvme.max_io_queues"))),
      max_entries_(static_cast<uint32_t>(svc.cfg.get_int("ssd.nvme.max_queue_entries"))),
      dstrd_(static_cast<uint32_t>(svc.cfg.get_int("ssd.nvme.dstrd"))),
      mdts_(static_cast<uint32_t>(svc.cfg.get_int("ssd.nvme.mdts"))),
      lba_size_(static_cast<uint32_t>(svc.cfg.get_size("ssd.nvme.lba_size"))),
      ready_time_(svc.cfg.get_time("ssd.nvme.ready_time")),
      admin_time_(svc.cfg.get_time("ssd.nvme.admin_time")),
      model_(svc.cfg.get_string("ssd.nvme.model")),
      serial_(svc.cfg.get_string("ssd.nvme.serial")),
      msix_(size_t(max_queues_ + 1) * MSIX_ENTRY_SIZE, 0),
      sqs_(max_queues_ + 1),
      cqs_(max_queues_ + 1),
      slots_(static_cast<size_t>(svc.cfg.get_int("ssd.nvme.max_inflight"))),
      sq_occupancy_(max_queues_ + 1, 0),
      io_cmds_(svc.stats.counter("ssd.nvme.io_commands", "commands", "I/O commands completed")),
      admin_cmds_(svc.stats.counter("ssd.nvme.admin_commands", "commands", "admin commands completed")),
      errors_(svc.stats.counter("ssd.nvme.error_completions", "commands", "commands completed with an error status")),

      doorbells_(svc.stats.counter("ssd.nvme.doorbell_writes", "writes", "doorbell register writes")),
      irqs_(svc.stats.counter("ssd.nvme.msix_sent", "messages", "MSI-X messages sent")),
      bytes_read_(svc.stats.counter("ssd.nvme.bytes_read", "bytes", "bytes read by the host")),
      bytes_written_(svc.stats.counter("ssd.nvme.bytes_written", "bytes", "bytes written by the host")),
      read_cmds_(svc.stats.counter("ssd.nvme.read_commands", "commands", "Read commands accepted")),
      write_cmds_(svc.stats.counter("ssd.nvme.write_commands", "commands", "Write commands accepted")) {
  bar0.register_b_transport(this, &NvmeController::bar_access);
  // Vector control bit 0 = masked until the host programs the entry.
  for (uint32_t v = 0; v <= max_queues_; ++v) msix_[v * MSIX_ENTRY_SIZE + 12] = 1;
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    slots_[i].hc.slot = i;
    slots_[i].hc.client = this;
    free_slots_.push_back(static_cast<uint32_t>(slots_.size()) - 1 - i);
  }
  if (svc.waves.enabled()) {
    for (uint32_t q = 0; q <= std::min<uint32_t>(max_queues_, 8); ++q)
      svc.waves.trace(sq_occupancy_[q], fmt::format("nvme_sq{}_occupancy", q), "nvme queues");
    svc.waves.trace(doorbell_writes_, "nvme_doorbell_writes", "nvme queues");
    svc.waves.trace(interrupts_sent_, "nvme_msix_sent", "nvme queues");
  }
}

uint64_t NvmeController::namespace_lbas() const { return fw->capacity_bytes() / lba_size_; }

// ---------------------------------------------------------------- registers

void NvmeController::bar_access(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t off = gp.get_address();
  unsigned len = gp.get_data_length();
  uint8_t* p = gp.get_data_ptr();
  if (off + len > BAR0_SIZE || (len != 4 && len != 8)) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (gp.is_write()) {
    uint64_t v = 0;
    std::memcpy(&v, p, len);
    // The write takes effect when it arrives, at the end of the annotated
    // delay. A 4-byte write (doorbells) packs into one word so the callback
    // needs no heap.
    uint32_t o = static_cast<uint32_t>(off);
    if (len == 4) {
      uint64_t packed = (v & 0xFFFFFFFFull) | (uint64_t(o) << 32);
      eq_.after(delay.value(), [this, packed] { reg_write(static_cast<uint32_t>(packed >> 32), packed & 0xFFFFFFFFull, 4); });
    } else {
      eq_.after(delay.value(), [this, o, v] { reg_write(o, v, 8); });
    }
  } else {
    uint64_t v = reg_read(static_cast<uint32_t>(off), len);
    std::memcpy(p, &v, len);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint64_t NvmeController::reg_read(uint32_t off, unsigned len) {
  if (off >= MSIX_TABLE && off < MSIX_TABLE + msix_.size()) {
    uint64_t v = 0;
    std::memcpy(&v, &msix_[off - MSIX_TABLE], std::min<size_t>(len, msix_.size() - (off - MSIX_TABLE)));
    return v;
  }
  uint64_t cap = uint64_t(max_entries_ - 1)   // MQES
                 | (1ull << 16)               // CQR: queues must be physically contiguous
                 | (20ull << 24)              // TO: 10 s
                 | (uint64_t(dstrd_) << 32)   // DSTRD
                 | (1ull << 37);              // CSS: NVM command set; MPSMIN = MPSMAX = 0 (4 KiB)
  uint64_t v = 0;
  switch (off) {
    case CAP: v = cap; break;
    case CAP + 4: v = cap >> 32; break;
    case VS: v = 0x00010400; break;  // 1.4
    case INTMS: case INTMC: v = intms_; break;
    case CC: v = cc_; break;
    case CSTS: v = csts_; break;
    case AQA: v = aqa_; break;
    case ASQ: v = asq_; break;
    case ASQ + 4: v = asq_ >> 32; break;
    case ACQ: v = acq_; break;
    case ACQ + 4: v = acq_ >> 32; break;
    default: v = 0; break;
  }
  return len == 4 ? (v & 0xFFFFFFFFu) : v;
}

void NvmeController::reg_write(uint32_t off, uint64_t v, unsigned len) {
  if (off >= MSIX_TABLE && off < MSIX_TABLE + msix_.size()) {
    std::memcpy(&msix_[off - MSIX_TABLE], &v, std::min<size_t>(len, msix_.size() - (off - MSIX_TABLE)));
    return;
  }
  if (off >= DOORBELL_BASE && off < MSIX_TABLE) {
    doorbell(off, static_cast<uint32_t>(v));
    return;
  }
  auto lo = static_cast<uint32_t>(v);
  switch (off) {
    case INTMS: intms_ |= lo; break;
    case INTMC: intms_ &= ~lo; break;
    case CC: {
      bool was = cc_ & CC_EN, now = lo & CC_EN;
      cc_ = lo;
      if (cc_shn(cc_) != 0) csts_ = (csts_ & ~0xCu) | (2u << 2);  // shutdown processing complete
      if (was != now) set_enable(now);
      break;
    }
    case AQA: aqa_ = lo; break;
    case ASQ: asq_ = len == 8 ? v : (asq_ & ~0xFFFFFFFFull) | lo; break;
    case ASQ + 4: asq_ = (asq_ & 0xFFFFFFFFull) | (uint64_t(lo) << 32); break;
    case ACQ: acq_ = len == 8 ? v : (acq_ & ~0xFFFFFFFFull) | lo; break;
    case ACQ + 4: acq_ = (acq_ & 0xFFFFFFFFull) | (uint64_t(lo) << 32); break;
    default: break;  // read-only or reserved: writes are ignored
  }
}

void NvmeController::set_enable(bool en) {
  if (!en) {
    reset_queues();
    eq_.after(ready_time_, [this] { csts_ &= ~CSTS_RDY; });
    return;
  }
  // A controller that cannot run with what the host programmed reports fatal status.
  uint32_t asqs = (aqa_ & 0xFFF) + 1, acqs = ((aqa_ >> 16) & 0xFFF) + 1;
  bool ok = asq_ != 0 && acq_ != 0 && (asq_ % kHostPage) == 0 && (acq_ % kHostPage) == 0 && asqs >= 2 &&
            acqs >= 2 && cc_mps(cc_) == 0 && cc_css(cc_) == 0;
  eq_.after(ready_time_, [this, ok, asqs, acqs] {
    if (!ok) {
      csts_ |= CSTS_CFS;
      return;
    }
    sqs_[0] = SubQueue{true, asq_, asqs, 0, 0, 0};
    cqs_[0] = CompQueue{};
    cqs_[0].valid = true;
    cqs_[0].base = acq_;
    cqs_[0].size = acqs;
    cqs_[0].ien = true;
    csts_ |= CSTS_RDY;
  });
}

void NvmeController::reset_queues() {
  ++generation_;  // completions of commands from before the reset are dropped
  for (auto& q : sqs_) q = SubQueue{};
  for (auto& q : cqs_) q = CompQueue{};
  std::fill(sq_occupancy_.begin(), sq_occupancy_.end(), 0);
  waiting_ = 0;
  top_sq_ = 0;
  nsq_alloc_ = ncq_alloc_ = 0;
  csts_ &= ~(CSTS_CFS | 0xCu);
}

void NvmeController::doorbell(uint32_t off, uint32_t v) {
  ++doorbells_;
  ++doorbell_writes_;
  uint32_t idx = (off - DOORBELL_BASE) / (4u << dstrd_);
  uint32_t qid = idx / 2;
  if ((off - DOORBELL_BASE) % (4u << dstrd_) != 0 || qid > max_queues_ || !(csts_ & CSTS_RDY)) return;
  if (idx % 2 == 0) {
    SubQueue& q = sqs_[qid];
    if (!q.valid || v >= q.size) return;  // invalid doorbell write: ignored (a real device raises an AER)
    q.tail = v;
    waiting_ -= sq_occupancy_[qid];
    sq_occupancy_[qid] = (q.tail + q.size - q.head) % q.size;
    waiting_ += sq_occupancy_[qid];
    fetch();
  } else {
    CompQueue& q = cqs_[qid];
    if (!q.valid || v >= q.size) return;
    q.head = v;
    while (!q.waiting.empty() && (q.tail + 1) % q.size != q.head) {
      uint32_t s = q.waiting.front();
      q.waiting.pop_front();
      post(s, 0);
    }
  }
}

// ---------------------------------------------------------------- fetch

void NvmeController::fetch() {
  // Round robin over submission queues with entries, one command per visit.
  uint32_t nq = top_sq_ + 1;
  while (waiting_ > 0 && !free_slots_.empty() && !(csts_ & CSTS_CFS)) {
    uint32_t q = 0;
    bool found = false;
    for (uint32_t i = 0; i < nq; ++i) {
      uint32_t c = (rr_next_ + i) % nq;
      if (sqs_[c].valid && sqs_[c].head != sqs_[c].tail) {
        q = c;
        found = true;
        break;
      }
    }
    if (!found) return;
    rr_next_ = (q + 1) % nq;
    SubQueue& sq = sqs_[q];
    uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    Slot& sl = slots_[s];
    sl.sqid = static_cast<uint16_t>(q);
    sl.generation = generation_;
    sl.status = 0;
    sl.dw0 = 0;
    Tick start = now_ps(), delay = 0;
    bool ok = dma_access(tlm::TLM_READ_COMMAND, sq.base + uint64_t(sq.head) * sizeof(Sqe),
                         reinterpret_cast<uint8_t*>(&sl.sqe), sizeof(Sqe), delay);
    sq.head = (sq.head + 1) % sq.size;
    sq_occupancy_[q] = (sq.tail + sq.size - sq.head) % sq.size;
    --waiting_;
    sl.rec = svc_.tracker.device(q, sl.sqe.cid());
    if (sl.rec) {
      sl.rec->clock.start(start);
      sl.rec->valid = true;
    }
    if (!ok) {  // the SQ memory is unreachable: nothing sensible can be completed
      csts_ |= CSTS_CFS;
      free_slots_.push_back(s);
      return;
    }
    eq_.at(start + delay, [this, s] { on_fetched(s); });
  }
}

void NvmeController::on_fetched(uint32_t s) {
  Slot& sl = slots_[s];
  if (sl.generation != generation_) return release(s);
  if (sl.rec) sl.rec->clock.mark(Stage::Fetch, now_ps());
  if (sl.sqid == 0) {
    eq_.after(admin_time_, [this, s] { execute_admin(s); });
  } else {
    sl.io_counted = true;
    io_busy(true);
    execute_io(s);
  }
}

// ---------------------------------------------------------------- I/O commands

void NvmeController::execute_io(uint32_t s) {
  Slot& sl = slots_[s];
  const Sqe& c = sl.sqe;
  uint8_t op = c.opcode();
  if (op != IO_READ && op != IO_WRITE && op != IO_FLUSH && op != IO_WRITE_ZEROES && op != IO_DSM && op != IO_COMPARE)
    return complete(s, status(SCT_GENERIC, SC_INVALID_OPCODE, true));
  if (op == IO_FLUSH) {
    if (c.nsid != 1 && c.nsid != 0xFFFFFFFFu) return complete(s, status(SCT_GENERIC, SC_INVALID_NAMESPACE, true));
  } else if (c.nsid != 1) {
    return complete(s, status(SCT_GENERIC, SC_INVALID_NAMESPACE, true));
  }
  if ((c.cdw0 >> 8 & 3) != 0 || c.psdt() != 0)  // fused operations and SGLs are not supported
    return complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  HostCommand& hc = sl.hc;
  hc.sqid = sl.sqid;
  hc.cdw2 = c.cdw2;
  hc.cdw3 = c.cdw3;
  hc.result = 0;
  sl.steps.clear();
  sl.step = 0;
  sl.compare = op == IO_COMPARE;
  if (op == IO_DSM) return execute_dsm(s);
  if (op == IO_WRITE_ZEROES) return execute_write_zeroes(s);
  if (op == IO_FLUSH) {
    hc.op = IoOp::Flush;
    hc.bytes = 0;
    hc.byte_offset = 0;
    hc.data = nullptr;
    fw->submit(hc);
    return;
  }
  uint64_t slba = c.slba(), nlb = c.nlb();
  if (slba + nlb > namespace_lbas() || slba + nlb < slba)
    return complete(s, status(SCT_GENERIC, SC_LBA_OUT_OF_RANGE, true));
  uint64_t bytes = nlb * lba_size_;
  if (bytes > (uint64_t(kHostPage) << mdts_)) return complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  Tick delay = 0;
  uint16_t st = walk_prps(sl, static_cast<uint32_t>(bytes), delay);
  if (st != 0) return complete(s, st, delay);
  if (sl.buf.size() < bytes) sl.buf.resize(bytes);  // buffers grow to the largest transfer seen
  hc.op = op == IO_WRITE ? IoOp::Write : IoOp::Read;  // a Compare reads the media first
  ++(op == IO_WRITE ? write_cmds_ : read_cmds_);  // SMART counts a Compare as a host read
  hc.byte_offset = slba * lba_size_;
  hc.bytes = static_cast<uint32_t>(bytes);
  hc.data = sl.buf.data();
  ++io_cmds_;
  if (hc.op == IoOp::Write) {
    bytes_written_ += bytes;
    if (!move_data(sl, false, hc.bytes, delay))
      return complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
    eq_.after(delay, [this, s] {
      Slot& w = slots_[s];
      if (w.generation != generation_) return release(s);
      if (w.rec) w.rec->clock.mark(Stage::DataDma, now_ps());
      fw->submit(w.hc);
    });
  } else {
    bytes_read_ += bytes;
    if (delay == 0) return fw->submit(hc);
    eq_.after(delay, [this, s] { fw->submit(slots_[s].hc); });  // PRP list fetched first
  }
}

// Dataset Management: the range list comes by DMA; with the deallocate
// attribute every range is trimmed in the FTL, the others are hints only.
void NvmeController::execute_dsm(uint32_t s) {
  Slot& sl = slots_[s];
  const Sqe& c = sl.sqe;
  uint32_t ranges = (c.cdw10 & 0xFF) + 1, bytes = ranges * DSM_RANGE_SIZE;
  Tick delay = 0;
  uint16_t st = walk_prps(sl, bytes, delay);
  if (st != 0) return complete(s, st, delay);
  if (sl.buf.size() < bytes) sl.buf.resize(bytes);
  if (!move_data(sl, false, bytes, delay)) return complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
  ++io_cmds_;
  // The FTL takes at most 1 GiB per request; a range is split below that.
  const uint64_t piece = (uint64_t(1) << 30) / lba_size_ * lba_size_;
  for (uint32_t r = 0; r < ranges; ++r) {
    const uint8_t* d = sl.buf.data() + r * DSM_RANGE_SIZE;
    uint32_t nlb;
    uint64_t slba;
    std::memcpy(&nlb, d + 4, 4);
    std::memcpy(&slba, d + 8, 8);
    if (nlb == 0) continue;
    if (slba + nlb > namespace_lbas() || slba + nlb < slba)
      return complete(s, status(SCT_GENERIC, SC_LBA_OUT_OF_RANGE, true), delay);
    if (!(c.cdw11 & DSM_AD)) continue;
    for (uint64_t off = slba * lba_size_, end = (slba + nlb) * lba_size_; off < end; off += piece)
      sl.steps.push_back({IoOp::Trim, off, static_cast<uint32_t>(std::min(piece, end - off))});
  }
  if (sl.steps.empty()) return complete(s, 0, delay);
  eq_.after(delay, [this, s] {
    if (slots_[s].generation != generation_) return release(s);
    run_step(s);
  });
}

// Write Zeroes: zeros written like data (durable, unlike a deallocation),
// in MDTS-sized requests; nothing crosses PCIe.
void NvmeController::execute_write_zeroes(uint32_t s) {
  Slot& sl = slots_[s];
  const Sqe& c = sl.sqe;
  uint64_t slba = c.slba(), nlb = c.nlb();
  if (slba + nlb > namespace_lbas() || slba + nlb < slba)
    return complete(s, status(SCT_GENERIC, SC_LBA_OUT_OF_RANGE, true));
  ++io_cmds_;
  const uint64_t piece = uint64_t(kHostPage) << mdts_;
  uint64_t end = (slba + nlb) * lba_size_;
  for (uint64_t off = slba * lba_size_; off < end; off += piece)
    sl.steps.push_back({IoOp::Write, off, static_cast<uint32_t>(std::min(piece, end - off))});
  sl.buf.assign(std::max<size_t>(sl.buf.size(), std::min(piece, end - slba * lba_size_)), 0);
  run_step(s);
}

void NvmeController::run_step(uint32_t s) {
  Slot& sl = slots_[s];
  const Step& st = sl.steps[sl.step];
  sl.hc.op = st.op;
  sl.hc.byte_offset = st.offset;
  sl.hc.bytes = st.bytes;
  sl.hc.data = st.op == IoOp::Write ? sl.buf.data() : nullptr;
  if (st.op == IoOp::Write) bytes_written_ += st.bytes;
  fw->submit(sl.hc);
}

void NvmeController::firmware_issued(HostCommand& hc) {
  Slot& sl = slots_[hc.slot];
  if (sl.rec) sl.rec->clock.mark(Stage::Firmware, now_ps());
}

void NvmeController::firmware_done(HostCommand& hc) {
  uint32_t s = hc.slot;
  Slot& sl = slots_[s];
  if (sl.generation != generation_) return release(s);
  if (!sl.steps.empty() && ++sl.step < sl.steps.size()) return run_step(s);
  if (sl.rec) sl.rec->clock.mark(Stage::Flash, now_ps());
  Tick delay = 0;
  if (sl.compare) {  // fetch the host's data and compare it with the media's
    sl.media.assign(sl.buf.begin(), sl.buf.begin() + hc.bytes);
    if (!move_data(sl, false, hc.bytes, delay)) return complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
    if (sl.rec) sl.rec->clock.mark(Stage::DataDma, now_ps() + delay);
    bool same = std::equal(sl.media.begin(), sl.media.end(), sl.buf.begin());
    return complete(s, same ? 0 : status(SCT_MEDIA, SC_COMPARE_FAILURE), delay);
  }
  if (hc.op == IoOp::Read) {
    bool ok = move_data(sl, true, hc.bytes, delay);
    if (sl.rec) sl.rec->clock.mark(Stage::DataDma, now_ps() + delay);
    if (!ok) return complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
  }
  sl.dw0 = hc.result;
  // The entry is posted right behind the data; the link keeps them in order.
  complete(s, 0);
}

// ---------------------------------------------------------------- PRPs and DMA

uint16_t NvmeController::walk_prps(Slot& sl, uint32_t bytes, Tick& delay) {
  sl.segs.clear();
  uint64_t prp1 = sl.sqe.prp1, prp2 = sl.sqe.prp2;
  if (prp1 & 3) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
  uint32_t first = std::min<uint32_t>(bytes, kHostPage - static_cast<uint32_t>(prp1 % kHostPage));
  sl.segs.push_back({prp1, first});
  uint32_t left = bytes - first;
  if (left == 0) return 0;
  if (left <= kHostPage) {
    if (prp2 % kHostPage) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
    sl.segs.push_back({prp2, left});
    return 0;
  }
  // PRP2 points to a list; the last entry of a full list page chains to the next.
  if (prp2 & 7) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
  uint64_t list = prp2;
  uint32_t entries = (left + kHostPage - 1) / kHostPage;
  while (entries > 0) {
    uint32_t room = static_cast<uint32_t>((kHostPage - list % kHostPage) / 8);
    uint32_t take = entries <= room ? entries : room - 1;
    uint32_t read = entries <= room ? entries : room;
    std::vector<uint64_t> e(read);
    Tick d = delay;
    if (!dma_access(tlm::TLM_READ_COMMAND, list, reinterpret_cast<uint8_t*>(e.data()), read * 8, d))
      return status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR);
    delay = d;
    for (uint32_t i = 0; i < take; ++i) {
      if (e[i] % kHostPage) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
      uint32_t len = std::min(left, kHostPage);
      sl.segs.push_back({e[i], len});
      left -= len;
    }
    entries -= take;
    if (entries > 0) {
      list = e[room - 1];
      if (list & 7) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
    }
  }
  return 0;
}

bool NvmeController::move_data(Slot& sl, bool to_host, uint32_t bytes, Tick& delay) {
  Tick start = delay, end = delay;
  uint32_t done = 0;
  for (const auto& seg : sl.segs) {
    if (done >= bytes) break;
    uint32_t len = std::min(seg.len, bytes - done);
    Tick d = start;
    if (!dma_access(to_host ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, seg.addr, sl.buf.data() + done, len,
                    d))
      return false;
    end = std::max(end, d);
    done += len;
  }
  delay = end;
  return true;
}

bool NvmeController::dma_access(tlm::tlm_command cmd, uint64_t addr, uint8_t* p, uint32_t len, Tick& delay) {
  prepare(gp_, cmd, addr, p, len);
  sc_core::sc_time d = to_sc(delay);
  dma->b_transport(gp_, d);
  delay = d.value();
  return gp_.is_response_ok();
}

// ---------------------------------------------------------------- completion

// `delay`: how far in the future the controller issues the entry (after a PRP
// list read, say); writes issued earlier on the link still arrive first.
void NvmeController::complete(uint32_t s, uint16_t st, Tick delay) {
  Slot& sl = slots_[s];
  sl.status = st;
  if (st != 0) {
    ++errors_;
    const Sqe& c = sl.sqe;
    error_log_.push_front({errors_.value, sl.sqid, c.cid(), st, sl.sqid ? c.slba() : 0, c.nsid});
    if (error_log_.size() > ERROR_LOG_ENTRIES) error_log_.pop_back();
  }
  CompQueue& cq = cqs_[sqs_[sl.sqid].cqid];
  if (!cq.valid) return release(s);
  if ((cq.tail + 1) % cq.size == cq.head) {  // CQ full: wait for the host to free entries
    cq.waiting.push_back(s);
    return;
  }
  post(s, delay);
}

void NvmeController::post(uint32_t s, Tick delay) {
  Slot& sl = slots_[s];
  SubQueue& sq = sqs_[sl.sqid];
  CompQueue& cq = cqs_[sq.cqid];
  Cqe e{};
  e.dw0 = sl.dw0;
  e.sq_head = static_cast<uint16_t>(sq.head);
  e.sq_id = sl.sqid;
  e.cid = sl.sqe.cid();
  e.status_phase = static_cast<uint16_t>((sl.status << 1) | (cq.phase ? 1 : 0));
  // Posted writes on one link arrive in order, so the entry lands after the data.
  Tick d = delay;
  dma_access(tlm::TLM_WRITE_COMMAND, cq.base + uint64_t(cq.tail) * sizeof(Cqe), reinterpret_cast<uint8_t*>(&e),
             sizeof e, d);
  if (sl.rec) sl.rec->clock.mark(Stage::CqPost, now_ps() + d);
  if (++cq.tail == cq.size) {
    cq.tail = 0;
    cq.phase = !cq.phase;
  }
  if (cq.ien) {
    const uint8_t* ent = &msix_[size_t(cq.vector) * MSIX_ENTRY_SIZE];
    uint64_t addr;
    uint32_t data, ctrl;
    std::memcpy(&addr, ent, 8);
    std::memcpy(&data, ent + 8, 4);
    std::memcpy(&ctrl, ent + 12, 4);
    if (!(ctrl & 1)) {
      Tick md = delay;  // sent right behind the entry
      dma_access(tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<uint8_t*>(&data), 4, md);
      ++irqs_;
      ++interrupts_sent_;
    }
  }
  if (sl.sqid == 0) ++admin_cmds_;
  release(s);
}

void NvmeController::release(uint32_t s) {
  if (slots_[s].io_counted) {
    slots_[s].io_counted = false;
    io_busy(false);
  }
  free_slots_.push_back(s);
  fetch();  // a freed slot may let a waiting command in
}

// ---------------------------------------------------------------- admin commands

void NvmeController::execute_admin(uint32_t s) {
  Slot& sl = slots_[s];
  if (sl.generation != generation_) return release(s);
  const Sqe& c = sl.sqe;
  Tick delay = 0;
  uint16_t st = 0;
  if (c.psdt() != 0) return complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  switch (c.opcode()) {
    case ADMIN_IDENTIFY: st = admin_identify(sl, delay); break;
    case ADMIN_SET_FEATURES:
    case ADMIN_GET_FEATURES: st = admin_features(sl); break;
    case ADMIN_CREATE_CQ: st = admin_create_cq(c); break;
    case ADMIN_CREATE_SQ: st = admin_create_sq(c); break;
    case ADMIN_DELETE_SQ: st = admin_delete_sq(c); break;
    case ADMIN_DELETE_CQ: st = admin_delete_cq(c); break;
    case ADMIN_GET_LOG_PAGE: st = admin_get_log_page(sl, delay); break;
    case ADMIN_ABORT: sl.dw0 = 1; break;  // command not aborted
    case ADMIN_ASYNC_EVENT: return release(s);  // held: no asynchronous events are reported yet
    default: st = status(SCT_GENERIC, SC_INVALID_OPCODE, true); break;
  }
  complete(s, st, delay);
}

uint16_t NvmeController::admin_identify(Slot& sl, Tick& delay) {
  const Sqe& c = sl.sqe;
  uint8_t cns = c.cdw10 & 0xFF;
  if (sl.buf.size() < IDENTIFY_SIZE) sl.buf.resize(IDENTIFY_SIZE);
  uint8_t* d = sl.buf.data();
  std::memset(d, 0, IDENTIFY_SIZE);
  switch (cns) {
    case CNS_CONTROLLER: {
      put16(d + idctl::VID, 0x1b36);
      put16(d + idctl::SSVID, 0x1af4);
      put_str(d + idctl::SN, serial_, 20);
      put_str(d + idctl::MN, model_, 40);
      put_str(d + idctl::FR, "0.1", 8);
      d[idctl::MDTS] = static_cast<uint8_t>(mdts_);
      put16(d + idctl::CNTLID, 1);
      put32(d + idctl::VER, 0x00010400);
      put16(d + idctl::OACS, 0);
      d[idctl::FRMW] = 1 << 1 | 1;  // one firmware slot, read only
      d[idctl::LPA] = 1 << 2;       // Get Log Page takes offsets and 32-bit lengths
      d[idctl::ELPE] = ERROR_LOG_ENTRIES - 1;
      d[idctl::SQES] = 0x66;  // required and maximum entry size: 64 bytes
      d[idctl::CQES] = 0x44;  // 16 bytes
      put32(d + idctl::NN, 1);
      d[idctl::VWC] = 0;
      put16(d + idctl::ONCS, ONCS_COMPARE | ONCS_DSM | ONCS_WRITE_ZEROES);
      break;
    }
    case CNS_NAMESPACE: {
      if (c.nsid != 1) return status(SCT_GENERIC, SC_INVALID_NAMESPACE, true);
      uint64_t n = namespace_lbas();
      put64(d + idns::NSZE, n);
      put64(d + idns::NCAP, n);
      put64(d + idns::NUSE, n);
      d[idns::NLBAF] = 0;  // one format
      d[idns::FLBAS] = 0;
      uint32_t lbads = 0;
      while ((1u << lbads) < lba_size_) ++lbads;
      put32(d + idns::LBAF0, lbads << 16);
      break;
    }
    case CNS_ACTIVE_NS_LIST:
      if (c.nsid < 1) put32(d, 1);  // namespaces with an id above nsid
      break;
    default: return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  }
  return send_to_host(sl, IDENTIFY_SIZE, delay);
}

uint16_t NvmeController::send_to_host(Slot& sl, uint32_t bytes, Tick& delay) {
  uint16_t st = walk_prps(sl, bytes, delay);
  if (st) return st;
  if (!move_data(sl, true, bytes, delay)) return status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR);
  return 0;
}

void NvmeController::io_busy(bool begins) {
  if (begins && io_outstanding_++ == 0) busy_since_ = now_ps();
  if (!begins && --io_outstanding_ == 0) busy_ps_ += now_ps() - busy_since_;
}

namespace {
void put128(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }  // the high half stays zero
}  // namespace

// Get Log Page: Error Information (the last 16 errors, newest first),
// SMART / Health from the controller's counters and the firmware's media
// wear, Firmware Slot. Offsets and 32-bit lengths are honoured (LPA bit 2).
uint16_t NvmeController::admin_get_log_page(Slot& sl, Tick& delay) {
  const Sqe& c = sl.sqe;
  uint8_t lid = c.cdw10 & 0xFF;
  uint64_t dwords = ((uint64_t(c.cdw11 & 0xFFFF) << 16) | (c.cdw10 >> 16)) + 1;
  uint64_t offset = c.cdw12 | (uint64_t(c.cdw13) << 32), bytes = dwords * 4;
  if (bytes > (uint64_t(kHostPage) << mdts_) || (offset & 3)) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  std::vector<uint8_t> log;
  switch (lid) {
    case LOG_ERROR: {
      log.assign(ERROR_LOG_ENTRIES * ERROR_ENTRY_SIZE, 0);
      for (size_t i = 0; i < error_log_.size(); ++i) {
        const ErrorEntry& e = error_log_[i];
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
      MediaHealth h = fw->health();
      // Temperature is not modeled: 0 (no reading). No spare is ever lost: bad blocks are not modeled.
      d[smart::AVAILABLE_SPARE] = 100;
      d[smart::SPARE_THRESHOLD] = 10;
      d[smart::PERCENT_USED] = static_cast<uint8_t>(std::min(255.0, std::floor(h.mean_erase_count * 100 / h.endurance)));
      put128(d + smart::DATA_UNITS_READ, (bytes_read_.value + 511999) / 512000);  // thousands of 512-byte units
      put128(d + smart::DATA_UNITS_WRITTEN, (bytes_written_.value + 511999) / 512000);
      put128(d + smart::HOST_READS, read_cmds_.value);
      put128(d + smart::HOST_WRITES, write_cmds_.value);
      Tick busy = busy_ps_ + (io_outstanding_ ? now_ps() - busy_since_ : 0);
      put128(d + smart::BUSY_MINUTES, busy / (60 * SEC));
      put128(d + smart::POWER_CYCLES, 1 + h.unsafe_shutdowns);
      put128(d + smart::POWER_ON_HOURS, now_ps() / (3600 * SEC));
      put128(d + smart::UNSAFE_SHUTDOWNS, h.unsafe_shutdowns);
      put128(d + smart::ERROR_ENTRIES, errors_.value);
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
  if (sl.buf.size() < bytes) sl.buf.resize(bytes);
  std::memset(sl.buf.data(), 0, bytes);  // past the end of the log: zeros
  std::memcpy(sl.buf.data(), log.data() + offset, std::min<uint64_t>(bytes, log.size() - offset));
  return send_to_host(sl, static_cast<uint32_t>(bytes), delay);
}

uint16_t NvmeController::admin_features(Slot& sl) {
  const Sqe& c = sl.sqe;
  uint8_t fid = c.cdw10 & 0xFF;
  bool set = c.opcode() == ADMIN_SET_FEATURES;
  switch (fid) {
    case FEAT_NUM_QUEUES: {
      if (set) {
        uint32_t nsqr = c.cdw11 & 0xFFFF, ncqr = c.cdw11 >> 16;
        if (nsqr == 0xFFFF || ncqr == 0xFFFF) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
        nsq_alloc_ = static_cast<uint16_t>(std::min(nsqr + 1, max_queues_));
        ncq_alloc_ = static_cast<uint16_t>(std::min(ncqr + 1, max_queues_));
      }
      uint32_t nsq = nsq_alloc_ ? nsq_alloc_ : max_queues_, ncq = ncq_alloc_ ? ncq_alloc_ : max_queues_;
      sl.dw0 = (nsq - 1) | ((ncq - 1) << 16);
      return 0;
    }
    case FEAT_ARBITRATION:
    case FEAT_IRQ_COALESCE: return 0;  // accepted; round robin and no coalescing for now
    default: return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  }
}

uint16_t NvmeController::admin_create_cq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF, size = (c.cdw10 >> 16) + 1;
  bool pc = c.cdw11 & 1, ien = c.cdw11 & 2;
  uint32_t iv = c.cdw11 >> 16;
  uint32_t limit = ncq_alloc_ ? ncq_alloc_ : max_queues_;
  if (qid == 0 || qid > limit || cqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  if (size < 2 || size > max_entries_) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QSIZE, true);
  if (iv > max_queues_) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_VECTOR, true);
  if (!pc || c.prp1 == 0 || c.prp1 % kHostPage) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  CompQueue& q = cqs_[qid];
  q = CompQueue{};
  q.valid = true;
  q.base = c.prp1;
  q.size = size;
  q.ien = ien;
  q.vector = static_cast<uint16_t>(iv);
  return 0;
}

uint16_t NvmeController::admin_create_sq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF, size = (c.cdw10 >> 16) + 1;
  bool pc = c.cdw11 & 1;
  uint32_t cqid = c.cdw11 >> 16;
  uint32_t limit = nsq_alloc_ ? nsq_alloc_ : max_queues_;
  if (qid == 0 || qid > limit || sqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  if (size < 2 || size > max_entries_) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QSIZE, true);
  if (cqid == 0 || cqid > max_queues_ || !cqs_[cqid].valid) return status(SCT_COMMAND_SPECIFIC, SC_CQ_INVALID, true);
  if (!pc || c.prp1 == 0 || c.prp1 % kHostPage) return status(SCT_GENERIC, SC_INVALID_FIELD, true);
  sqs_[qid] = SubQueue{true, c.prp1, size, 0, 0, static_cast<uint16_t>(cqid)};
  top_sq_ = std::max(top_sq_, qid);
  return 0;
}

uint16_t NvmeController::admin_delete_sq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF;
  if (qid == 0 || qid > max_queues_ || !sqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  sqs_[qid] = SubQueue{};
  waiting_ -= sq_occupancy_[qid];
  sq_occupancy_[qid] = 0;
  return 0;
}

uint16_t NvmeController::admin_delete_cq(const Sqe& c) {
  uint32_t qid = c.cdw10 & 0xFFFF;
  if (qid == 0 || qid > max_queues_ || !cqs_[qid].valid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QID, true);
  for (const auto& sq : sqs_)
    if (sq.valid && sq.cqid == qid) return status(SCT_COMMAND_SPECIFIC, SC_INVALID_QUEUE_DELETION, true);
  cqs_[qid] = CompQueue{};
  return 0;
}

}  // namespace vp::ssd
