// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The cache layer between a test's requests and an FTL that stores pages and
// completes every request kFtlTime after it came, over a DRAM whose every
// access takes kDramTime: round numbers for hand-worked cache timings.
#include <map>
#include <vector>

#include "tests/ModelRig.hpp"
#include "vp/ssd/Drive.hpp"
#include "vp/ssd/cache/CacheLayer.hpp"

namespace vp::test {

constexpr Tick kCacheNs = 1000;
constexpr Tick kFtlTime = 10'000 * kCacheNs, kDramTime = 100 * kCacheNs;
constexpr uint32_t kCachePage = 4096;

class StoreFtl : public sc_core::sc_module, public ssd::IFtl {
 public:
  struct Seen {
    ssd::IoOp op;
    uint64_t lpn;
    uint32_t pages;
    Tick at;
    bool urgent;
  };
  explicit StoreFtl(sc_core::sc_module_name name) : sc_module(name), eq_("eq") {}
  void submit(ssd::FtlRequest& r) override {
    seen.push_back({r.op, r.lpn, r.pages, now_ps(), r.urgent});
    eq_.after(kFtlTime, [this, &r] {
      for (uint32_t i = 0; i < r.pages; ++i) {
        uint8_t* p = r.data + size_t(i) * kCachePage;
        if (r.op == ssd::IoOp::Write) store[r.lpn + i].assign(p, p + kCachePage);
        if (r.op == ssd::IoOp::Read) {
          auto it = store.find(r.lpn + i);
          if (it == store.end())
            std::fill(p, p + kCachePage, uint8_t(0));
          else
            std::copy(it->second.begin(), it->second.end(), p);
        }
      }
      r.client->ftl_done(r);
    });
  }
  uint64_t logical_pages() const override { return 1u << 16; }
  uint32_t page_size() const override { return kCachePage; }
  ssd::MediaHealth health() const override { return {}; }
  size_t count(ssd::IoOp op) const {
    size_t n = 0;
    for (const Seen& s : seen) n += s.op == op;
    return n;
  }
  std::vector<Seen> seen;
  std::map<uint64_t, std::vector<uint8_t>> store;

 private:
  EventQueue eq_;
};

class FixedDram : public sc_core::sc_module, public ssd::ISsdDram {
 public:
  sc_core::sc_export<ssd::ISsdDram> target;
  explicit FixedDram(sc_core::sc_module_name name) : sc_module(name), target("target") { target.bind(*this); }
  uint64_t reserve(uint64_t bytes, const std::string&, const std::vector<std::string>& = {}) override {
    uint64_t b = next_;
    next_ += bytes;
    return b;
  }
  Tick access(uint64_t, uint64_t, bool write, Tick now) override {
    ++(write ? writes : reads);
    return now + kDramTime;
  }
  uint64_t reads = 0, writes = 0;

 private:
  uint64_t next_ = 0;
};

// One request the test sends at `at`: op, first page, pages, a fill byte
// for writes (page i of it holds fill + i), the workload attribute.
struct CacheOp {
  Tick at;
  ssd::IoOp op;
  uint64_t lpn;
  uint32_t pages = 1;
  uint8_t fill = 0;
  uint8_t attr = 0;
  bool fua = false;
  bool victim = false;  // FastDrain's victimization tag, with the event's 4 KiB host pages
  uint32_t victim_pages = 0;
};

struct CacheRig : ModelServices, ssd::FtlClient {
  explicit CacheRig(const Sets& sets)
      : ModelServices(model_config("", {{"ssd.flash.page_size", "4KiB"}}, sets)), ftl("ftl"), dram("dram"), cache("cache", svc, static_cast<uint32_t>(svc.cfg.get_size("ssd.flash.page_size")),
                                                                          vp::ssd::Drive::write_buffer_bytes(vp::ScopedConfig(svc.cfg, "ssd")), vp::ssd::Drive::stripe_pages(vp::ScopedConfig(svc.cfg, "ssd"))) {
    cache.ftl.bind(ftl);
    cache.dram.bind(dram.target);
    cache.set_base(dram.reserve(cache.dram_bytes(), "cache"));
  }
  void ftl_done(ssd::FtlRequest& r) override { done[static_cast<size_t>(reinterpret_cast<uintptr_t>(r.owner))] = now_ps(); }

  // Sends `ops` at their times (in order) and simulates until all are done.
  void run(const std::vector<CacheOp>& ops) {
    reqs.resize(ops.size());
    bufs.resize(ops.size());
    done.assign(ops.size(), kNotDone);
    for (size_t i = 0; i < ops.size(); ++i) {
      bufs[i].assign(size_t(ops[i].pages) * kCachePage, 0);
      if (ops[i].op == ssd::IoOp::Write)
        for (uint32_t p = 0; p < ops[i].pages; ++p)
          std::fill_n(bufs[i].begin() + long(p) * kCachePage, kCachePage, uint8_t(ops[i].fill + p));
      ssd::FtlRequest& r = reqs[i];
      r.op = ops[i].op;
      r.lpn = ops[i].lpn;
      r.pages = ops[i].op == ssd::IoOp::Flush ? 0 : ops[i].pages;
      r.data = bufs[i].data();
      r.attr = ops[i].attr;
      r.fua = ops[i].fua;
      r.victim = ops[i].victim;
      r.victim_pages = ops[i].victim_pages;
      r.client = this;
      r.owner = reinterpret_cast<void*>(uintptr_t(i));
    }
    submit_in_time(ops.size(), [ops](size_t i) { return ops[i].at; }, [this](size_t i) { cache.submit(reqs[i]); });
    for (Tick d : done) REQUIRE(d != kNotDone);
  }
  // Every byte of request i's page p is `v`.
  bool page_is(size_t i, uint32_t p, uint8_t v) const {
    for (size_t b = 0; b < kCachePage; ++b)
      if (bufs[i][size_t(p) * kCachePage + b] != v) return false;
    return true;
  }
  static constexpr Tick kNotDone = ~Tick(0);
  StoreFtl ftl;
  FixedDram dram;
  ssd::CacheLayer cache;
  std::vector<ssd::FtlRequest> reqs;
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<Tick> done;
};

// A small uniform cache: 4 sets of 2 ways of 4 KiB pages (32 KiB); page
// lpn lives in set lpn mod 4.
inline Sets small_uni(Sets more = {}) {
  Sets s = {{"ssd.cache.organisation", "uni"}, {"ssd.cache.size", "32KiB"}, {"ssd.cache.ways", "2"}};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

// FastDrain's write buffer of 10 lines (one set of 10 ways of 4 KiB):
// watermarks 0.8 / 0.2 are 8 and 2 pages.
inline Sets small_fastdrain(Sets more = {}) {
  Sets s = {{"ssd.cache.organisation", "fastdrain"}, {"ssd.cache.size", "40KiB"}, {"ssd.cache.ways", "10"}};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

// A conventional buffer (bulk) of 8 lines, 4 sets of 2 ways: page lpn in set lpn mod 4.
inline Sets small_bulk(Sets more = {}) {
  Sets s = {{"ssd.cache.organisation", "bulk"}, {"ssd.cache.size", "32KiB"}, {"ssd.cache.ways", "2"}};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

// DeepFlash's burst buffer of 4 direct-mapped entries: page lpn in entry lpn mod 4.
inline Sets small_burst(Sets more = {}) {
  Sets s = {{"ssd.cache.organisation", "burst"}, {"ssd.cache.size", "16KiB"}};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

}  // namespace vp::test
