// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The FTL on the flash array with nothing above it: a driver issues page
// reads, writes and trims at a queue depth, fills every written page with a
// pattern naming its logical page and version, and checks what comes back.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <catch2/catch.hpp>
#include <cstring>
#include <iostream>
#include <systemc>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tests/TestSupport.hpp"
#include "vp/core/Rng.hpp"
#include "vp/flash/FlashArray.hpp"
#include "vp/ssd/ftl/PageMappingFtl.hpp"

namespace vp::test {

inline Config ftl_config(const Sets& sets) { return model_config("quick", {}, sets); }

class FtlRig : public ssd::FtlClient {
 public:
  struct Op {
    ssd::IoOp op;
    uint64_t lpn;
    bool urgent = false;
  };

  explicit FtlRig(const Sets& sets)
      : cfg(ftl_config(sets)),
        svc{cfg, stats, waves, tracker, 7},
        // a spare area per mapping unit, as the drive builds it
        flash("flash", svc, flash::FlashArray::kScope,
              ssd::PageMappingFtl::units_per_page(ScopedConfig(svc.cfg, ssd::PageMappingFtl::kScope), geometry())),
        ftl("ftl", svc, geometry()),
        page_(ftl.page_size()) {
    ftl.flash.bind(flash.target);
  }

  flash::FlashGeometry geometry() const {
    return flash::FlashArray::geometry_from(ScopedConfig(svc.cfg, flash::FlashArray::kScope));
  }
  // Runs `n` operations from `next` with up to `qd` in flight; returns when all completed.
  void run(uint64_t n, unsigned qd, const std::function<Op()>& next) {
    start(qd, next);
    while (n > 0 || busy_ > 0) {
      n -= issue_ready(n);
      if (busy_ > 0) sc_core::wait(completed_);
    }
    ready_.clear();
  }
  // Keeps `qd` operations in flight until simulated time `until`, then cuts
  // the power with them still in flight, and boots again.
  void run_then_power_loss(Tick until, unsigned qd, const std::function<Op()>& next,
                           const std::function<void()>& before_cut = {}) {
    start(qd, next);
    while (now_ps() < until) {
      issue_ready(UINT64_MAX);
      sc_core::wait(to_sc(until - now_ps()), completed_);
    }
    if (before_cut) before_cut();
    ftl.power_loss();
    lost_ = inflight_count_;
    inflight_.clear();
    inflight_count_.clear();
    ready_.clear();
    busy_ = 0;
    for (auto& sl : slots_) graveyard_.push_back(std::move(sl));  // the flash may still name them
    slots_.clear();
    ftl.recover();
  }
  // Pages that had a write in flight when the power went: either version may be there.
  const std::unordered_map<uint64_t, uint32_t>& lost() const { return lost_; }
  // A read of one page, checked against the last write that completed.
  Op read(uint64_t lpn) { return {ssd::IoOp::Read, lpn}; }
  Op write(uint64_t lpn, bool urgent = false) { return {ssd::IoOp::Write, lpn, urgent}; }

  // Every page written reads back its last version through the map.
  uint64_t check_all() {
    std::vector<uint8_t> buf(page_);
    uint64_t bad = 0;
    for (const auto& [lpn, v] : done_) {
      if (lost_.count(lpn)) continue;
      ftl.debug_read(lpn, buf.data());
      if (!matches(buf.data(), lpn, v)) ++bad;
    }
    return bad;
  }
  uint64_t written_pages() const { return done_.size(); }
  uint64_t read_mismatches() const { return read_bad_; }
  Tick max_read_latency() const { return max_read_latency_; }
  uint64_t reads_checked() const { return read_checked_; }
  // Forgets what the pages hold (after a trim, or to accept either version after a power loss).
  std::unordered_map<uint64_t, uint32_t>& acknowledged() { return done_; }
  const std::unordered_map<uint64_t, uint32_t>& in_flight() const { return inflight_; }
  bool matches(const uint8_t* p, uint64_t lpn, uint32_t version) const {
    std::vector<uint8_t> want(page_, 0);  // version 0: never written, zeros
    if (version) fill(want.data(), lpn, version);
    return std::equal(want.begin(), want.end(), p);
  }

  Config cfg;
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  Services svc;
  flash::FlashArray flash;
  ssd::PageMappingFtl ftl;

