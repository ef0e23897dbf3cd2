// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/nvme/SqArbiter.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vp::ssd {

// ---------------------------------------------------------------- configuration fields

std::optional<ArbMode> ArbiterConfig::mode_from_ams(uint32_t ams) {
  switch (ams & 7) {
    case 0: return ArbMode::RoundRobin;
    case 1: return ArbMode::WeightedRoundRobin;
    case 7: return ArbMode::FlashShare;  // vendor specific
    default: return std::nullopt;
  }
}

void ArbiterConfig::set_arbitration_feature(uint32_t cdw11) {
  uint32_t ab = cdw11 & 7;
  burst = ab == 7 ? 0 : 1u << ab;
  low_weight = ((cdw11 >> 8) & 0xFF) + 1;
  medium_weight = ((cdw11 >> 16) & 0xFF) + 1;
  high_weight = ((cdw11 >> 24) & 0xFF) + 1;
}

uint32_t ArbiterConfig::arbitration_feature() const {
  // A burst that is not a power of two (set directly, not from the feature)
  // reports the largest power of two below it.
  uint32_t ab = 7;
  if (burst != 0) {
    ab = 0;
    while (ab < 6 && (2u << ab) <= burst) ++ab;
  }
  auto w = [](uint32_t weight) { return std::min<uint32_t>(std::max<uint32_t>(weight, 1), 256) - 1; };
  return ab | w(low_weight) << 8 | w(medium_weight) << 16 | w(high_weight) << 24;
}

// ---------------------------------------------------------------- queues

namespace {
Tick saturating_add(Tick a, Tick b) { return a > SqArbiter::kNoDeadline - b ? SqArbiter::kNoDeadline : a + b; }
}  // namespace

SqArbiter::SqArbiter(uint16_t max_qid)
    : max_qid_(max_qid), words_((uint32_t(max_qid) + 64) / 64), q_(uint32_t(max_qid) + 1),
      ready_(size_t(kClasses) * words_) {
  reset();
}

void SqArbiter::configure(const ArbiterConfig& c) {
  if (c.high_weight == 0 || c.medium_weight == 0 || c.low_weight == 0)
    throw std::invalid_argument("SqArbiter: weights are counts of commands, at least 1");
  cfg_ = c;
  restart_round();
  th_over_ = 0;
  for (const Queue& q : q_)
    if (q.exists && is_th(q.cls) && q.pending > cfg_.drain_count) ++th_over_;
  th_oldest_stale_ = true;
}

void SqArbiter::reset() {
  for (Queue& q : q_) q = Queue{};
  q_[0].exists = true;
  std::fill(ready_.begin(), ready_.end(), 0);
  std::fill(std::begin(ready_count_), std::end(ready_count_), 0);
  for (Lane& l : lanes_) l = Lane{};
  restart_round();
  th_over_ = 0;
  th_oldest_ = kNoDeadline;
  th_oldest_stale_ = false;
}

void SqArbiter::restart_round() {
  wrr_pos_ = 0;
  for (int c = 0; c < 3; ++c) credit_[c] = weight(c);
  for (Lane& l : lanes_) l.left = 0;
  drain_left_ = 0;
}

uint32_t SqArbiter::weight(int wrr_class) const {
  return wrr_class == 0 ? cfg_.high_weight : wrr_class == 1 ? cfg_.medium_weight : cfg_.low_weight;
}

void SqArbiter::add_queue(uint16_t qid, SqPriority p) {
  if (qid == 0 || qid > max_qid_ || q_[qid].exists)
    throw std::invalid_argument("SqArbiter: cannot add SQ " + std::to_string(qid));
  Queue& q = q_[qid];
  q = Queue{};
  q.exists = true;
  q.cls = static_cast<uint8_t>(uint8_t(p) + 1);
}

void SqArbiter::remove_queue(uint16_t qid) {
  if (qid == 0 || qid > max_qid_ || !q_[qid].exists)
    throw std::invalid_argument("SqArbiter: cannot remove SQ " + std::to_string(qid));
  Queue& q = q_[qid];
  if (q.pending > 0) {
    if (is_th(q.cls)) {
      if (q.pending > cfg_.drain_count) --th_over_;
      th_oldest_stale_ = true;
    }
    if (!q.held) set_ready(qid, false);
  }
  if (drain_left_ > 0 && drain_qid_ == qid) drain_left_ = 0;
  for (Lane& l : lanes_)
    if (l.cursor == qid) l.left = 0;
  q = Queue{};
}

