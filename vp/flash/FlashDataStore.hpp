#pragma once
// Page contents, stored sparsely so memory follows what was written, not the
// capacity. A page never programmed reads as zeros.
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>

namespace vp::flash {

class FlashDataStore {
 public:
  explicit FlashDataStore(uint32_t page_size) : page_size_(page_size) {}
  void program(uint64_t ppn, const uint8_t* src) {
    auto& p = pages_[ppn];
    if (!p) p.reset(new uint8_t[page_size_]);
    std::memcpy(p.get(), src, page_size_);
  }
  void read(uint64_t ppn, uint8_t* dst) const {
    auto it = pages_.find(ppn);
    if (it == pages_.end())
      std::memset(dst, 0, page_size_);
    else
      std::memcpy(dst, it->second.get(), page_size_);
  }
  void erase_range(uint64_t first_ppn, uint64_t count) {
    for (uint64_t p = first_ppn; p < first_ppn + count; ++p) pages_.erase(p);
  }
  uint64_t stored_bytes() const { return pages_.size() * uint64_t(page_size_); }

 private:
  uint32_t page_size_;
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
};

}  // namespace vp::flash
