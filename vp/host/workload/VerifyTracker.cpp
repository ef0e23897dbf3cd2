// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/VerifyTracker.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "vp/core/VerifyPattern.hpp"

namespace vp::host {

// fio-like verify blocks (vp/core/VerifyPattern.hpp): unit k of the LBA is
// unit number lba x units + k, so the drive can keep writes as names.
void VerifyTracker::fill(uint8_t* p, uint64_t lba, uint32_t version) const {
  if (version == 0) {
    std::memset(p, 0, lba_size_);
    return;
  }
  const uint32_t units = lba_size_ / verify_pattern::kUnit;  // lba_size is a power of two >= 512
  for (uint32_t k = 0; k < units; ++k)
    verify_pattern::fill(p + uint64_t(k) * verify_pattern::kUnit, lba * units + k, version);
}

bool VerifyTracker::overlaps_write_in_flight(uint64_t lba, uint32_t nlb) const {
  for (uint64_t b = lba; b < lba + nlb; ++b) {
    auto it = blocks_.find(b);
    if (it != blocks_.end() && it->second.writers > 0) return true;
  }
  return false;
}

void VerifyTracker::write_issued(IoRequest& r) {
  if (frozen_) return;
  uint32_t v = next_version_++;
  write_versions_[&r] = v;
  for (uint32_t i = 0; i < r.nlb; ++i) {
    Block& b = blocks_[r.lba + i];
    if (b.writers++ > 0) b.contended = true;
    fill(r.buf + uint64_t(i) * lba_size_, r.lba + i, v);
    if (!history_on_) continue;
    History& h = history_[r.lba + i];
    h.writes.push_back({v});
    prune(h);
  }
  for (IoRequest* rd : reads_in_flight_)
    if (rd->lba < r.lba + r.nlb && r.lba < rd->lba + rd->nlb) read_tainted_[rd] = true;
}

void VerifyTracker::write_completed(const IoRequest& r, Durability d) {
  if (frozen_) return;
  uint64_t cseq = ++cseq_;
  auto it = write_versions_.find(&r);
  uint32_t v = it->second;
  write_versions_.erase(it);
  for (uint32_t i = 0; i < r.nlb; ++i) {
    Block& b = blocks_[r.lba + i];
    --b.writers;
    b.version = b.contended ? kUnknown : (r.status == 0 ? v : kUnknown);
    if (b.writers == 0) b.contended = false;
    if (!history_on_) continue;
    auto& ws = history_[r.lba + i].writes;
    for (auto w = ws.rbegin(); w != ws.rend(); ++w)
      if (w->version == v) {
        *w = {v, cseq, r.job, d, r.status == 0};
        break;
      }
  }
}

void VerifyTracker::read_issued(IoRequest& r) {
  if (frozen_) return;
  reads_in_flight_.push_back(&r);
  read_tainted_[&r] = overlaps_write_in_flight(r.lba, r.nlb);
}

void VerifyTracker::read_completed(const IoRequest& r) {
  if (frozen_) return;
  reads_in_flight_.erase(std::find(reads_in_flight_.begin(), reads_in_flight_.end(), &r));
  bool tainted = read_tainted_[&r];
  read_tainted_.erase(&r);
  if (tainted || r.status != 0) return;
  std::vector<uint8_t> expect(lba_size_);
  for (uint32_t i = 0; i < r.nlb; ++i) {
    auto it = blocks_.find(r.lba + i);
    uint32_t v = it == blocks_.end() ? 0 : it->second.version;
    if (v == kUnknown) continue;
    fill(expect.data(), r.lba + i, v);
    ++checked_;
    if (std::memcmp(expect.data(), r.buf + uint64_t(i) * lba_size_, lba_size_) != 0) {
      ++mismatches_;
      first_bad_ = std::min(first_bad_, r.lba + i);
    }
  }
}

void VerifyTracker::sync_started(const void* job) {
  if (!frozen_) sync_start_[job] = cseq_;
}

void VerifyTracker::synced(const void* job, bool flushed) {
  if (frozen_) return;
  uint64_t upto = sync_start_[job];
  synced_upto_[job] = upto;
  if (flushed) flushed_upto_ = std::max(flushed_upto_, upto);
}

bool VerifyTracker::host_durable(const Write& w) const {
  if (!w.ok) return false;
  switch (w.durability) {
    case Durability::Durable: return true;
    case Durability::Volatile: return w.cseq <= flushed_upto_;
    case Durability::Buffered: {
      auto it = synced_upto_.find(w.job);
      return it != synced_upto_.end() && w.cseq <= it->second;
    }
  }
  return false;
}

// Writes older than a block's floor can never be what it holds. The floor
// is what the device persisted of every part (a block the drive could not
// drain is judged against that alone: its flash can hold nothing older), or
// while nothing was persisted, the host's durable write (such a block holds
// it, or zeros if it was never drained).
void VerifyTracker::prune(History& h) const {
  if (h.writes.size() < 16) return;
  uint32_t low = 0;
  if (h.persisted.empty()) {
    for (const Write& w : h.writes)
      if (host_durable(w)) low = w.version;
  } else {
    low = *std::min_element(h.persisted.begin(), h.persisted.end());
  }
  auto keep = std::find_if(h.writes.begin(), h.writes.end(), [&](const Write& w) { return w.version >= low; });
  if (low && keep != h.writes.end()) h.writes.erase(h.writes.begin(), keep);
}

void VerifyTracker::persisted(uint64_t lba, uint32_t offset, const uint8_t* data, uint32_t len) {
  if (frozen_ || !history_on_) return;
  auto it = history_.find(lba);
  if (it == history_.end() || offset + len > lba_size_) return;
  History& h = it->second;
  std::vector<uint8_t> pattern(lba_size_);
  for (auto w = h.writes.rbegin(); w != h.writes.rend(); ++w) {
    fill(pattern.data(), lba, w->version);
    if (std::memcmp(pattern.data() + offset, data, len) != 0) continue;
    h.persisted.resize(lba_size_ / part_, 0);
    for (uint32_t p = offset / part_; p < (offset + len + part_ - 1) / part_; ++p)
      h.persisted[p] = std::max(h.persisted[p], w->version);
    return;
  }
}

VerifyTracker::PowerLossReport VerifyTracker::check_power_loss(
    const std::function<void(uint64_t lba, uint8_t* buf)>& read,
    const std::function<bool(uint64_t lba)>& undrained) const {
  if (!history_on_) throw std::logic_error("VerifyTracker: a power-loss check needs the write history (keep_history)");
  PowerLossReport rep;
  std::vector<uint64_t> lbas;  // in LBA order, so a report names the lowest bad block
  for (const auto& [lba, h] : history_)
    if (std::any_of(h.writes.begin(), h.writes.end(), [](const Write& w) { return w.ok; })) lbas.push_back(lba);
  std::sort(lbas.begin(), lbas.end());
  std::vector<uint8_t> got(lba_size_), pattern(lba_size_);
  uint32_t parts = lba_size_ / part_;
  for (uint64_t lba : lbas) {
    const History& h = history_.at(lba);
    uint32_t last_ack = 0, host_floor = 0;
    for (const Write& w : h.writes) {
      if (w.ok) last_ack = w.version;
      if (host_durable(w)) host_floor = w.version;
    }
    bool excused = undrained && undrained(lba);
    read(lba, got.data());
    ++rep.checked;
    // Each part: the newest write at or above its floor that it holds.
    bool found_all = true, all_new = true;
    uint32_t first = kUnknown;
    bool torn = false;
    for (uint32_t p = 0; p < parts && found_all; ++p) {
      uint32_t floor = h.persisted.empty() ? 0 : h.persisted[p];
      if (!excused) floor = std::max(floor, host_floor);
      const uint8_t* part = got.data() + uint64_t(p) * part_;
      uint32_t match = kUnknown;
      for (auto w = h.writes.rbegin(); w != h.writes.rend() && match == kUnknown; ++w) {
        if (w->version < floor) break;
        fill(pattern.data(), lba, w->version);
        if (std::memcmp(pattern.data() + uint64_t(p) * part_, part, part_) == 0) match = w->version;
      }
      if (match == kUnknown && floor == 0 &&
          std::all_of(part, part + part_, [](uint8_t b) { return b == 0; }))
        match = 0;  // never written before this run's writes
      if (match == kUnknown) {
        found_all = false;
        break;
      }
      if (match < last_ack) all_new = false;
      if (first == kUnknown) first = match;
      torn |= match != first;
    }
    if (!found_all) {
      ++rep.mismatches;
      rep.first_bad = std::min(rep.first_bad, lba);
      continue;
    }
    rep.torn += torn;
    if (all_new)
      ++rep.intact;
    else if (excused)
      ++rep.not_drained;
    else
      ++rep.not_durable;
  }
  return rep;
}

}  // namespace vp::host
