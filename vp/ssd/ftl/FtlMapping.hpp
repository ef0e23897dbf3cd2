// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How the page-mapping FTL holds its map in SSD DRAM: the whole table
// (FlatMapping), or a cache of translation pages read from flash on a miss
// (CachedMapping, DFTL). One is chosen at elaboration (ssd.ftl.map_cache);
// the entries themselves are always kept functionally in FtlState::map.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

// What the mapping asks of the FTL.
struct MappingClient {
  // A request whose translation pages were missing is ready to be issued.
  virtual void translated(FtlRequest& r) = 0;
  // Writes a translation page back to flash like data, to a logical page
  // past the host's.
  virtual void write_map_page(FtlRequest& r) = 0;

 protected:
  ~MappingClient() = default;
};

class FtlMapping {
 public:
  virtual ~FtlMapping() = default;
  // Whether `r`'s map entries are in DRAM now; if not, they are being read
  // and MappingClient::translated(r) follows.
  virtual bool translate(FtlRequest& r) = 0;
  // The entry of host page `lpn` changed (a write or trim).
  virtual void changed(uint64_t lpn) = 0;
  // GC moved these pages: DFTL's batch update, each translation page once
  // for the whole victim block.
  virtual void relocated(const std::vector<uint32_t>& lpns) = 0;
  // A translation page went to flash (counted when the write is issued).
  virtual void map_page_written() {}
  // The logical page of the translation page holding `lpn`'s entry, when
  // the map keeps translation pages on flash.
  virtual bool map_page_of(uint64_t lpn, uint64_t& map_lpn) const = 0;
  // The DRAM contents are gone (power loss, before recovery).
  virtual void clear() {}
  // SSD DRAM the map takes (ssd.ftl.map_table_bytes).
  virtual uint64_t dram_bytes() const = 0;
  // Translation pages written (write amplification counts them).
  virtual uint64_t map_pages_written() const { return 0; }
  virtual void report(nlohmann::json&) const {}
};

}  // namespace vp::ssd
