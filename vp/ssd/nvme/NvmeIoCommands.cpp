// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/nvme/NvmeIoCommands.hpp"

#include <algorithm>
#include <cstring>

namespace vp::ssd {

using namespace vp::nvme;

namespace {
constexpr uint32_t kHostPage = 4096;  // CAP.MPSMIN = MPSMAX = 0
}  // namespace

void NvmeIoCommands::execute(uint32_t s) {
  Slot& sl = c_.slots_[s];
  const Sqe& c = sl.sqe;
  uint8_t op = c.opcode();
  if (op != IO_READ && op != IO_WRITE && op != IO_FLUSH && op != IO_WRITE_ZEROES && op != IO_DSM && op != IO_COMPARE)
    return c_.complete(s, status(SCT_GENERIC, SC_INVALID_OPCODE, true));
  if (op == IO_FLUSH) {
    if (c.nsid != 1 && c.nsid != 0xFFFFFFFFu) return c_.complete(s, status(SCT_GENERIC, SC_INVALID_NAMESPACE, true));
  } else if (c.nsid != 1) {
    return c_.complete(s, status(SCT_GENERIC, SC_INVALID_NAMESPACE, true));
  }
  if ((c.cdw0 >> 8 & 3) != 0 || c.psdt() != 0)  // fused operations and SGLs are not supported
    return c_.complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  HostCommand& hc = sl.hc;
  hc.sqid = sl.sqid;
  hc.cdw2 = c.cdw2;
  hc.cdw3 = c.cdw3;
  hc.attr = c.attr();  // FlashShare's workload attribute (rsvd2)
  hc.victim = c.victim();  // FastDrain's page-victimization tag
  hc.victim_pages = c.victim_pages();
  hc.fua = (op == IO_WRITE || op == IO_READ) && (c.cdw12 & RW_FUA);
  hc.result = 0;
  if (sl.rec) sl.rec->attr = hc.attr;
  sl.steps.clear();
  sl.step = 0;
  sl.compare = op == IO_COMPARE;
  if (op == IO_DSM) return dsm(s);
  if (op == IO_WRITE_ZEROES) return write_zeroes(s);
  if (op == IO_FLUSH) {
    hc.op = IoOp::Flush;
    hc.bytes = 0;
    hc.byte_offset = 0;
    hc.data = nullptr;
    c_.fw->submit(hc);
    return;
  }
  read_write(s);
}

// Read, Write and Compare: the range and size checked, the PRPs resolved,
// a write's data fetched into the staging buffer before the firmware sees it.
void NvmeIoCommands::read_write(uint32_t s) {
  Slot& sl = c_.slots_[s];
  const Sqe& c = sl.sqe;
  uint8_t op = c.opcode();
  HostCommand& hc = sl.hc;
  uint64_t slba = c.slba(), nlb = c.nlb();
  if (slba + nlb > c_.namespace_lbas() || slba + nlb < slba)
    return c_.complete(s, status(SCT_GENERIC, SC_LBA_OUT_OF_RANGE, true));
  uint64_t bytes = nlb * c_.lba_size_;
  if (bytes > (uint64_t(kHostPage) << c_.mdts_)) return c_.complete(s, status(SCT_GENERIC, SC_INVALID_FIELD, true));
  Tick delay = 0;
  uint16_t st = c_.walk_prps(sl, static_cast<uint32_t>(bytes), delay);
  if (st != 0) return c_.complete(s, st, delay);
  if (sl.buf.size() < bytes) sl.buf.resize(bytes);  // buffers grow to the largest transfer seen
  hc.op = op == IO_WRITE ? IoOp::Write : IoOp::Read;  // a Compare reads the media first
  ++(op == IO_WRITE ? c_.st_.write_cmds : c_.st_.read_cmds);  // SMART counts a Compare as a host read
  hc.byte_offset = slba * c_.lba_size_;
  hc.bytes = static_cast<uint32_t>(bytes);
  hc.data = sl.buf.data();
  ++c_.st_.io_cmds;
  if (hc.op == IoOp::Write) {
    c_.st_.bytes_written += bytes;
    c_.fw->prefetch(hc);  // the firmware sees it after the data's transfer
    transfer(c_.from_host_.get(), s, delay, &NvmeIoCommands::fetch_write_data);  // after the PRP list
  } else {
    c_.st_.bytes_read += bytes;
    if (delay == 0) return c_.fw->submit(hc);
    c_.eq_.after(delay, [this, s] { c_.fw->submit(c_.slots_[s].hc); });  // PRP list fetched first
  }
}

// Dataset Management: the range list comes by DMA; with the deallocate
// attribute every range is trimmed in the FTL, the others are hints only.
void NvmeIoCommands::dsm(uint32_t s) {
  Slot& sl = c_.slots_[s];
  const Sqe& c = sl.sqe;
  uint32_t ranges = (c.cdw10 & 0xFF) + 1, bytes = ranges * DSM_RANGE_SIZE;
  Tick delay = 0;
  uint16_t st = c_.walk_prps(sl, bytes, delay);
  if (st != 0) return c_.complete(s, st, delay);
  if (sl.buf.size() < bytes) sl.buf.resize(bytes);
  if (!c_.move_data(sl, false, bytes, delay)) return c_.complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
  ++c_.st_.io_cmds;
  // The FTL takes at most 1 GiB per request; a range is split below that.
  const uint64_t piece = (uint64_t(1) << 30) / c_.lba_size_ * c_.lba_size_;
  for (uint32_t r = 0; r < ranges; ++r) {
    const uint8_t* d = sl.buf.data() + r * DSM_RANGE_SIZE;
    uint32_t nlb;
    uint64_t slba;
    std::memcpy(&nlb, d + 4, 4);
    std::memcpy(&slba, d + 8, 8);
    if (nlb == 0) continue;
    if (slba + nlb > c_.namespace_lbas() || slba + nlb < slba)
      return c_.complete(s, status(SCT_GENERIC, SC_LBA_OUT_OF_RANGE, true), delay);
    if (!(c.cdw11 & DSM_AD)) continue;
    for (uint64_t off = slba * c_.lba_size_, end = (slba + nlb) * c_.lba_size_; off < end; off += piece)
      sl.steps.push_back({IoOp::Trim, off, static_cast<uint32_t>(std::min(piece, end - off))});
  }
  if (sl.steps.empty()) return c_.complete(s, 0, delay);
  c_.eq_.after(delay, [this, s] {
    if (c_.slots_[s].generation != c_.generation_) return c_.release(s);
    run_step(s);
  });
}

// Write Zeroes: zeros written like data (durable, unlike a deallocation),
// in MDTS-sized requests; nothing crosses PCIe.
void NvmeIoCommands::write_zeroes(uint32_t s) {
  Slot& sl = c_.slots_[s];
  const Sqe& c = sl.sqe;
  uint64_t slba = c.slba(), nlb = c.nlb();
  if (slba + nlb > c_.namespace_lbas() || slba + nlb < slba)
    return c_.complete(s, status(SCT_GENERIC, SC_LBA_OUT_OF_RANGE, true));
  ++c_.st_.io_cmds;
  const uint64_t piece = uint64_t(kHostPage) << c_.mdts_;
  uint64_t end = (slba + nlb) * c_.lba_size_;
  for (uint64_t off = slba * c_.lba_size_; off < end; off += piece)
    sl.steps.push_back({IoOp::Write, off, static_cast<uint32_t>(std::min(piece, end - off))});
  sl.buf.assign(std::max<size_t>(sl.buf.size(), std::min(piece, end - slba * c_.lba_size_)), 0);
  run_step(s);
}

void NvmeIoCommands::run_step(uint32_t s) {
  Slot& sl = c_.slots_[s];
  const Step& st = sl.steps[sl.step];
  sl.hc.op = st.op;
  sl.hc.byte_offset = st.offset;
  sl.hc.bytes = st.bytes;
  sl.hc.data = st.op == IoOp::Write ? sl.buf.data() : nullptr;
  if (st.op == IoOp::Write) c_.st_.bytes_written += st.bytes;
  c_.fw->submit(sl.hc);
}

// The firmware has the command's data: it goes to the host (a read), is
// compared with the host's (a Compare), and the command completes.
void NvmeIoCommands::finish(uint32_t s) {
  Slot& sl = c_.slots_[s];
  HostCommand& hc = sl.hc;
  if (sl.rec) sl.rec->clock.mark(Stage::Flash, now_ps());
  // The media's data is written into the staging buffer; a read's is then
  // read out of it for the DMA to the host.
  Tick delay = 0;
  if (hc.op == IoOp::Read) delay = c_.stage(s, hc.bytes, true, now_ps()) - now_ps();
  if (sl.compare) {  // fetch the host's data and compare it with the media's
    sl.media.assign(sl.buf.begin(), sl.buf.begin() + hc.bytes);
    if (!c_.move_data(sl, false, hc.bytes, delay)) return c_.complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
    if (sl.rec) sl.rec->clock.mark(Stage::DataDma, now_ps() + delay);
    bool same = std::equal(sl.media.begin(), sl.media.end(), sl.buf.begin());
    return c_.complete(s, same ? 0 : status(SCT_MEDIA, SC_COMPARE_FAILURE), delay);
  }
  if (hc.op != IoOp::Read) return c_.complete(s, 0);
  transfer(c_.to_host_.get(), s, delay, &NvmeIoCommands::send_read_data);  // once staged
}

void NvmeIoCommands::transfer(DataDmaQueue* queue, uint32_t s, Tick delay,
                              Tick (NvmeIoCommands::*move)(uint32_t, Tick)) {
  if (!queue) {
    (this->*move)(s, delay);
    return;
  }
  bool latency = c_.slots_[s].hc.attr != 0;
  c_.eq_.after(delay, [queue, s, latency] { queue->submit(s, latency); });
}

Tick NvmeIoCommands::fetch_write_data(uint32_t s, Tick delay) {
  Slot& sl = c_.slots_[s];
  if (!c_.move_data(sl, false, sl.hc.bytes, delay)) {
    c_.complete(s, status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), delay);
    return now_ps() + delay;
  }
  // The fetched data lands in the staging buffer before firmware sees the command.
  Tick staged = c_.stage(s, sl.hc.bytes, true, now_ps() + delay);
  c_.eq_.at(staged, [this, s] {
    Slot& w = c_.slots_[s];
    if (w.generation != c_.generation_) return c_.release(s);
    if (w.rec) w.rec->clock.mark(Stage::DataDma, now_ps());
    c_.fw->submit(w.hc);
  });
  return staged;
}

Tick NvmeIoCommands::send_read_data(uint32_t s, Tick delay) {
  Slot& sl = c_.slots_[s];
  delay = c_.stage(s, sl.hc.bytes, false, now_ps() + delay) - now_ps();
  bool ok = c_.move_data(sl, true, sl.hc.bytes, delay);
  if (sl.rec) sl.rec->clock.mark(Stage::DataDma, now_ps() + delay);
  // The entry is posted right behind the data; the link keeps them in order.
  c_.complete(s, ok ? 0 : status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR), ok ? 0 : delay);
  return now_ps() + delay;
}

}  // namespace vp::ssd
