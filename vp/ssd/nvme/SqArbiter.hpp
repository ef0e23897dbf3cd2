// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Submission queue arbitration of the NVMe controller (NVMe 1.4, "Command
// Arbitration"), as pure logic. The controller tells the arbiter which SQs
// exist and when tail doorbells make entries visible, and whenever it may
// fetch it asks which SQ to fetch from and how many commands. No SystemC
// here: times are picoseconds passed in by the caller.
//
// Queues. qid 0 is the admin SQ; it always exists (from construction and
// after reset()) and cannot be added or removed. I/O SQs are added with the
// QPRIO of their Create I/O SQ command. An entry is pending from the doorbell
// that shows it until next() grants it; a grant hands out the oldest first
// and the caller must fetch exactly that many commands from the SQ's head.
//
// Turns (every mode). An SQ's turn may grant up to `burst` commands (the
// Arbitration Burst, 2^AB); with no limit, a turn is bounded by the entries
// the SQ holds when the turn starts, so a host that keeps refilling one SQ
// cannot hold the turn forever. A turn ends when its budget is spent or the
// SQ is empty, and the round robin of its class moves to the next SQ. A grant
// cut short only by `max_count` (free fetch slots) leaves the turn open: the
// next call goes on with the same SQ, so scarce slots do not shrink the burst.
//
// RoundRobin (CC.AMS 000b): the admin SQ and all I/O SQs, whatever their
//   QPRIO, share one round robin in qid order.
// WeightedRoundRobin (001b): the admin SQ strictly first, then the Urgent
//   class strictly (round robin inside), then High, Medium and Low by
//   weighted round robin. A round gives each of High, Medium, Low, in that
//   order, a credit of its weight in commands (HPW+1, MPW+1, LPW+1). The
//   class in hand is served while it has credit and entries; a class that
//   runs out of either forfeits the rest of its credit for this round, and
//   after Low a new round starts at High. A grant takes
//   min(turn budget left, class credit, entries, max_count), so with every
//   class backlogged a round is exactly weight_H High commands, then
//   weight_M Medium, then weight_L Low, whatever the burst. Admin and Urgent
//   grants spend no credit.
// FlashShare (111b, vendor specific; FlashShare OSDI'18 section 3.3): SQs
//   created Urgent or High are latency-critical (LS), Medium or Low are
//   throughput (TH). The admin SQ first; then LS SQs (round robin) whenever
//   any LS entry waits; TH SQs (round robin) only when none does. The
//   starvation guard: while LS entries wait, a TH SQ that holds more than
//   `drain_count` entries, or whose oldest entry has waited more than
//   `drain_age` (now - doorbell time > drain_age), is drained: every entry it
//   holds at that moment is granted before anything but the admin SQ is
//   served again; the burst does not cut a drain. When several TH SQs are due,
//   the first in TH round robin order goes first. Without LS entries waiting
//   TH is not starved, so the guard is not needed and TH SQs share fairly.
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <vector>

#include "vp/core/Units.hpp"

namespace vp::ssd {

enum class ArbMode : uint8_t { RoundRobin, WeightedRoundRobin, FlashShare };
enum class SqPriority : uint8_t { Urgent = 0, High = 1, Medium = 2, Low = 3 };  // QPRIO encoding

struct ArbiterConfig {
  ArbMode mode = ArbMode::RoundRobin;
  uint32_t burst = 1;  // commands per turn (2^AB); 0 = no limit (AB = 111b)
  uint32_t high_weight = 1, medium_weight = 1, low_weight = 1;  // commands per round: HPW+1, MPW+1, LPW+1
  uint32_t drain_count = 8;       // FlashShare: a TH SQ holding more than this is drained
  Tick drain_age = 200 * US;      // FlashShare: a TH entry waiting longer than this drains its SQ

  // CC.AMS to a mode; nothing for the reserved values 010b-110b.
  static std::optional<ArbMode> mode_from_ams(uint32_t ams);
  // Loads AB, LPW, MPW, HPW from the Arbitration feature (FID 01h) CDW11:
  // AB bits 2:0, LPW 15:8, MPW 23:16, HPW 31:24; the weights are 0's based.
  void set_arbitration_feature(uint32_t cdw11);
  uint32_t arbitration_feature() const;  // the same fields, for Get Features
};

// QPRIO of a Create I/O Submission Queue command: CDW11 bits 2:1.
inline SqPriority sq_priority(uint32_t create_sq_cdw11) { return SqPriority((create_sq_cdw11 >> 1) & 3); }

class SqArbiter {
 public:
  static constexpr Tick kNoDeadline = std::numeric_limits<Tick>::max();
  struct Grant {
    uint16_t qid;
    uint32_t count;
  };

  explicit SqArbiter(uint16_t max_qid);

