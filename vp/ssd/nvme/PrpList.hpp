// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A command's data pointers as PRPs (NVMe 1.4 sec. 4.3), as a controller
// resolves them: PRP1 points to the first page and may carry a dword-aligned
// offset; a transfer within two pages has its second page in PRP2; a longer
// one has in PRP2 the address of a PRP list (8-byte entries, page-aligned
// pages), whose last entry in a full list page points to the next list page.
// walk() builds the segments, reading list pages from host memory; move()
// copies a buffer to or from them, all segments issued at once.
#include <cstdint>
#include <functional>
#include <tlm>
#include <vector>

#include "vp/core/Units.hpp"

namespace vp::ssd {

class PrpList {
 public:
  struct Segment {
    uint64_t addr;
    uint32_t len;
    bool operator==(const Segment& o) const { return addr == o.addr && len == o.len; }
  };
  // One DMA access to host memory starting `delay` from now; `delay`
  // becomes when it ends. False on a bus error.
  using Dma = std::function<bool(tlm::tlm_command, uint64_t addr, uint8_t* p, uint32_t len, Tick& delay)>;

  explicit PrpList(uint32_t page_bytes = 4096) : page_(page_bytes) {}

  // The segments of a `bytes` transfer from PRP1 and PRP2; list reads add
  // their time to `delay`. Returns an NVMe status (0: success; PRP Offset
  // Invalid for a misaligned pointer, Data Transfer Error for a list that
  // cannot be read).
  uint16_t walk(uint64_t prp1, uint64_t prp2, uint32_t bytes, const Dma& dma, Tick& delay);
  // Copies `bytes` of `buf` to (`to_host`) or from the segments; `delay`
  // becomes when the last access ends. False on a bus error.
  bool move(uint8_t* buf, bool to_host, uint32_t bytes, const Dma& dma, Tick& delay) const;
  const std::vector<Segment>& segments() const { return segs_; }

 private:
  uint32_t page_;
  std::vector<Segment> segs_;
};

}  // namespace vp::ssd
