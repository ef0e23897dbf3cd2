// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The accelerator's content-addressable memory for one SQ (FlashShare
// OSDI'18 Fig 7b): per SQ slot, the command's direction and LBA range, the
// bio segments it carries and the bios' tags, with the status bitmap: a
// slot's bit is set when the merge logic writes the command and cleared
// when the SSD fetches it. Only a slot whose bit is set may still change. A
// search compares every slot at once (the hardware's parallel match), so it
// costs the same whatever the SQ holds.
#include <cstdint>
#include <vector>

namespace vp::accel {

struct BioSeg {
  uint64_t addr = 0;
  uint32_t len = 0;
};

class SqCam {
 public:
  struct Entry {
    bool valid = false;  // status bit: written, not yet fetched by the SSD
    bool busy = false;   // the SSD has not completed it
    bool write = false;
    uint64_t slba = 0;
    uint32_t nlb = 0;
    std::vector<BioSeg> segs;
    std::vector<uint32_t> tags;  // the bios it carries, in LBA order
  };
  struct Hit {
    int slot = -1;       // -1: none
    bool front = false;  // the bio precedes the entry (else it continues it)
  };

  explicit SqCam(uint32_t slots) : e_(slots) {}
  uint32_t slots() const { return static_cast<uint32_t>(e_.size()); }
  Entry& at(uint32_t s) { return e_[s]; }
  const Entry& at(uint32_t s) const { return e_[s]; }
  // A valid slot of the same direction whose range the bio's continues
  // (first) or precedes; the oldest such slot from `oldest` on.
  Hit adjacent(bool write, uint64_t slba, uint32_t nlb, uint32_t oldest) const;
  // A valid or busy slot whose range overlaps the bio's.
  bool overlaps(uint64_t slba, uint32_t nlb) const;
  // The SSD read `count` entries from slot `from` on: their bits clear.
  void fetched(uint32_t from, uint32_t count);
  uint32_t valid() const;

 private:
  std::vector<Entry> e_;
};

}  // namespace vp::accel
