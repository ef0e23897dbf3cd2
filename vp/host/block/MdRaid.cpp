// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/block/MdRaid.hpp"

#include <algorithm>
#include <cstring>

#include "vp/host/block/IoParts.hpp"

namespace vp::host {

// An I/O on the array, from its split to its last member I/O.
struct MdRaid::Parent {
  IoRequest* io = nullptr;
  unsigned left = 0;  // member I/Os of the current phase not yet completed
  uint16_t status = 0;
  std::vector<IoRequest*> kids;  // every member I/O it issued (freed when it completes)
  // A RAID-5 write: its rows (stripe heads) in member-offset order, the
  // first of its run of heads, whether it is in its write phase.
  struct Page {
    uint32_t off = 0, len = 0;  // new data in the page (len 0: none)
    uint64_t src = 0;           // its offset in the I/O's buffer
  };
  struct WriteRow {
    uint64_t stripe, row;
    std::vector<Page> data;  // per data slot
    bool full = false, rmw = false;
  };
  std::vector<WriteRow> rows;
  unsigned head0 = 0;
  bool writing = false;
};

void MdRaid::declare_params(const ParamScope& md) {
  md.choice("level", "none", {"none", "raid0", "raid1", "raid5"},
            "a software RAID /dev/md0 over every drive of the platform (platform.drives), with no superblock: raid0 "
            "stripes chunks round robin, raid1 mirrors, raid5 stripes with rotating parity (left-symmetric) and "
            "read-modify-write; none: no array");
  md.size("chunk", "512KiB",
          "raid0, raid5: bytes of one member before the next member's (mdadm's default chunk is 512 KiB); a "
          "multiple of 4 KiB")
      .at_least(4096);
  md.time("bio_cost", "300ns",
          "CPU time md takes per member I/O it builds (bio_split, the remap, generic_make_request), on top of the "
          "member queue's blk-mq costs (chosen: Linux's make_request path is a few hundred instructions)");
  md.integer("stripe_cache", 256,
             "raid5: stripe heads (one 4 KiB page per member each, in host memory) for writes; Linux's "
             "stripe_cache_size, 256 by default. A write takes a run of heads, one per row it touches, and waits "
             "when they are not free")
      .range(1, 32768);
  md.bandwidth("xor_rate", "10GB/s",
               "raid5: bytes per second a core XORs (parity) and copies into the stripe cache (chosen: Linux's "
               "boot-time xor benchmark reports 10-40 GB/s with SSE/AVX on server cores)");
}

MdRaid::Level MdRaid::level_from(const ScopedConfig& md) {
  return md.get_enum<Level>("level", {{"none", Level::None},
                                      {"raid0", Level::Raid0},
                                      {"raid1", Level::Raid1},
                                      {"raid5", Level::Raid5}});
}

uint64_t MdRaid::capacity(Level level, uint64_t chunk, uint64_t member_bytes, unsigned members) {
  switch (level) {
    case Level::Raid0: return member_bytes / chunk * chunk * members;
    case Level::Raid1: return member_bytes;
    case Level::Raid5: return members < 2 ? 0 : member_bytes / chunk * chunk * (members - 1);
    case Level::None: break;
  }
  return 0;
}

uint64_t MdRaid::stripe_cache_bytes(const ScopedConfig& md, unsigned members) {
  if (level_from(md) != Level::Raid5) return 0;
  return uint64_t(md.get_int("stripe_cache")) * members * kPage;
}

uint64_t MdRaid::max_rows(uint64_t bytes, uint64_t chunk, unsigned members) {
  const uint64_t pages = (bytes + kPage - 1) / kPage + 1;  // +1: an unaligned start
  const uint64_t stripe = chunk * (members - 1);
  return std::min(pages, ((bytes + stripe - 1) / stripe + 1) * (chunk / kPage));
}

MdRaid::Stats::Stats(const StatGroup& s)
    : ios(s.counter("ios", "I/Os", "I/Os submitted to the array (flushes included)")),
      member_ios(s.counter("member_ios", "I/Os", "I/Os the array submitted to its members")),
      reads_balanced(s.counter("reads_balanced", "I/Os",
                               "raid1: reads sent to another member than the first (read balancing)")),
      full_rows(s.counter("full_rows", "stripe heads", "raid5: rows written whole (parity from the new data)")),
      rmw_rows(s.counter("rmw_rows", "stripe heads",
                         "raid5: rows written by read-modify-write (old data and parity read first)")),
      rcw_rows(s.counter("rcw_rows", "stripe heads",
                         "raid5: rows written by reconstruct-write (the data not written read first)")),
      parity_bytes(s.counter("xor_bytes", "bytes", "raid5: bytes XORed or copied into the stripe cache")),
      stripe_waits(s.counter("stripe_waits", "I/Os",
                             "raid5: writes that waited for a row another write held or for free stripe heads")) {}

MdRaid::MdRaid(const ScopedConfig& cfg, const StatGroup& stats, std::vector<unsigned> members,
               HostMemoryAllocator& memory, std::function<uint8_t*(uint64_t)> host_ptr)
    : level_(level_from(cfg)),
      chunk_bytes_(cfg.get_size("chunk")),
      bio_cost_(cfg.get_time("bio_cost")),
      xor_bytes_per_ps_(cfg.get_bandwidth("xor_rate") / 1e12),
      members_(std::move(members)),
      in_flight_(members_.size(), 0),
      memory_(&memory),
      host_ptr_(std::move(host_ptr)),
      st_(stats) {
  stats.section("md", "the md array: level, chunk, members, RAID-5 stripe heads", [this, level = cfg.get_string("level")] {
    return nlohmann::json{{"level", level},
                          {"chunk_bytes", chunk_bytes_},
                          {"members", members_.size()},
                          {"stripe_heads", heads_}};
  });
  if (level_ == Level::Raid5) {
    heads_ = static_cast<unsigned>(cfg.get_int("stripe_cache"));
    cache_base_ = memory.alloc("md stripe cache", stripe_cache_bytes(cfg, static_cast<unsigned>(members_.size())));
    free_heads_.assign(heads_, 1);
  }
}

MdRaid::~MdRaid() = default;

ControllerInfo MdRaid::info(const std::vector<const ControllerInfo*>& members) const {
  ControllerInfo a = *members.front();
  uint64_t smallest = ~uint64_t(0);
  for (const ControllerInfo* m : members) {
    smallest = std::min(smallest, m->ns_lbas * m->lba_size);
    a.max_transfer = std::min(a.max_transfer, m->max_transfer);
    a.volatile_write_cache = a.volatile_write_cache || m->volatile_write_cache;
  }
  a.model = "md raid";
  a.serial = "md0";
  a.ns_lbas = capacity(level_, chunk_bytes_, smallest, static_cast<unsigned>(members.size())) / a.lba_size;
  return a;
}

IoRequest& MdRaid::child(IoRequest& io, Parent& p, unsigned member, uint64_t lba, uint64_t byte_off,
                         uint32_t bytes, std::vector<IoRequest*>& out) {
  if (free_.empty()) {
    pool_.push_back(std::make_unique<IoRequest>());
    free_.push_back(pool_.back().get());
  }
  IoRequest& c = *free_.back();
  free_.pop_back();
  c = IoRequest{};
  c.write = io.write;
  c.flush = io.flush;
  c.lba = lba;
  c.bytes = bytes;
  c.nlb = io.nlb ? static_cast<uint32_t>(uint64_t(bytes) * io.nlb / io.bytes) : 0;
  c.buf_addr = io.buf_addr + byte_off;
  c.buf = io.buf ? io.buf + byte_off : nullptr;
  c.job = io.job;
  c.slot = io.slot;
  c.attr = io.attr;
  c.polled = io.polled;
  c.cdw2_hint = io.cdw2_hint;
  c.cdw3 = io.cdw3;
  c.issued = io.issued;
  c.clock = io.clock;
  c.dev = static_cast<uint16_t>(members_[member]);
  p.kids.push_back(&c);
  of_[&c] = {&p, member};
  ++in_flight_[member];
  ++p.left;
  ++st_.member_ios;
  out.push_back(&c);
  return c;
}

unsigned MdRaid::parity_member(uint64_t stripe) const {
  const unsigned n = static_cast<unsigned>(members_.size());
  return n - 1 - static_cast<unsigned>(stripe % n);
}

unsigned MdRaid::data_member(uint64_t stripe, unsigned slot) const {
  const unsigned n = static_cast<unsigned>(members_.size());
  return (parity_member(stripe) + 1 + slot) % n;
}

MdRaid::Placement MdRaid::data_place(uint64_t c, uint64_t in_chunk, uint64_t chunk_lbas) const {
  const unsigned n = static_cast<unsigned>(members_.size());
  if (level_ == Level::Raid5) {
    const uint64_t stripe = c / (n - 1);
    return {data_member(stripe, static_cast<unsigned>(c % (n - 1))), stripe * chunk_lbas + in_chunk};
  }
  return {static_cast<unsigned>(c % n), (c / n) * chunk_lbas + in_chunk};
}

const std::vector<IoRequest*>& MdRaid::split(IoRequest& io, Tick& cpu) {
  out_.clear();
  if (free_parents_.empty()) {
    parent_pool_.push_back(std::make_unique<Parent>());
    free_parents_.push_back(parent_pool_.back().get());
  }
  Parent& p = *free_parents_.back();
  free_parents_.pop_back();
  p.io = &io;
  p.status = 0;
  p.left = 0;
  p.kids.clear();
  p.rows.clear();
  p.writing = false;
  const unsigned n = static_cast<unsigned>(members_.size());
  ++st_.ios;
  if (io.flush || (level_ == Level::Raid1 && io.write)) {
    for (unsigned m = 0; m < n; ++m) child(io, p, m, io.lba, 0, io.bytes, out_);
  } else if (level_ == Level::Raid1) {
    unsigned best = 0;
    for (unsigned m = 1; m < n; ++m)
      if (in_flight_[m] < in_flight_[best]) best = m;
    if (best) ++st_.reads_balanced;
    child(io, p, best, io.lba, 0, io.bytes, out_);
  } else if (level_ == Level::Raid5 && io.write) {
    plan_write(p);
    if (waiting_.empty() && try_start(p, out_, cpu)) return out_;
    ++st_.stripe_waits;
    waiting_.push_back(&p);
  } else {
    // raid0, and raid5's reads: one member I/O per chunk the I/O touches.
    const uint64_t lba_size = io.bytes / io.nlb, chunk_lbas = chunk_bytes_ / lba_size;
    uint64_t lba = io.lba, off = 0;
    while (off < io.bytes) {
      const uint64_t c = lba / chunk_lbas, in_chunk = lba % chunk_lbas;
      const uint64_t bytes = std::min<uint64_t>((chunk_lbas - in_chunk) * lba_size, io.bytes - off);
      Placement at = data_place(c, in_chunk, chunk_lbas);
      child(io, p, at.member, at.member_lba, off, static_cast<uint32_t>(bytes), out_);
      off += bytes;
      lba += bytes / lba_size;
    }
  }
  return out_;
}

// ---------------------------------------------------------------- raid5 writes

// The rows the write touches, each with the new data of its pages, and how
// each is written (file comment).
void MdRaid::plan_write(Parent& p) {
  const IoRequest& io = *p.io;
  const unsigned d = static_cast<unsigned>(members_.size()) - 1;
  const uint64_t lba_size = io.bytes / io.nlb, start = io.lba * lba_size;
  std::map<std::pair<uint64_t, uint64_t>, Parent::WriteRow> rows;
  for (uint64_t off = 0; off < io.bytes;) {
    const uint64_t a = start + off, c = a / chunk_bytes_, in_chunk = a % chunk_bytes_;
    const uint64_t row = in_chunk / kPage, in_page = in_chunk % kPage;
    const uint64_t len = std::min<uint64_t>(kPage - in_page, io.bytes - off);
    const uint64_t stripe = c / d;
    auto [it, fresh] = rows.try_emplace({stripe, row});
    if (fresh) {
      it->second.stripe = stripe;
      it->second.row = row;
      it->second.data.assign(d, {});
    }
    Parent::Page& pg = it->second.data[c % d];
    if (!pg.len) pg.off = static_cast<uint32_t>(in_page), pg.src = off;
    pg.len += static_cast<uint32_t>(len);
    off += len;
  }
  for (auto& [key, r] : rows) {
    unsigned whole = 0, touched = 0;
    for (const auto& pg : r.data) {
      whole += pg.len == kPage;
      touched += pg.len != 0;
    }
    r.full = whole == d;
    // Pages read first: read-modify-write the touched ones and the parity,
    // reconstruct-write the ones not written whole; fewer wins, reconstruct on a tie.
    const unsigned rmw = touched + 1, rcw = d - whole;
    r.rmw = !r.full && rmw < rcw;
    if (r.full)
      ++st_.full_rows;
    else if (r.rmw)
      ++st_.rmw_rows;
    else
      ++st_.rcw_rows;
    p.rows.push_back(std::move(r));
  }
}

// Takes the write's rows and a run of free heads, and issues its first
// phase (reads; or the writes when every row is written whole). False
// when a row is held or no run of heads is free.
bool MdRaid::try_start(Parent& p, std::vector<IoRequest*>& out, Tick& cpu) {
  for (const auto& r : p.rows)
    if (held_.count({r.stripe, r.row})) return false;
  const unsigned need = static_cast<unsigned>(p.rows.size());
  unsigned run = 0, first = 0;
  for (unsigned h = 0; h < heads_ && run < need; ++h) {
    if (!free_heads_[h]) {
      run = 0;
      continue;
    }
    if (run++ == 0) first = h;
  }
  if (run < need) return false;
  p.head0 = first;
  for (unsigned h = first; h < first + need; ++h) free_heads_[h] = 0;
  for (const auto& r : p.rows) held_[{r.stripe, r.row}] = &p;
  bool reads = false;
  for (const auto& r : p.rows) reads = reads || !r.full;
  if (!reads) {
    cpu += compute_parity(p);  // on the submitting core, or the one whose completion let it start
    p.writing = true;
  }
  issue_phase(p, !p.writing, out);
  return true;
}

// One member I/O per member and run of rows adjacent on it, to or from the
// stripe cache pages of those rows (member-major: a member's pages of
// consecutive heads are consecutive in memory).
void MdRaid::issue_phase(Parent& p, bool reads, std::vector<IoRequest*>& out) {
  const unsigned n = static_cast<unsigned>(members_.size()), d = n - 1;
  const IoRequest& io = *p.io;
  const uint64_t lba_size = io.bytes / io.nlb;
  auto needs = [&](const Parent::WriteRow& r, unsigned m) {
    const unsigned parity = parity_member(r.stripe);
    if (m == parity) return reads ? r.rmw : true;
    const unsigned slot = (m + n - parity - 1) % n;
    const Parent::Page& pg = r.data[slot];
    if (!reads) return pg.len != 0;
    if (r.full) return false;
    return r.rmw ? pg.len != 0 : pg.len != kPage;
  };
  IoRequest tmpl = io;
  tmpl.write = !reads;
  tmpl.buf = nullptr;
  for (unsigned m = 0; m < n; ++m) {
    size_t i = 0;
    while (i < p.rows.size()) {
      if (!needs(p.rows[i], m)) {
        ++i;
        continue;
      }
      size_t j = i + 1;
      auto member_off = [&](size_t k) { return p.rows[k].stripe * chunk_bytes_ + p.rows[k].row * kPage; };
      while (j < p.rows.size() && needs(p.rows[j], m) && member_off(j) == member_off(j - 1) + kPage) ++j;
      const uint64_t addr = cache_base_ + (uint64_t(m) * heads_ + p.head0 + i) * kPage;
      tmpl.buf_addr = addr;
      tmpl.bytes = static_cast<uint32_t>((j - i) * kPage);
      tmpl.nlb = static_cast<uint32_t>(tmpl.bytes / lba_size);
      IoRequest& c = child(tmpl, p, m, member_off(i) / lba_size, 0, tmpl.bytes, out);
      c.buf = host_ptr_ ? host_ptr_(addr) : nullptr;
      i = j;
    }
  }
  (void)d;
}

// The new data into the stripe cache and each row's parity, as raid5.c's
// biodrain and xor; returns the CPU time at xor_rate.
Tick MdRaid::compute_parity(Parent& p) {
  const unsigned n = static_cast<unsigned>(members_.size()), d = n - 1;
  const IoRequest& io = *p.io;
  uint64_t bytes = 0;
  auto page = [&](unsigned m, size_t i) -> uint8_t* {
    return host_ptr_ ? host_ptr_(cache_base_ + (uint64_t(m) * heads_ + p.head0 + i) * kPage) : nullptr;
  };
  auto xor_into = [&](uint8_t* dst, const uint8_t* src) {
    if (dst && src)
      for (uint32_t b = 0; b < kPage; ++b) dst[b] ^= src[b];
    bytes += kPage;
  };
  for (size_t i = 0; i < p.rows.size(); ++i) {
    const Parent::WriteRow& r = p.rows[i];
    uint8_t* parity = page(parity_member(r.stripe), i);
    if (r.rmw)  // old parity ^ old data of the pages written, before the new data goes in
      for (unsigned s = 0; s < d; ++s)
        if (r.data[s].len) xor_into(parity, page(data_member(r.stripe, s), i));
    for (unsigned s = 0; s < d; ++s) {
      const Parent::Page& pg = r.data[s];
      if (!pg.len) continue;
      uint8_t* dst = page(data_member(r.stripe, s), i);
      if (dst && io.buf) std::memcpy(dst + pg.off, io.buf + pg.src, pg.len);
      bytes += pg.len;
    }
    if (!r.rmw && parity) std::memset(parity, 0, kPage);
    for (unsigned s = 0; s < d; ++s)
      if (r.rmw ? r.data[s].len != 0 : true) xor_into(parity, page(data_member(r.stripe, s), i));
  }
  st_.parity_bytes += bytes;
  return static_cast<Tick>(double(bytes) / xor_bytes_per_ps_);
}

// The write is done: its rows and heads are free, and the writes waiting
// for them start, first come first served.
void MdRaid::release(Parent& p, std::vector<IoRequest*>& out, Tick& cpu) {
  for (const auto& r : p.rows) held_.erase({r.stripe, r.row});
  for (unsigned h = p.head0; h < p.head0 + p.rows.size(); ++h) free_heads_[h] = 1;
  while (!waiting_.empty() && try_start(*waiting_.front(), out, cpu)) waiting_.pop_front();
}

IoRequest* MdRaid::fan_in(IoRequest& r, Next& next) {
  auto it = of_.find(&r);
  if (it == of_.end()) return nullptr;
  auto [p, member] = it->second;
  of_.erase(it);
  --in_flight_[member];
  if (r.status && !p->status) p->status = r.status;  // an error beats success; the first error stands
  if (--p->left > 0) return nullptr;
  IoRequest& app = *p->io;
  if (!p->rows.empty() && !p->writing) {  // raid5: the reads are in, parity, then the writes
    next.cpu += compute_parity(*p);
    p->writing = true;
    const size_t before = next.submit.size();
    issue_phase(*p, false, next.submit);
    next.cpu += bio_cost_ * Tick(next.submit.size() - before);
    return nullptr;
  }
  complete_from_parts(app, r, p->status, p->kids);
  for (IoRequest* k : p->kids) free_.push_back(k);
  if (!p->rows.empty()) {
    // Writes that waited start now; their parity (full rows) and bios are this core's.
    std::vector<IoRequest*> started;
    release(*p, started, next.cpu);
    for (IoRequest* s : started) next.submit.push_back(s);
    next.cpu += bio_cost_ * Tick(started.size());
  }
  free_parents_.push_back(p);
  return &app;
}

}  // namespace vp::host
