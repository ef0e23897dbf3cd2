// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/cache/PrefetchTuner.hpp"

#include <algorithm>
#include <sstream>

namespace vp::ssd {

PrefetchTuner::PrefetchTuner(uint32_t sets, uint32_t ways, uint32_t used, const std::vector<uint32_t>& granularities)
    : grans_(granularities), current_(granularities.empty() ? 0 : granularities.front()) {
  ghosts_.reserve(grans_.size());
  for (uint32_t g : grans_) {
    ghosts_.emplace_back(sets, ways, g);
    ghosts_.back().resize(used);
  }
}

std::vector<uint32_t> PrefetchTuner::parse(const std::string& text) {
  std::vector<uint32_t> v;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty() || item.size() > 6 || item.find_first_not_of("0123456789") != std::string::npos) return {};
    v.push_back(static_cast<uint32_t>(std::stoul(item)));
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

void PrefetchTuner::access(uint64_t lpn, uint64_t end, bool write) {
  reads_ |= !write;
  for (GhostCache& g : ghosts_) g.access(lpn, end, write);
}

std::vector<uint64_t> PrefetchTuner::misses() const {
  std::vector<uint64_t> m;
  for (const GhostCache& g : ghosts_) m.push_back(g.misses());
  return m;
}

void PrefetchTuner::end_epoch() {
  if (reads_ && !ghosts_.empty()) {
    size_t best = 0;  // ghosts are in ascending granularity: strict < keeps the smaller on a tie
    for (size_t i = 1; i < ghosts_.size(); ++i)
      if (ghosts_[i].misses() < ghosts_[best].misses()) best = i;
    current_ = grans_[best];
  }
  reads_ = false;
  for (GhostCache& g : ghosts_) g.new_epoch();
}

void PrefetchTuner::resize(uint32_t used) {
  for (GhostCache& g : ghosts_) g.resize(used);
}

}  // namespace vp::ssd
