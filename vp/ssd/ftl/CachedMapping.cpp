// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/ftl/CachedMapping.hpp"

#include <algorithm>
#include <set>

namespace vp::ssd {

using flash::FlashOp;
using flash::FlashTransaction;

// A translation page being read from flash, and the requests waiting for it.
struct CachedMapping::Load : flash::FlashClient {
  CachedMapping& map;
  uint32_t tp;
  bool write_back = false;  // an update arrived while it was not cached: write it back once read
  std::vector<FtlRequest*> waiting;
  FlashTransaction t;
  Load(CachedMapping& m, uint32_t p) : map(m), tp(p) {}
  void flash_done(FlashTransaction&) override { map.loaded(*this); }
};

// A dirty translation page going back to flash through the FTL's write path.
struct CachedMapping::WriteBack : FtlClient {
  EventQueue& eq;
  FtlRequest r;
  explicit WriteBack(EventQueue& q) : eq(q) {}
  void ftl_done(FtlRequest&) override {
    WriteBack* self = this;
    eq.after(0, [self] { delete self; });
  }
};

MapCacheStats::MapCacheStats(const StatGroup& ftl)
    : hits(ftl.counter("map_cache.hits", "lookups", "translation-page lookups found in DRAM")),
      misses(ftl.counter("map_cache.misses", "lookups", "translation-page lookups that missed")),
      page_reads(ftl.counter("map_cache.page_reads", "pages", "translation pages read from flash")),
      page_writes(ftl.counter("map_cache.page_writes", "pages", "translation pages written back")) {}

CachedMapping::CachedMapping(FtlState& s, MappingClient& client, uint64_t cache_bytes, MapCacheStats& stats)
    : s_(s),
      client_(client),
      epp_(s.geo.page_size / sizeof(uint32_t)),
      cache_(std::max<uint64_t>(1, cache_bytes / s.geo.page_size)),
      scratch_(s.geo.page_size),
      zero_page_(s.geo.page_size, 0),
      stats_(stats) {}

CachedMapping::~CachedMapping() = default;

uint64_t CachedMapping::dram_bytes() const {
  return cache_.capacity() * s_.geo.page_size + s_.map_pages * sizeof(uint32_t);  // cached pages + directory
}

bool CachedMapping::map_page_of(uint64_t lpn, uint64_t& map_lpn) const {
  map_lpn = s_.logical_pages + lpn / epp_;
  return true;
}

bool CachedMapping::translate(FtlRequest& r) {
  if (r.op == IoOp::Flush || r.pages == 0 || r.lpn >= s_.logical_pages) return true;
  // Every translation page the request needs must be in DRAM first.
  uint32_t first = static_cast<uint32_t>(r.lpn / epp_), last = static_cast<uint32_t>((r.lpn + r.pages - 1) / epp_);
  std::vector<uint32_t> missing;
  for (uint32_t tp = first; tp <= last; ++tp) {
    if (cache_.touch(tp)) {
      ++stats_.hits;
      continue;
    }
    ++stats_.misses;
    if (s_.map.get(s_.logical_pages + tp) == MappingTable::kUnmapped)
      insert(tp);  // never written: an empty page made in DRAM
    else
      missing.push_back(tp);
  }
  r.map_misses = static_cast<uint32_t>(missing.size());
  for (uint32_t tp : missing) load(tp, &r, false);
  return r.map_misses == 0;
}

void CachedMapping::load(uint32_t tp, FtlRequest* r, bool write_back) {
  auto& l = loading_[tp];
  if (!l) {
    l = std::make_unique<Load>(*this, tp);
    l->t.op = FlashOp::Read;
    l->t.addr = flash::address_of(s_.geo, s_.map.get(s_.logical_pages + tp));
    l->t.data = scratch_.data();  // the entries themselves are kept functionally
    l->t.client = l.get();
    ++stats_.page_reads;
    s_.flash->submit(l->t);
  }
  if (r) l->waiting.push_back(r);
  l->write_back |= write_back;
}

void CachedMapping::loaded(Load& l) {
  std::unique_ptr<Load> done = std::move(loading_[l.tp]);
  loading_.erase(l.tp);
  if (!done->waiting.empty()) {
    insert(done->tp);
    if (done->write_back) cache_.mark_dirty(done->tp);
  } else if (done->write_back) {
    write_back(done->tp);
  }
  for (FtlRequest* r : done->waiting)
    if (--r->map_misses == 0) client_.translated(*r);
  Load* raw = done.release();  // still on the call stack
  s_.eq.after(0, [raw] { delete raw; });
}

void CachedMapping::insert(uint32_t tp) {
  uint32_t evicted;
  bool dirty;
  if (cache_.insert(tp, evicted, dirty) && dirty) write_back(evicted);
}

void CachedMapping::changed(uint64_t lpn) {
  if (lpn >= s_.logical_pages) return;
  uint32_t tp = static_cast<uint32_t>(lpn / epp_);
  if (cache_.mark_dirty(tp)) return;
  // Not cached (e.g. GC moved a cold page): read, update, write back.
  if (s_.map.get(s_.logical_pages + tp) == MappingTable::kUnmapped)
    write_back(tp);
  else
    load(tp, nullptr, true);
}

void CachedMapping::relocated(const std::vector<uint32_t>& lpns) {
  std::set<uint32_t> tps;
  for (uint32_t lpn : lpns)
    if (lpn < s_.logical_pages) tps.insert(static_cast<uint32_t>(lpn / epp_));
  for (uint32_t tp : tps) changed(uint64_t(tp) * epp_);
}

void CachedMapping::write_back(uint32_t tp) {
  auto* w = new WriteBack(s_.eq);
  w->r.op = IoOp::Write;
  w->r.lpn = s_.logical_pages + tp;
  w->r.pages = 1;
  w->r.data = zero_page_.data();
  w->r.client = w;
  client_.write_map_page(w->r);
}

void CachedMapping::clear() {
  cache_.clear();
  loading_.clear();
}

void CachedMapping::report(nlohmann::json& j) const {
  j["map_cache"] = {{"hits", stats_.hits.value},
                    {"misses", stats_.misses.value},
                    {"page_reads", stats_.page_reads.value},
                    {"page_writes", stats_.page_writes.value},
                    {"pages_cached", cache_.capacity()}};
}

}  // namespace vp::ssd
