// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Linux md software RAID (drivers/md) over the host's NVMe namespaces: the
// array /dev/md0 is a block device whose I/Os md splits into member I/Os,
// each submitted to its member's blk-mq queue on the submitting core, and
// which completes when its last member I/O does (worst status first).
//
// RAID-0 (raid0.c): the array is cut in chunks of `chunk` bytes dealt round
// robin over the members, chunk c on member c mod n at member offset
// (c / n) * chunk; an I/O is split where it crosses a chunk boundary.
// RAID-1 (raid1.c): a write goes to every member at the same offset; a read
// to one, the member with the fewest of the array's I/Os in flight (lowest
// index on a tie), as read_balance prefers an idle non-rotational disk.
// RAID-5 (raid5.c, left-symmetric, mdadm's default): stripe s holds n - 1
// data chunks and one parity chunk; its parity is on member n - 1 - s mod n
// and its data chunks follow the parity member round robin. A read goes to
// the data chunks as RAID-0's. A write is handled a 4 KiB row of the stripe
// (a stripe head: one page per member) at a time: a row whose n - 1 data
// pages are all written is a full write (parity from the new data); else
// md reads first, the old data of the pages written and the old parity
// (read-modify-write) or the data pages not written (reconstruct-write),
// whichever reads fewer pages (reconstruct on a tie), computes the parity
// (XOR, CPU time at xor_rate on the core that completed the last read) and
// then writes the data and parity pages. Member I/Os are one per member and
// run of adjacent rows. Rows are held by one write at a time: a write that
// needs a row another holds, or more stripe heads than are free
// (stripe_cache, Linux's stripe_cache_size), waits, first come first served.
// A flush goes to every member in every level.
//
// Arrays as `mdadm --build` makes them (RAID-0, RAID-1) and as mdadm
// --create would with no superblock space (RAID-5): the members' whole
// capacity is data (RAID-0: n times the smallest member, rounded down to
// whole chunks; RAID-1: the smallest member; RAID-5: n - 1 times that).
// Each member I/O costs the core bio_cost (bio_split, the remap,
// generic_make_request) on top of its blk-mq costs.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "vp/core/ParamScope.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/host/block/HostBlockDriver.hpp"
#include "vp/host/block/IoRequest.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"

namespace vp::host {

class MdRaid {
 public:
  enum class Level { None, Raid0, Raid1, Raid5 };
  // The array's keys and statistics ("host.md").
  static constexpr const char* kScope = "host.md";
  static constexpr const char* kPath = "/dev/md0";
  static constexpr uint32_t kPage = 4096;  // a stripe head's page (Linux's STRIPE_SIZE)
  static void declare_params(const ParamScope& md);
  static Level level_from(const ScopedConfig& md);
  // The array's data bytes over `members` members of `member_bytes` each.
  static uint64_t capacity(Level level, uint64_t chunk, uint64_t member_bytes, unsigned members);
  // Host memory the array's stripe cache takes (RAID-5), for the platform's check.
  static uint64_t stripe_cache_bytes(const ScopedConfig& md, unsigned members);
  // The most rows (stripe heads) a RAID-5 write of `bytes` can touch.
  static uint64_t max_rows(uint64_t bytes, uint64_t chunk, unsigned members);

  // `members`: the block devices (their indices on the host) it is built
  // on; `memory`: where RAID-5's stripe cache comes from, `host_ptr` the
  // same memory as the cores reach it (to compute parity).
  MdRaid(const ScopedConfig& cfg, const StatGroup& stats, std::vector<unsigned> members, HostMemoryAllocator& memory,
         std::function<uint8_t*(uint64_t)> host_ptr);
  ~MdRaid();