  // Keeps the queues and their entries; restarts the round: credits full,
  // the round at High, open turns and any drain ended. Round robin positions
  // are kept so that reconfiguring does not favour low qids. Throws
  // std::invalid_argument on a zero weight.
  void configure(const ArbiterConfig& c);
  const ArbiterConfig& config() const { return cfg_; }
  // Removes every I/O SQ and every pending entry; the admin SQ stays, empty.
  void reset();

  // Throw std::invalid_argument for qid 0, a qid above max_qid, adding an SQ
  // that exists or removing one that does not. Removing an SQ drops its
  // pending entries (Delete I/O SQ: they are never fetched).
  void add_queue(uint16_t qid, SqPriority p);
  void remove_queue(uint16_t qid);
  bool has_queue(uint16_t qid) const { return qid <= max_qid_ && q_[qid].exists; }

  // `count` new entries of SQ `qid` became visible at `now` (a tail doorbell).
  void submitted(uint16_t qid, uint32_t count, Tick now);
  // A held SQ is granted nothing (its entries stay pending) until released:
  // the controller holds an SQ whose fetched write must finish before the
  // commands behind it (in-order fetch). Holding ends a drain of that SQ.
  void hold(uint16_t qid, bool held);
  // The next SQ to fetch from and how many commands (1 to max_count), or
  // nothing when no entry waits or max_count is 0. The granted entries are no
  // longer pending. O(queues / 64) bitmap words per call, plus, in FlashShare
  // mode when a guard fires or the oldest TH entry is fetched, one pass over
  // the TH SQs.
  std::optional<Grant> next(Tick now, uint32_t max_count);

  uint32_t pending(uint16_t qid) const { return qid <= max_qid_ ? q_[qid].pending : 0; }
  // FlashShare: the earliest instant a TH SQ's age guard fires (oldest
  // doorbell time + drain_age + 1 ps), for the controller to re-arbitrate
  // then; kNoDeadline when no TH entry waits or in the other modes. It may be
  // in the past when a guard has fired and waits for a fetch slot.
  Tick next_guard_deadline() const;

 private:
  // Classes index the ready bitmaps: 0 admin, then QPRIO + 1.
  enum : uint8_t { kAdmin = 0, kUrgent = 1, kHigh = 2, kMedium = 3, kLow = 4, kClasses = 5 };
  // Class sets a round robin lane covers.
  static constexpr uint8_t kAll = 0x1F, kLs = (1 << kUrgent) | (1 << kHigh), kTh = (1 << kMedium) | (1 << kLow);
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  struct Run {  // entries made visible by one doorbell
    Tick at;
    uint32_t count;
  };
  struct Queue {
    bool exists = false;
    uint8_t cls = kAdmin;
    uint32_t pending = 0;
    bool held = false;
    std::deque<Run> runs;  // oldest first; the counts add up to `pending`
  };
  // A round robin over the SQs of some classes, with the open turn.
  struct Lane {
    uint32_t cursor = 0;  // the SQ whose turn it is, or where the search starts
    uint32_t left = 0;    // commands left in the open turn of SQ `cursor`; 0 = no open turn
  };

  static bool is_th(uint8_t cls) { return cls == kMedium || cls == kLow; }
  bool any_ready(uint8_t classes) const;
  // The first SQ at or after `from` (wrapping) that has entries and is in one
  // of `classes`, or kNone.
  uint32_t scan(uint8_t classes, uint32_t from) const;
  // Grants from the lane's round robin; `cap` bounds the grant further
  // (WRR credit). The lane must have a ready SQ.
  Grant serve_lane(Lane& lane, uint8_t classes, uint32_t max_count, uint32_t cap);
  Grant take(uint32_t qid, uint32_t n);  // consumes n oldest entries
  void set_ready(uint32_t qid, bool ready);
  bool guard_due(const Queue& q, Tick now) const;
  Grant serve_drain(uint32_t max_count);
  void restart_round();
  uint32_t weight(int wrr_class) const;

  uint16_t max_qid_;
  uint32_t words_;
  ArbiterConfig cfg_;
  std::vector<Queue> q_;
  std::vector<uint64_t> ready_;  // kClasses bitmaps of words_ words: SQs with entries, by class
  uint32_t ready_count_[kClasses] = {};
  Lane lanes_[kClasses];  // RR uses lane 0; WRR one per class; FlashShare kUrgent (LS) and kMedium (TH)
  // WRR round: the class in hand (0 High, 1 Medium, 2 Low) and credits.
  uint32_t wrr_pos_ = 0, credit_[3] = {};
  // FlashShare.
  uint32_t drain_qid_ = 0, drain_left_ = 0;  // drain_left_ 0: no drain
  uint32_t th_over_ = 0;  // TH SQs holding more than drain_count entries
  // Oldest doorbell time among TH entries; recomputed lazily after a fetch
  // or removal may have raised it.
  mutable Tick th_oldest_ = kNoDeadline;
  mutable bool th_oldest_stale_ = false;
};

}  // namespace vp::ssd
