// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The whole page-level map in SSD DRAM, 4 bytes per logical page: every
// lookup is a DRAM access, nothing is read from flash.
#include "vp/ssd/ftl/FtlMapping.hpp"

namespace vp::ssd {

class FlatMapping : public FtlMapping {
 public:
  explicit FlatMapping(uint64_t logical_pages) : logical_pages_(logical_pages) {}
  bool translate(FtlRequest&) override { return true; }
  void changed(uint64_t) override {}
  void relocated(const std::vector<uint32_t>&) override {}
  bool map_page_of(uint64_t, uint64_t&) const override { return false; }
  uint64_t dram_bytes() const override { return logical_pages_ * sizeof(uint32_t); }

 private:
  uint64_t logical_pages_;
};

}  // namespace vp::ssd