void SqArbiter::submitted(uint16_t qid, uint32_t count, Tick now) {
  if (qid > max_qid_ || !q_[qid].exists)
    throw std::invalid_argument("SqArbiter: entries for absent SQ " + std::to_string(qid));
  if (count == 0) return;
  Queue& q = q_[qid];
  uint32_t before = q.pending;
  q.pending += count;
  if (!q.runs.empty() && q.runs.back().at == now)
    q.runs.back().count += count;
  else
    q.runs.push_back({now, count});
  if (is_th(q.cls)) {
    if (before <= cfg_.drain_count && q.pending > cfg_.drain_count) ++th_over_;
    if (before == 0 && !th_oldest_stale_) th_oldest_ = std::min(th_oldest_, now);
  }
  if (before == 0 && !q.held) set_ready(qid, true);
}

void SqArbiter::hold(uint16_t qid, bool held) {
  if (qid == 0 || qid > max_qid_ || !q_[qid].exists || q_[qid].held == held) return;
  q_[qid].held = held;
  if (q_[qid].pending > 0) set_ready(qid, !held);
  th_oldest_stale_ = true;  // the oldest TH entry is looked for among ready SQs
  if (held) {
    if (drain_left_ > 0 && drain_qid_ == qid) drain_left_ = 0;
    for (Lane& l : lanes_)
      if (l.cursor == qid) l.left = 0;
  }
}

void SqArbiter::set_ready(uint32_t qid, bool ready) {
  uint8_t c = q_[qid].cls;
  uint64_t& w = ready_[size_t(c) * words_ + qid / 64];
  uint64_t bit = uint64_t(1) << (qid % 64);
  if (ready) {
    w |= bit;
    ++ready_count_[c];
  } else {
    w &= ~bit;
    --ready_count_[c];
  }
}

SqArbiter::Grant SqArbiter::take(uint32_t qid, uint32_t n) {
  Queue& q = q_[qid];
  uint32_t before = q.pending;
  Tick oldest = q.runs.front().at;
  q.pending -= n;
  for (uint32_t left = n; left > 0;) {
    Run& r = q.runs.front();
    uint32_t k = std::min(left, r.count);
    r.count -= k;
    left -= k;
    if (r.count == 0) q.runs.pop_front();
  }
  if (is_th(q.cls)) {
    if (before > cfg_.drain_count && q.pending <= cfg_.drain_count) --th_over_;
    // Only this SQ's oldest entry can have been the TH minimum and moved.
    if (oldest == th_oldest_ && (q.runs.empty() || q.runs.front().at != oldest)) th_oldest_stale_ = true;
  }
  if (q.pending == 0) set_ready(qid, false);
  return {static_cast<uint16_t>(qid), n};
}

// ---------------------------------------------------------------- arbitration

bool SqArbiter::any_ready(uint8_t classes) const {
  for (uint8_t c = 0; c < kClasses; ++c)
    if ((classes >> c & 1) && ready_count_[c] > 0) return true;
  return false;
}

uint32_t SqArbiter::scan(uint8_t classes, uint32_t from) const {
  auto word = [&](uint32_t w) {
    uint64_t bits = 0;
    for (uint8_t c = 0; c < kClasses; ++c)
      if (classes >> c & 1) bits |= ready_[size_t(c) * words_ + w];
    return bits;
  };
  uint32_t w = from / 64;
  uint64_t bits = word(w) & (~uint64_t(0) << (from % 64));
  // words_ + 1 looks: the start word from `from` on, the others, then the
  // start word again for the SQs below `from`.
  for (uint32_t i = 0; i <= words_; ++i) {
    if (bits) return w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
    w = w + 1 == words_ ? 0 : w + 1;
    bits = word(w);
  }
  return kNone;
}

SqArbiter::Grant SqArbiter::serve_lane(Lane& lane, uint8_t classes, uint32_t max_count, uint32_t cap) {
  uint32_t qid = scan(classes, lane.cursor);
  Queue& q = q_[qid];
  if (qid != lane.cursor || lane.left == 0) {  // a new turn
    lane.cursor = qid;
    lane.left = cfg_.burst ? cfg_.burst : q.pending;
  }
  uint32_t n = std::min({lane.left, q.pending, max_count, cap});
  lane.left -= n;
  Grant g = take(qid, n);
  if (lane.left == 0 || q.pending == 0) {  // the turn ends
    lane.left = 0;
    lane.cursor = qid == max_qid_ ? 0 : qid + 1;
  }
  return g;
}

