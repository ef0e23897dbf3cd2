// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Checks that what was written reads back intact (fio's verify, done in
// line). Every written logical block is filled with a pattern derived from
// its LBA and a write version; a read compares each block against the last
// write that completed alone. Blocks written by overlapping writes, or
// written while a read of them was in flight, are not judged.
//
// After a power loss it checks what the NVMe contract promises, no more and
// no less: a block must hold its last acknowledged write if that write was
// made durable (completed while the device reported no volatile write cache,
// or before a completed Flush, or an fsync of the buffered job that wrote
// it), else any write of it at or after the last durable one, and never one
// older than what the device itself put on its media (`persisted`).
#include <cstdint>
#include <functional>
#include <utility>
#include <unordered_map>
#include <vector>

#include "vp/host/block/IoRequest.hpp"

namespace vp::host {

class VerifyTracker {
 public:
  // How a completed write's durability is promised to the host.
  enum class Durability : uint8_t {
    Volatile,  // direct, the device has a volatile write cache: durable after a Flush
    Durable,   // direct, no volatile write cache (or FUA): durable at completion
    Buffered,  // into the host's page cache: durable after its job's fsync
  };
  // What a block held after the power loss.
  struct PowerLossReport {
    uint64_t checked = 0;      // blocks with an acknowledged write
    uint64_t intact = 0;       // hold their last acknowledged write (or a newer one in flight)
    uint64_t not_durable = 0;  // an older write: acknowledged, not durable (volatile cache)
    uint64_t not_drained = 0;  // an older write, on a page the drive could not drain in its hold-up time
    uint64_t torn = 0;         // parts of one block from different writes (counted in the above)
    uint64_t mismatches = 0;   // anything else: a durable write lost, or data never written
    uint64_t first_bad = UINT64_MAX;
  };

  explicit VerifyTracker(uint32_t lba_size) : lba_size_(lba_size), part_(lba_size) {}
  // A run with no power loss to come (the platform knows at elaboration)
  // keeps no per-block write history: reads are judged against each
  // block's last write alone, in a fraction of the memory. Call before the
  // first write; check_power_loss() then refuses to run.
  void keep_history(bool on) { history_on_ = on; }
  // The unit the device persists a block in (its flash page, at most the
  // block): after a power loss a block's parts may hold different writes.
  void set_part_bytes(uint32_t bytes) { part_ = bytes && bytes < lba_size_ && lba_size_ % bytes == 0 ? bytes : lba_size_; }

  void write_issued(IoRequest& r);   // fills r.buf with the pattern
  void write_completed(const IoRequest& r, Durability d = Durability::Volatile);
  void read_issued(IoRequest& r);
  void read_completed(const IoRequest& r);
  // `job`'s fsync starts (its writes have completed) and ends; `flushed`:
  // it sent the device a Flush, which also made every direct write that
  // completed before the fsync began durable.
  void sync_started(const void* job);
  void synced(const void* job, bool flushed);
  // The device put `len` bytes at byte `offset` of block `lba` on its media.
  void persisted(uint64_t lba, uint32_t offset, const uint8_t* data, uint32_t len);
  // The host lost power: what it does afterwards never happened.
  void freeze() { frozen_ = true; }

  // After a power loss: reads every block with an acknowledged write
  // through `read` (which fills one logical block). `undrained(lba)`: the
  // drive reported the block among what its hold-up time did not save.
  PowerLossReport check_power_loss(const std::function<void(uint64_t lba, uint8_t* buf)>& read,
                                   const std::function<bool(uint64_t lba)>& undrained = nullptr) const;
  uint64_t blocks_checked() const { return checked_; }
  uint64_t mismatches() const { return mismatches_; }
  uint64_t first_bad_lba() const { return first_bad_; }

 private:
  static constexpr uint32_t kUnknown = 0xFFFFFFFF;
  struct Block {  // 8 bytes: one per block ever written
    uint32_t version = 0;        // 0: never written (reads as zeros)
    uint32_t writers : 31;       // writes in flight
    uint32_t contended : 1;      // two writes overlapped: the final content is not known
    Block() : writers(0), contended(0) {}
  };
  struct Write {
    uint32_t version;
    uint64_t cseq = 0;  // completion order (0: in flight)
    const void* job = nullptr;
    Durability durability = Durability::Volatile;
    bool ok = false;  // completed with success: acknowledged
  };
  // A block's writes from its last durable one on, oldest first, and per
  // part the newest version the device persisted.
  struct History {
    std::vector<Write> writes;
    std::vector<uint32_t> persisted;
  };
  void fill(uint8_t* p, uint64_t lba, uint32_t version) const;
  bool overlaps_write_in_flight(uint64_t lba, uint32_t nlb) const;
  bool host_durable(const Write& w) const;
  void prune(History& h) const;

  uint32_t lba_size_, part_;
  uint32_t next_version_ = 1;
  std::unordered_map<uint64_t, Block> blocks_;
  std::unordered_map<const IoRequest*, uint32_t> write_versions_;
  std::vector<IoRequest*> reads_in_flight_;
  std::unordered_map<const IoRequest*, bool> read_tainted_;
  uint64_t checked_ = 0, mismatches_ = 0, first_bad_ = UINT64_MAX;
  // Durability.
  std::unordered_map<uint64_t, History> history_;
  uint64_t cseq_ = 0, flushed_upto_ = 0;
  std::unordered_map<const void*, uint64_t> sync_start_, synced_upto_;
  bool frozen_ = false;
  bool history_on_ = true;
};

}  // namespace vp::host
