// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/firmware/DeepFlashFirmware.hpp"

#include <algorithm>
#include <memory>

#include "vp/ssd/firmware/Firmware.hpp"

namespace vp::ssd {

DeepFlashStats::DeepFlashStats(const StatGroup& fw)
    : forwards(fw.counter("ilock.forwards", "requests", "requests forwarded to the NVMQ thread holding their range")),
      lock_waits(fw.counter("ilock.waits", "requests", "requests whose NVMQ thread waited for a range another held")),
      bypassed(fw.counter("cache.bypassed", "requests",
                          "reads an NVMQ thread sent straight to TRANS after its own cache lookup")) {}

void DeepFlashFirmware::declare_params(const ParamScope& fw) {
  fw.boolean("ilock.forwarding", true,
             "deepflash: a request whose range another NVMQ thread holds is forwarded to it (sec. 5.2); "
             "off: the requester waits for the range (BaseDeepFlash)");
  fw.time("ilock.retry", "2us",
          "deepflash without forwarding: a requester waiting for a held range asks ILOCK again this often (each "
          "time ILOCK pays a lookup and both pay a message: the tight NVMQ/ILOCK traffic of BaseDeepFlash, "
          "sec. 6.1); 0: it waits for the grant silently");
  fw.size("ilock.range", "256KiB", "bytes one ILOCK lock covers (the page size: a page lock)").at_least(1);
  fw.boolean("cache_bypass", true,
             "deepflash: NVMQ looks the cache up itself and sends read misses straight to TRANS (sec. 5.3); "
             "off: every request passes a CACHE thread");
  fw.integer("fetch_batch", 64, "deepflash: most commands one NVMQ fetch copies from an SQ").range(1, 65536);
  fw.integer("threads.nvmq", 8, "deepflash: NVMQ threads").range(1, 1024);
  fw.integer("threads.ilock", 1, "deepflash: ILOCK threads (a range's lock is served by range mod n)").range(1, 1024);
  fw.integer("threads.cache", 2, "deepflash: CACHE threads (0: no CACHE stage)").range(0, 1024);
  fw.integer("threads.fcmd", 8, "deepflash: FCMD threads, each serving a group of channels").range(1, 1024);
  fw.integer("threads.log", 1, "deepflash: LOG threads running journal steps (0: FCMD pays them)").range(0, 1);
  fw.integer("threads.bgc", 1, "deepflash: BGC threads running GC steps (0: FCMD pays them)").range(0, 1);
  // DeepFlash's threads do in software what the other organisations leave to
  // the controller's hardware (fetching commands, posting completions,
  // passing requests between threads). With none of that costing a cycle the
  // thread network models nothing, yet it runs: refuse it.
  fw.rule([](const ScopedConfig& c) {
    if (!c.is("organisation", "deepflash")) return;
    for (const char* k : {"cost.fetch", "cost.fetch_batch", "cost.complete", "cost.cq_flush", "cost.message"})
      if (c.get_int(k)) return;
    c.fail({"organisation", "cost.fetch", "cost.fetch_batch", "cost.complete", "cost.cq_flush", "cost.message"},
           "DeepFlash's threads fetch commands, post completions and pass messages in software, and every one of "
           "those costs is 0 (the default, for the controller hardware of the other organisations): the threads "
           "would cost nothing. Stack deepflash/parts/firmware (the paper's controller, threads and costs), or set "
           "the costs");
  });
}

DeepFlashFirmware::DeepFlashFirmware(Firmware& fw, const ScopedConfig& c, uint32_t shards, DeepFlashStats& stats)
    : FirmwareOrganisation(fw),
      forwarding_(c.get_bool("ilock.forwarding")),
      bypass_(c.get_bool("cache_bypass")),
      retry_(c.get_time("ilock.retry")),
      range_bytes_(c.get_size("ilock.range")),
      fetch_batch_(static_cast<uint32_t>(c.get_int("fetch_batch"))),
      shards_(shards),
      n_nvmq_(static_cast<unsigned>(c.get_int("threads.nvmq"))),
      n_ilock_(static_cast<unsigned>(c.get_int("threads.ilock"))),
      n_cache_(static_cast<unsigned>(c.get_int("threads.cache"))),
      n_fcmd_(static_cast<unsigned>(c.get_int("threads.fcmd"))),
      n_log_(static_cast<unsigned>(c.get_int("threads.log"))),
      n_bgc_(static_cast<unsigned>(c.get_int("threads.bgc"))),
      lock_(1),
      stats_(stats) {}

void DeepFlashFirmware::bound(uint32_t page_bytes) {
  lock_ = IndexLock(static_cast<uint32_t>(std::max<uint64_t>(1, range_bytes_ / page_bytes)));
}

std::vector<FwRole> DeepFlashFirmware::roles(FirmwareRoles& r, const FirmwareCosts& c) const {
  return {{&r.nvmq, "nvmq", n_nvmq_,
           c.planned({{Fetch, 1}, {Parse, 1}, {CacheLookup, bypass_ ? 1.0 : 0.0}, {Complete, 1}, {CqFlush, 1},
                      {Message, 3}})},
          {&r.trans, "trans", shards_, c.planned({{Trans, 1}, {Message, 1}})},
          {&r.fcmd, "fcmd", n_fcmd_, c.planned({{Compose, 1}, {Message, 1}})},
          {&r.cache, "cache", n_cache_, c.planned({{CacheLookup, bypass_ ? 0.0 : 1.0}, {Cache, 0.5}, {Message, 1}})},
          {&r.ilock, "ilock", n_ilock_, c.planned({{Lock, 2}, {LockLevel, 16}, {Message, 2}})},
          {&r.log, "log", n_log_, c.planned({{Journal, 0.01}, {Message, 0.01}})},
          {&r.bgc, "bgc", n_bgc_, c.planned({{Gc, 0.01}, {Message, 0.01}})}};
}

void DeepFlashFirmware::placed(FirmwareRoles& r, FirmwareCosts& costs) {
  FirmwareOrganisation::placed(r, costs);
  // The cache metadata (NVMQ's lookups with the bypass, CACHE's updates),
  // the lock tree, and with DIOS the shared SQ and CQ buffers.
  costs.shared(CacheLookup, bypass_ ? cores_of({&r.nvmq, &r.cache}) : cores_of({&r.cache}));
  costs.shared(Cache, cores_of({&r.cache}));
  costs.shared(Lock, cores_of({&r.ilock}));
  costs.shared(LockLevel, cores_of({&r.ilock}));
  // With DIOS every NVMQ thread moves the shared SQ and CQ buffers' head
  // and tail (D-head, D-tail); the entries themselves are each one's own.
  if (dispatch() == FwDispatch::Dios)
    for (FwTask k : {FetchBatch, CqFlush}) costs.shared(k, cores_of({&r.nvmq}));
}

// ------------------------------------------------------------ queue-gather

void DeepFlashFirmware::submit(FwJob& j) {
  uint16_t sqid = j.c->sqid;
  arrival_[sqid].push_back(&j);
  sq_buf_[sqid].push_back(&j);
  if (!fetching_[sqid]) fetch_more(sqid);
}

void DeepFlashFirmware::fetch_more(uint16_t sqid) {
  fetching_[sqid] = true;
  // The batch is what the SQ holds when the fetch starts.
  auto batch = std::make_shared<std::vector<FwJob*>>();
  FwWork w;
  w.start = [this, sqid, batch] {
    auto& buf = sq_buf_[sqid];
    while (!buf.empty() && batch->size() < fetch_batch_) {
      batch->push_back(buf.front());
      buf.pop_front();
    }
    return costs().time({{FetchBatch, 1}, {Fetch, batch->size()}});
  };
  w.done = [this, sqid, batch](FirmwareThread& by) {
    for (FwJob* j : *batch)
      to_nvmq(by, FwWork{costs().time(Parse), {}, [this, j](FirmwareThread& t) { parsed(*j, t); }, j->latency()});
    fetching_[sqid] = false;
    if (!sq_buf_[sqid].empty()) fetch_more(sqid);
  };
  to_nvmq(nvmq_for(sqid), std::move(w));
}

void DeepFlashFirmware::parsed(FwJob& j, FirmwareThread& by) {
  j.home = &by;
  // ILOCK sees an SQ's requests in the SQ's order (FAST'20 sec. 5.2), so a
  // later request of an SQ never takes a range before an earlier one.
  j.parsed = true;
  auto& arrived = arrival_[j.c->sqid];
  while (!arrived.empty() && arrived.front()->parsed) {
    FwJob& n = *arrived.front();
    arrived.pop_front();
    if (n.pages == 0 || n.c->op == IoOp::Flush)
      issue(n);
    else
      lock(n, *n.home);
  }
}

FirmwareThread& DeepFlashFirmware::ilock_for(uint64_t lpn) const {
  const auto& ilock = role_threads().ilock;
  return *ilock[lock_.first_range(lpn) % ilock.size()];
}

Tick DeepFlashFirmware::lock_op_time() const {
  return costs().time({{Lock, 1}, {Message, 1}}) + costs().time(LockLevel, lock_.depth());
}

bool DeepFlashFirmware::lock_waited(const FwJob& j) const {
  uint64_t first = lock_.first_range(j.lpn), last = lock_.last_range(j.lpn, j.pages);
  for (const FwJob* w : lock_queue_)
    if (lock_.first_range(w->lpn) <= last && first <= lock_.last_range(w->lpn, w->pages)) return true;
  return false;
}

void DeepFlashFirmware::lock(FwJob& j, FirmwareThread& requester) {
  j.home = &requester;
  if (!forwarding_) requester.block();  // it waits for the reply
  FwWork w;
  w.start = [this] { return lock_op_time(); };
  w.done = [this, &j, &requester](FirmwareThread&) {
    // Without forwarding the requester stays blocked, first come first
    // served behind earlier waiters for its ranges.
    if (!forwarding_ && (lock_waited(j) || lock_.acquire(j.lpn, j.pages, requester.id()) != IndexLock::kFree))
      return wait_for_lock(j);
    int holder = forwarding_ ? lock_.acquire(j.lpn, j.pages, requester.id()) : IndexLock::kFree;
    lock_reply(j, requester, holder);
  };
  w.latency = j.latency();
  ilock_for(j.lpn).post(std::move(w));
}

void DeepFlashFirmware::wait_for_lock(FwJob& j) {
  ++stats_.lock_waits;
  j.waiting = true;
  lock_queue_.push_back(&j);
  poll_lock(j);
}

void DeepFlashFirmware::poll_lock(FwJob& j) {
  if (retry_ == 0) return;
  // The job may be granted, served and gone before a poll fires: each step
  // finds it again by its command and serial number.
  auto still_waiting = [this, c = j.c, serial = j.serial]() -> FwJob* {
    FwJob* w = find(c, serial);
    return w && w->waiting ? w : nullptr;
  };
  queue().after(retry_, [this, still_waiting] {
    FwJob* w = still_waiting();
    if (!w) return;
    FwWork ask;
    ask.start = [this] { return lock_op_time(); };
    ask.done = [this, still_waiting](FirmwareThread&) {
      FwJob* w = still_waiting();
      if (!w) return;  // granted meanwhile
      w->home->post_urgent(FwWork{costs().time(Message), {}, [this, still_waiting](FirmwareThread&) {
                                    if (FwJob* w = still_waiting()) poll_lock(*w);  // still held: ask again later
                                  }});
    };
    ilock_for(w->lpn).post(std::move(ask));
  });
}

void DeepFlashFirmware::lock_reply(FwJob& j, FirmwareThread& requester, int holder) {
  j.waiting = false;
  requester.post_urgent(FwWork{costs().time(Message), {}, [this, &j, holder](FirmwareThread& t) {
                                 if (holder == IndexLock::kFree) {
                                   j.locked = true;
                                   dispatch_job(j, t);
                                   if (t.blocked()) t.unblock();
                                   return;
                                 }
                                 // Ownership forwarding: the holder serves it under its lock.
                                 ++stats_.forwards;
                                 send(*fw_.threads()[size_t(holder)], 0, [this, &j](FirmwareThread& owner) {
                                   if (lock_.holds(j.lpn, j.pages, owner.id())) {
                                     lock_.retain(j.lpn, j.pages);
                                     j.locked = true;
                                     dispatch_job(j, owner);
                                   } else {
                                     lock(j, owner);  // released meanwhile: ask ILOCK again
                                   }
                                 });
                               }});
}

void DeepFlashFirmware::finished(uint64_t lpn, uint32_t pages, bool locked) {
  if (locked) release(lpn, pages);
}

void DeepFlashFirmware::release(uint64_t lpn, uint32_t pages) {
  FwWork w;
  w.start = [this] { return lock_op_time(); };
  w.done = [this, lpn, pages](FirmwareThread&) {
    if (lock_.release(lpn, pages).empty() || lock_queue_.empty()) return;
    // Waiters in arrival order; one stays behind an earlier one on its ranges.
    std::vector<FwJob*> waiting = std::move(lock_queue_);
    lock_queue_.clear();
    for (FwJob* w : waiting) {
      if (!lock_waited(*w) && lock_.acquire(w->lpn, w->pages, w->home->id()) == IndexLock::kFree)
        lock_reply(*w, *w->home, IndexLock::kFree);
      else
        lock_queue_.push_back(w);
    }
  };
  ilock_for(lpn).post(std::move(w));
}

// ------------------------------------------------------------ trans-apply

void DeepFlashFirmware::dispatch_job(FwJob& j, FirmwareThread& holder) {
  j.home = &holder;
  const auto& cache = role_threads().cache;
  if (cache.empty()) return to_trans(j);
  FirmwareThread& ct = *cache[j.lpn % cache.size()];
  bool write = j.c->op == IoOp::Write, read = j.c->op == IoOp::Read;
  // Writes stay in the cache's DRAM when it buffers them; reads hit or miss.
  auto to_cache = [this, &j, write, read] {
    return (write && ftl().buffers_writes()) || (read && ftl().cached(j.lpn, j.pages));
  };
  if (bypass_) {
    holder.post_urgent(FwWork{costs().time(CacheLookup, j.pages), {}, [this, &j, &ct, to_cache](FirmwareThread&) {
                                if (to_cache())
                                  return send(ct, costs().time(Cache, j.pages), [this, &j](FirmwareThread&) { issue(j); });
                                if (j.c->op == IoOp::Read) ++stats_.bypassed;
                                to_trans(j);
                              }});
    return;
  }
  // CACHE looks up every request; it works on hits and writes only.
  auto hit = std::make_shared<bool>(false);
  FwWork w;
  w.start = [this, &j, hit, to_cache] {
    *hit = to_cache();
    return costs().time({{Message, 1}, {CacheLookup, j.pages}, {Cache, *hit ? j.pages : 0}});
  };
  w.done = [this, &j, hit](FirmwareThread&) {
    if (*hit)
      issue(j);
    else
      to_trans(j);
  };
  w.latency = j.latency();
  ct.post(std::move(w));
}

void DeepFlashFirmware::to_trans(FwJob& j) {
  send(*role_threads().trans[shard_of(j.lpn)], costs().time(Trans, j.pages), [this, &j](FirmwareThread&) { issue(j); });
}

}  // namespace vp::ssd
