// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/sched/CoreScheduler.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vp/host/workload/FioJobRunner.hpp"

namespace vp::host {

namespace {
// Linux sets these at boot from the CPUs it finds (sched_init_granularity,
// SCHED_TUNABLESCALING_LOG): the 1-CPU value times 1 + log2(CPUs), CPUs
// counted up to 8. 0 takes that rule with host.cores.
struct Tunable {
  const char* key;
  Tick one_cpu;
  const char* linux_name;
  const char* what;
};
constexpr Tunable kLatency{"latency", 6 * MS, "sched_latency",
                           "CFS scheduling period: runnable threads on a core share it"};
constexpr Tunable kMinGran{"min_granularity", 750 * US, "sched_min_granularity",
                           "shortest slice a thread runs before another runnable one may take the core"};
constexpr Tunable kWakeGran{"wakeup_granularity", 1 * MS, "sched_wakeup_granularity",
                            "a waking thread preempts the running one when it is behind it in virtual run time by "
                            "more than this"};
}  // namespace

void CoreScheduler::declare_llc_cores(const ParamScope& r) {
  r.integer("llc_cores", 0,
            "cores per last-level cache, consecutive from core 0 (a socket: wake-ups look for an idle core "
            "within it, new threads are spread over the caches first); 0: all cores share one")
      .range(0, 256);
}

void CoreScheduler::declare_params(const ParamScope& r) {
  for (const Tunable& t : {kLatency, kMinGran, kWakeGran})
    r.time(t.key, "0ns",
           fmt::format("{} ({}; 0: Linux's boot-time value for host.cores, {}us x (1 + log2(min(cores, 8))))", t.what,
                       t.linux_name, t.one_cpu / US));
  // Li et al. (ExpCS'07) measured indirect context-switch costs from a few
  // microseconds up, growing with the working set.
  r.time("cache_penalty", "2us",
         "extra core time of a context switch to a thread other than the last one that ran on the core (its "
         "cache and TLB state was displaced)");
  // Linux moves a waking thread off a busy core (select_task_rq_fair); the
  // default keeps each thread where it was placed, as earlier FlashVP did.
  r.boolean("migration", false,
            "a waking thread may move to another core: to the core that woke it when that one is less loaded, "
            "else to an idle core sharing the last-level cache (Linux 4.9's wake_affine and select_idle_sibling); "
            "threads pinned by cpus_allowed to one core stay");
  declare_llc_cores(r);
  // OS noise: kworkers, timers, the benchmark's own monitoring threads.
  r.real("background_rate", 0,
         "kernel background work (kworkers, timers, monitoring threads) woken on each core, per second, as a "
         "Poisson process; it preempts the running thread and makes the core busy for background_cost")
      .range(0, 1e7);
  r.time("background_cost", "5us", "core time of one piece of background work (kernel time)");
  // At a load of 1 or more the work arrives faster than a core serves it: no thread ever runs again.
  r.rule([](const ScopedConfig& c) {
    const double load = c.get_real("background_rate") * double(c.get_time("background_cost")) / 1e12;
    if (load >= 1)
      c.fail({"background_rate", "background_cost"},
             fmt::format("keep each core busy {:.0f}% of the time with background work (at least 100%): no "
                         "thread would ever run",
                         100 * load));
  });
}

Tick CoreScheduler::linux_default(Tick base, unsigned cpus) {
  unsigned n = std::clamp(cpus, 1u, 8u), factor = 1;
  while (n >>= 1) ++factor;  // 1 + ilog2
  return base * factor;
}

namespace {
Tick or_linux(const ScopedConfig& c, const Tunable& t, unsigned cpus) {
  Tick v = c.get_time(t.key);
  return v ? v : CoreScheduler::linux_default(t.one_cpu, cpus);
}
}  // namespace

CoreScheduler::CoreScheduler(const ScopedConfig& c, unsigned cpus, Tick ctx_switch_cost, unsigned core,
                             const std::vector<FioJobRunner*>& jobs)
    : latency_(or_linux(c, kLatency, cpus)),
      min_gran_(or_linux(c, kMinGran, cpus)),
      wake_gran_(or_linux(c, kWakeGran, cpus)),
      ctx_(ctx_switch_cost),
      penalty_(c.get_time("cache_penalty")) {
  threads_.reserve(jobs.size());
  for (FioJobRunner* j : jobs) {
    auto t = std::make_unique<HostThread>();
    t->job = j;
    t->index = core << 16 | static_cast<unsigned>(threads_.size());
    threads_.push_back(std::move(t));
  }
}

HostThread* CoreScheduler::of(const FioJobRunner& j) {
  for (auto& t : threads_)
    if (t->job == &j) return t.get();
  return nullptr;
}

std::unique_ptr<HostThread> CoreScheduler::release(HostThread& t) {
  auto it = std::find_if(threads_.begin(), threads_.end(), [&](const auto& p) { return p.get() == &t; });
  std::unique_ptr<HostThread> p = std::move(*it);
  threads_.erase(it);
  if (cur_ == &t) cur_ = nullptr;
  t.vruntime -= std::min(t.vruntime, min_vruntime_);
  return p;
}

void CoreScheduler::adopt(std::unique_ptr<HostThread> t) {
  t->vruntime += min_vruntime_;
  threads_.push_back(std::move(t));
}

Tick CoreScheduler::slice(size_t n) const { return std::max(min_gran_, latency_ / std::max<size_t>(1, n)); }

Tick CoreScheduler::slice_end(size_t runnable) const {
  if (!cur_ || runnable <= 1) return kNever;
  return slice_start_ + slice(runnable);
}

HostThread* CoreScheduler::choose(const std::vector<HostThread*>& runnable, Tick now) {
  if (runnable.empty()) return nullptr;
  // The queue's minimum only moves forward (CFS's min_vruntime).
  Tick least = runnable.front()->vruntime;
  for (HostThread* t : runnable) least = std::min(least, t->vruntime);
  min_vruntime_ = std::max(min_vruntime_, least);
  bool cur_runnable = std::find(runnable.begin(), runnable.end(), cur_) != runnable.end();
  if (cur_runnable && !resched_ && (runnable.size() == 1 || now < slice_start_ + slice(runnable.size())))
    return cur_;
  HostThread* best = cur_runnable ? cur_ : nullptr;
  for (HostThread* t : runnable)
    if (!best || t->vruntime < best->vruntime || (t->vruntime == best->vruntime && t != cur_ && best != cur_ &&
                                                  t->index < best->index))
      best = t;
  resched_ = false;
  if (best == cur_) slice_start_ = now;  // still the least run: a new slice
  else if (cur_runnable) ++preemptions_;
  return best;
}

void CoreScheduler::woken(HostThread& t) {
  Tick floor = min_vruntime_ > latency_ / 2 ? min_vruntime_ - latency_ / 2 : 0;
  t.vruntime = std::max(t.vruntime, floor);
  if (cur_ && cur_ != &t && cur_->vruntime > t.vruntime + wake_gran_) resched_ = true;
}

CoreScheduler::SwitchCost CoreScheduler::switch_to(HostThread& t, Tick now) {
  if (cur_ == &t) return {};
  // The core's first thread starts there without a switch (fio starts its
  // threads before the group begins).
  SwitchCost c = last_ ? SwitchCost{ctx_, last_ != &t ? penalty_ : 0} : SwitchCost{};
  cur_ = last_ = &t;
  slice_start_ = now;
  return c;
}

void CoreScheduler::ran(Tick d) {
  if (cur_) cur_->vruntime += d;
}

}  // namespace vp::host