bool SqArbiter::guard_due(const Queue& q, Tick now) const {
  return q.pending > cfg_.drain_count || now >= saturating_add(q.runs.front().at, saturating_add(cfg_.drain_age, 1));
}

SqArbiter::Grant SqArbiter::serve_drain(uint32_t max_count) {
  uint32_t n = std::min(drain_left_, max_count);
  drain_left_ -= n;
  Grant g = take(drain_qid_, n);
  if (drain_left_ == 0) {  // TH round robin resumes after the drained SQ
    Lane& th = lanes_[kMedium];
    th.left = 0;
    th.cursor = drain_qid_ == max_qid_ ? 0 : drain_qid_ + 1;
  }
  return g;
}

std::optional<SqArbiter::Grant> SqArbiter::next(Tick now, uint32_t max_count) {
  if (max_count == 0) return std::nullopt;
  if (cfg_.mode == ArbMode::RoundRobin) {
    if (!any_ready(kAll)) return std::nullopt;
    return serve_lane(lanes_[0], kAll, max_count, kNone);
  }
  if (q_[0].pending > 0) {  // the admin SQ is strictly first
    uint32_t n = std::min(q_[0].pending, max_count);
    if (cfg_.burst) n = std::min(n, cfg_.burst);
    return take(0, n);
  }
  if (cfg_.mode == ArbMode::WeightedRoundRobin) {
    if (ready_count_[kUrgent] > 0) return serve_lane(lanes_[kUrgent], 1 << kUrgent, max_count, kNone);
    if (!any_ready((1 << kHigh) | (1 << kMedium) | (1 << kLow))) return std::nullopt;
    // Ends within the rest of this round and one fresh round: a fresh round
    // gives every class credit, and some class has entries.
    for (;;) {
      uint8_t cls = static_cast<uint8_t>(kHigh + wrr_pos_);
      if (credit_[wrr_pos_] > 0 && ready_count_[cls] > 0) {
        Grant g = serve_lane(lanes_[cls], uint8_t(1 << cls), max_count, credit_[wrr_pos_]);
        credit_[wrr_pos_] -= g.count;
        return g;
      }
      if (wrr_pos_ == 2) {
        wrr_pos_ = 0;
        for (int c = 0; c < 3; ++c) credit_[c] = weight(c);
      } else {
        ++wrr_pos_;
      }
    }
  }
  // FlashShare.
  if (drain_left_ > 0) return serve_drain(max_count);
  if (any_ready(kLs)) {
    uint32_t th_ready = ready_count_[kMedium] + ready_count_[kLow];
    if (th_ready > 0 && (th_over_ > 0 || now >= next_guard_deadline())) {
      Lane& th = lanes_[kMedium];
      uint32_t from = th.cursor;
      for (uint32_t i = 0; i < th_ready; ++i) {
        uint32_t qid = scan(kTh, from);
        if (guard_due(q_[qid], now)) {
          drain_qid_ = qid;
          drain_left_ = q_[qid].pending;
          return serve_drain(max_count);
        }
        from = qid == max_qid_ ? 0 : qid + 1;
      }
    }
    return serve_lane(lanes_[kUrgent], kLs, max_count, kNone);
  }
  if (any_ready(kTh)) return serve_lane(lanes_[kMedium], kTh, max_count, kNone);
  return std::nullopt;
}

Tick SqArbiter::next_guard_deadline() const {
  if (cfg_.mode != ArbMode::FlashShare || ready_count_[kMedium] + ready_count_[kLow] == 0) return kNoDeadline;
  if (th_oldest_stale_) {
    th_oldest_ = kNoDeadline;
    for (uint8_t c : {kMedium, kLow})
      for (uint32_t w = 0; w < words_; ++w)
        for (uint64_t bits = ready_[size_t(c) * words_ + w]; bits; bits &= bits - 1) {
          uint32_t qid = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
          th_oldest_ = std::min(th_oldest_, q_[qid].runs.front().at);
        }
    th_oldest_stale_ = false;
  }
  return saturating_add(th_oldest_, saturating_add(cfg_.drain_age, 1));
}

}  // namespace vp::ssd
