#include "vp/host/VerifyTracker.hpp"

#include <algorithm>
#include <cstring>

namespace vp::host {

namespace {
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

void VerifyTracker::fill(uint8_t* p, uint64_t lba, uint32_t version) const {
  if (version == 0) {
    std::memset(p, 0, lba_size_);
    return;
  }
  uint64_t seed = mix(lba * 0x9e3779b97f4a7c15ULL + version);
  for (uint32_t i = 0; i < lba_size_ / 8; ++i) {
    uint64_t w = mix(seed + i);
    std::memcpy(p + 8 * i, &w, 8);
  }
}

bool VerifyTracker::overlaps_write_in_flight(uint64_t lba, uint32_t nlb) const {
  for (uint64_t b = lba; b < lba + nlb; ++b) {
    auto it = blocks_.find(b);
    if (it != blocks_.end() && it->second.writers > 0) return true;
  }
  return false;
}

void VerifyTracker::write_issued(IoRequest& r) {
  uint32_t v = next_version_++;
  write_versions_[&r] = v;
  for (uint32_t i = 0; i < r.nlb; ++i) {
    Block& b = blocks_[r.lba + i];
    if (b.writers++ > 0) b.contended = true;
    fill(r.buf + uint64_t(i) * lba_size_, r.lba + i, v);
  }
  for (IoRequest* rd : reads_in_flight_)
    if (rd->lba < r.lba + r.nlb && r.lba < rd->lba + rd->nlb) read_tainted_[rd] = true;
}

void VerifyTracker::write_completed(const IoRequest& r) {
  auto it = write_versions_.find(&r);
  uint32_t v = it->second;
  write_versions_.erase(it);
  for (uint32_t i = 0; i < r.nlb; ++i) {
    Block& b = blocks_[r.lba + i];
    --b.writers;
    b.version = b.contended ? kUnknown : (r.status == 0 ? v : kUnknown);
    if (b.writers == 0) b.contended = false;
  }
}

void VerifyTracker::read_issued(IoRequest& r) {
  reads_in_flight_.push_back(&r);
  read_tainted_[&r] = overlaps_write_in_flight(r.lba, r.nlb);
}

void VerifyTracker::read_completed(const IoRequest& r) {
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

std::pair<uint64_t, uint64_t> VerifyTracker::check_durable(
    const std::function<void(uint64_t lba, uint8_t* buf)>& read) const {
  std::vector<uint8_t> expect(lba_size_), got(lba_size_);
  std::vector<uint64_t> lbas;  // in LBA order, so a report names the lowest bad block
  for (const auto& [lba, b] : blocks_)
    if (b.writers == 0 && b.version != kUnknown && b.version != 0) lbas.push_back(lba);
  std::sort(lbas.begin(), lbas.end());
  uint64_t bad = 0;
  for (uint64_t lba : lbas) {
    fill(expect.data(), lba, blocks_.at(lba).version);
    read(lba, got.data());
    if (expect != got) ++bad;
  }
  return {lbas.size(), bad};
}

}  // namespace vp::host
