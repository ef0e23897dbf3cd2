// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/cache/CacheEpoch.hpp"

#include "vp/core/AtomicFile.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "vp/core/AtomicFile.hpp"

namespace vp::ssd {

namespace {
std::string ghosts(const CacheEpoch& e, int c) {
  std::string s;
  for (size_t i = 0; i < e.ghost_misses[c].size() && i < e.granularities.size(); ++i)
    s += fmt::format("{}{}:{}", i ? " " : "", e.granularities[i], e.ghost_misses[c][i]);
  return s;
}
}  // namespace

void write_cache_epochs_csv(const std::string& path, const std::vector<CacheEpoch>& epochs) {
  AtomicFile file(path);
  std::ostream& f = file.out();
  f << "epoch,start_us,end_us,thr_accesses,lat_accesses,thr_read_hits,thr_read_misses,lat_read_hits,"
       "lat_read_misses,thr_prefetch_hits,lat_prefetch_hits,thr_ways,lat_ways,thr_prefetch,lat_prefetch,"
       "thr_ghost_misses,lat_ghost_misses\n";
  for (const CacheEpoch& e : epochs)
    f << fmt::format("{},{:.3f},{:.3f},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", e.index,
                     double(e.start) / double(US), double(e.end) / double(US), e.accesses[0], e.accesses[1],
                     e.read_hits[0], e.read_misses[0], e.read_hits[1], e.read_misses[1], e.prefetch_hits[0],
                     e.prefetch_hits[1], e.ways[0], e.ways[1], e.prefetch[0], e.prefetch[1], ghosts(e, 0),
                     ghosts(e, 1));
  file.commit();
}

}  // namespace vp::ssd
