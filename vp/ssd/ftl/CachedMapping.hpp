// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A cached mapping table (DFTL, Gupta et al. ASPLOS'09): the map lives on
// flash as translation pages of page_size / 4 entries, written like data to
// logical pages past the host's; SSD DRAM caches the most recently used of
// them. A request whose translation pages are missing waits for their reads
// (one read per page however many requests miss it); an evicted dirty page
// is written back; GC's moves update each translation page once per block.
#include <memory>
#include <unordered_map>

#include "vp/core/Counter.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/ssd/ftl/FtlMapping.hpp"
#include "vp/ssd/ftl/FtlState.hpp"
#include "vp/ssd/ftl/MappingCache.hpp"

namespace vp::ssd {

// The map cache's statistics, registered by the FTL whichever mapping it
// chose (they read 0 with a flat map), so every run lists the same counters.
struct MapCacheStats {
  explicit MapCacheStats(const StatGroup& ftl);
  Counter &hits, &misses, &page_reads, &page_writes;
};

class CachedMapping : public FtlMapping {
 public:
  // `cache_bytes` of SSD DRAM hold translation pages.
  CachedMapping(FtlState& s, MappingClient& client, uint64_t cache_bytes, MapCacheStats& stats);
  ~CachedMapping() override;

  bool translate(FtlRequest& r) override;
  void changed(uint64_t lpn) override;
  void relocated(const std::vector<uint32_t>& lpns) override;
  void map_page_written() override { ++stats_.page_writes; }
  bool map_page_of(uint64_t lpn, uint64_t& map_lpn) const override;
  void clear() override;
  uint64_t dram_bytes() const override;
  uint64_t map_pages_written() const override { return stats_.page_writes.value; }
  void report(nlohmann::json& j) const override;

 private:
  struct Load;
  struct WriteBack;

  void load(uint32_t tp, FtlRequest* r, bool write_back);
  void loaded(Load& l);
  void insert(uint32_t tp);
  void write_back(uint32_t tp);

  FtlState& s_;
  MappingClient& client_;
  uint64_t epp_;  // entries per translation page
  MappingCache cache_;
  std::unordered_map<uint32_t, std::unique_ptr<Load>> loading_;
  std::vector<uint8_t> scratch_, zero_page_;
  MapCacheStats& stats_;
};

}  // namespace vp::ssd