  Level level() const { return level_; }
  const std::vector<unsigned>& members() const { return members_; }
  Tick bio_cost() const { return bio_cost_; }
  // What a job sees of the array, from its members' (all up).
  ControllerInfo info(const std::vector<const ControllerInfo*>& members) const;
  // The member I/Os to submit now for `io` (an I/O on the array), each
  // naming its member device in `dev` (valid until the next call, which
  // another core may make while this one is busy: copy it). Empty for a
  // RAID-5 write that waits for its stripe heads: its member I/Os come
  // out of a later fan_in. `cpu`: what md spends first on the submitting
  // core besides bio_cost per member I/O (a full RAID-5 row's parity).
  const std::vector<IoRequest*>& split(IoRequest& io, Tick& cpu);
  const std::vector<IoRequest*>& split(IoRequest& io) {
    Tick cpu = 0;
    return split(io, cpu);
  }
  // What a completed member I/O asks of the core that reaped it: member
  // I/Os to submit now (a RAID-5 write's after its reads; writes that
  // waited for stripe heads) and the CPU md spends first (parity).
  struct Next {
    std::vector<IoRequest*> submit;
    Tick cpu = 0;
  };
  // A member I/O completed: the array's I/O when it was its last, else
  // nullptr; nullptr too for an I/O that is not a member I/O of this array.
  IoRequest* fan_in(IoRequest& member_io, Next& next);
  IoRequest* fan_in(IoRequest& member_io) {
    Next n;
    return fan_in(member_io, n);
  }
  bool carries(const IoRequest& r) const { return of_.count(&r) != 0; }

 private:
  struct Parent;
  // RAID-5 (see the file comment).
  struct Row {  // one stripe head of a write
    uint64_t stripe, row;  // member offset: stripe * chunk + row * kPage
    std::vector<uint64_t> written;  // per data slot: bytes of the new data in this page, 0 if none
    bool rmw = false;
  };
  struct Placement {
    unsigned member;
    uint64_t member_lba;
  };
  Placement data_place(uint64_t chunk_index, uint64_t lba_in_chunk, uint64_t chunk_lbas) const;
  unsigned parity_member(uint64_t stripe) const;
  unsigned data_member(uint64_t stripe, unsigned slot) const;
  void plan_write(Parent& p);
  bool try_start(Parent& p, std::vector<IoRequest*>& out, Tick& cpu);
  void issue_phase(Parent& p, bool reads, std::vector<IoRequest*>& out);
  Tick compute_parity(Parent& p);
  void release(Parent& p, std::vector<IoRequest*>& out, Tick& cpu);

  IoRequest& child(IoRequest& io, Parent& p, unsigned member, uint64_t lba, uint64_t byte_off, uint32_t bytes,
                   std::vector<IoRequest*>& out);
  Level level_;
  uint64_t chunk_bytes_;
  Tick bio_cost_;
  double xor_bytes_per_ps_;
  std::vector<unsigned> members_;
  std::vector<uint64_t> in_flight_;  // the array's I/Os on each member (RAID-1's read balance)
  std::vector<IoRequest*> out_;
  std::vector<std::unique_ptr<IoRequest>> pool_;
  std::vector<IoRequest*> free_;
  std::vector<std::unique_ptr<Parent>> parent_pool_;
  std::vector<Parent*> free_parents_;
  std::unordered_map<const IoRequest*, std::pair<Parent*, unsigned>> of_;  // member I/O -> its array I/O, member
  // RAID-5's stripe cache: page slots of host memory, the rows held, the writes waiting.
  HostMemoryAllocator* memory_;
  std::function<uint8_t*(uint64_t)> host_ptr_;
  uint64_t cache_base_ = 0;
  unsigned heads_ = 0;
  std::vector<uint32_t> free_heads_;
  std::map<std::pair<uint64_t, uint64_t>, Parent*> held_;  // (stripe, row) -> the write holding it
  std::deque<Parent*> waiting_;
  struct Stats {
    explicit Stats(const StatGroup& s);
    Counter &ios, &member_ios, &reads_balanced, &full_rows, &rmw_rows, &rcw_rows, &parity_bytes, &stripe_waits;
  };
  Stats st_;
};

}  // namespace vp::host