 private:
  struct Slot {
    explicit Slot(uint32_t page) : buf(page) {}
    ssd::FtlRequest r;
    std::vector<uint8_t> buf;
    uint32_t version = 0;  // a write's; for a read, the version expected
    uint32_t writes_seen = 0;  // writes issued to the page when a read was issued
    Tick issued = 0;
    bool judged = false;  // a read with no write to its page in flight
  };
  static uint64_t lpn_key(uint64_t lpn) { return lpn * 0x9E3779B97F4A7C15ull; }
  void fill(uint8_t* p, uint64_t lpn, uint32_t version) const {
    for (uint32_t i = 0; i < page_; i += 16) {
      uint64_t w[2] = {lpn * 0x9E3779B97F4A7C15ull + i, (uint64_t(version) << 32) ^ (i * 2654435761u)};
      std::memcpy(p + i, w, std::min<uint32_t>(16, page_ - i));
    }
  }
  void start(unsigned qd, const std::function<Op()>& next) {
    next_ = next;
    while (slots_.size() < qd) slots_.push_back(std::make_unique<Slot>(page_));
    for (unsigned i = 0; i < qd; ++i) ready_.push_back(slots_[i].get());
  }
  // Issues up to `most` operations on free slots, from this thread (never
  // from inside the FTL's call stack); returns how many.
  uint64_t issue_ready(uint64_t most) {
    uint64_t n = 0;
    for (; n < most && !ready_.empty(); ++n) {
      Slot* s = ready_.back();
      ready_.pop_back();
      issue(*s);
    }
    return n;
  }
  void issue(Slot& s) {
    Op o = next_();
    ++busy_;
    s.issued = now_ps();
    s.r = ssd::FtlRequest{};
    s.r.op = o.op;
    s.r.lpn = o.lpn;
    s.r.pages = o.op == ssd::IoOp::Flush ? 0 : 1;
    s.r.urgent = o.urgent;
    s.r.data = s.buf.data();
    s.r.client = this;
    s.r.owner = &s;
    if (o.op == ssd::IoOp::Write) {
      s.version = ++version_;
      ++writes_issued_[o.lpn];
      inflight_[o.lpn] = s.version;
      ++inflight_count_[o.lpn];
      fill(s.buf.data(), o.lpn, s.version);
    } else if (o.op == ssd::IoOp::Read) {
      s.judged = !inflight_count_.count(o.lpn);
      auto d = done_.find(o.lpn);
      s.version = d == done_.end() ? 0 : d->second;
      s.writes_seen = writes_issued_[o.lpn];
    }
    ftl.submit(s.r);
  }
  void ftl_done(ssd::FtlRequest& r) override {
    Slot& s = *static_cast<Slot*>(r.owner);
    if (r.op == ssd::IoOp::Read) max_read_latency_ = std::max(max_read_latency_, now_ps() - s.issued);
    if (r.op == ssd::IoOp::Write) {
      auto& c = inflight_count_[r.lpn];
      if (--c == 0) {
        inflight_count_.erase(r.lpn);
        inflight_.erase(r.lpn);
      }
      uint32_t& d = done_[r.lpn];
      d = std::max(d, s.version);
    } else if (r.op == ssd::IoOp::Trim) {
      done_.erase(r.lpn);
    } else if (r.op == ssd::IoOp::Read && s.judged && writes_issued_[r.lpn] == s.writes_seen && !lost_.count(r.lpn)) {
      // No write to the page was in flight or issued while it was read: it
      // holds the version written last before (zeros if none was).
      ++read_checked_;
      if (!matches(s.buf.data(), r.lpn, s.version)) {
        ++read_bad_;
        uint64_t w[2];
        std::memcpy(w, s.buf.data(), 16);
        std::cerr << ("read of page ") << r.lpn << " at " << now_ps() << " ps: wanted version " << s.version
                                      << ", got version " << (w[1] >> 32) << " of page "
                                      << (w[0] == lpn_key(r.lpn) ? "the same" : "another") << "\n";
        auto a = ftl.where(r.lpn);
        flash::FlashOob o;
        bool prog = flash.peek(flash::ppn_of(flash.geometry(), a), nullptr, &o);
        std::cerr << "  now maps to ch" << a.channel << " d" << a.die << " p" << a.plane << " b" << a.block << " pg"
                  << a.page << " programmed " << prog << " oob lpn " << o.lpn << " seq " << o.seq << "\n";
      }
    }
    --busy_;
    ready_.push_back(&s);
    completed_.notify(sc_core::SC_ZERO_TIME);
  }

  uint32_t page_;
  std::function<Op()> next_;
  uint64_t busy_ = 0, read_bad_ = 0, read_checked_ = 0;
  Tick max_read_latency_ = 0;
  uint32_t version_ = 0;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> ready_;
  std::vector<std::unique_ptr<Slot>> graveyard_;
  std::unordered_map<uint64_t, uint32_t> done_, inflight_, inflight_count_, lost_, writes_issued_;
  sc_core::sc_event completed_;
};

// Runs `body` in a SystemC thread of the rig and simulates until it returns.
inline void simulate(FtlRig& rig, const std::function<void()>& body) {
  bool ran = false;
  sc_core::sc_spawn([&] {
    body();
    ran = true;
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  (void)rig;
  REQUIRE(ran);
}

}  // namespace vp::test
