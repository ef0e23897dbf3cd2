#pragma once
// Checks that what was written reads back intact (fio's verify, done in
// line). Every written logical block is filled with a pattern derived from
// its LBA and a write version; a read compares each block against the last
// write that completed alone. Blocks written by overlapping writes, or
// written while a read of them was in flight, are not judged.
#include <cstdint>
#include <functional>
#include <utility>
#include <unordered_map>
#include <vector>

#include "vp/host/IoRequest.hpp"

namespace vp::host {

class VerifyTracker {
 public:
  explicit VerifyTracker(uint32_t lba_size) : lba_size_(lba_size) {}

  void write_issued(IoRequest& r);   // fills r.buf with the pattern
  void write_completed(const IoRequest& r);
  void read_issued(IoRequest& r);
  void read_completed(const IoRequest& r);
  // After a power loss: every block whose last write completed, with no
  // write to it in flight, must hold that write when read through `read`
  // (which fills one logical block). Returns blocks checked and mismatches.
  std::pair<uint64_t, uint64_t> check_durable(const std::function<void(uint64_t lba, uint8_t* buf)>& read) const;
  uint64_t blocks_checked() const { return checked_; }
  uint64_t mismatches() const { return mismatches_; }
  uint64_t first_bad_lba() const { return first_bad_; }

 private:
  static constexpr uint32_t kUnknown = 0xFFFFFFFF;
  struct Block {
    uint32_t version = 0;   // 0: never written (reads as zeros)
    uint32_t writers = 0;   // writes in flight
    bool contended = false; // two writes overlapped: the final content is not known
  };
  void fill(uint8_t* p, uint64_t lba, uint32_t version) const;
  bool overlaps_write_in_flight(uint64_t lba, uint32_t nlb) const;

  uint32_t lba_size_;
  uint32_t next_version_ = 1;
  std::unordered_map<uint64_t, Block> blocks_;
  std::unordered_map<const IoRequest*, uint32_t> write_versions_;
  std::vector<IoRequest*> reads_in_flight_;
  std::unordered_map<const IoRequest*, bool> read_tainted_;
  uint64_t checked_ = 0, mismatches_ = 0, first_bad_ = UINT64_MAX;
};

}  // namespace vp::host
