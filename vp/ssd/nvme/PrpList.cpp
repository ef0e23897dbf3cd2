// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/nvme/PrpList.hpp"

#include <algorithm>

#include "vp/nvme/NvmeSpec.hpp"

namespace vp::ssd {

using nvme::SC_DATA_TRANSFER_ERROR;
using nvme::SC_PRP_OFFSET_INVALID;
using nvme::SCT_GENERIC;
using nvme::status;

uint16_t PrpList::walk(uint64_t prp1, uint64_t prp2, uint32_t bytes, const Dma& dma, Tick& delay) {
  segs_.clear();
  if (prp1 & 3) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
  uint32_t first = std::min<uint32_t>(bytes, page_ - static_cast<uint32_t>(prp1 % page_));
  segs_.push_back({prp1, first});
  uint32_t left = bytes - first;
  if (left == 0) return 0;
  if (left <= page_) {
    if (prp2 % page_) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
    segs_.push_back({prp2, left});
    return 0;
  }
  // PRP2 points to a list; the last entry of a full list page chains to the next.
  if (prp2 & 7) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
  uint64_t list = prp2;
  uint32_t entries = (left + page_ - 1) / page_;
  while (entries > 0) {
    uint32_t room = static_cast<uint32_t>((page_ - list % page_) / 8);
    uint32_t take = entries <= room ? entries : room - 1;
    uint32_t read = entries <= room ? entries : room;
    std::vector<uint64_t> e(read);
    Tick d = delay;
    if (!dma(tlm::TLM_READ_COMMAND, list, reinterpret_cast<uint8_t*>(e.data()), read * 8, d))
      return status(SCT_GENERIC, SC_DATA_TRANSFER_ERROR);
    delay = d;
    for (uint32_t i = 0; i < take; ++i) {
      if (e[i] % page_) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
      uint32_t len = std::min(left, page_);
      segs_.push_back({e[i], len});
      left -= len;
    }
    entries -= take;
    if (entries > 0) {
      list = e[room - 1];  // an entry of a list like any other: page aligned (only PRP2 may have an offset)
      if (list % page_) return status(SCT_GENERIC, SC_PRP_OFFSET_INVALID, true);
    }
  }
  return 0;
}

bool PrpList::move(uint8_t* buf, bool to_host, uint32_t bytes, const Dma& dma, Tick& delay) const {
  Tick start = delay, end = delay;
  uint32_t done = 0;
  for (const auto& seg : segs_) {
    if (done >= bytes) break;
    uint32_t len = std::min(seg.len, bytes - done);
    Tick d = start;
    if (!dma(to_host ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, seg.addr, buf + done, len, d)) return false;
    end = std::max(end, d);
    done += len;
  }
  delay = end;
  return true;
}

}  // namespace vp::ssd
