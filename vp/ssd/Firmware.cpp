// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/Firmware.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "vp/core/CpuList.hpp"
#include "vp/core/Quote.hpp"

#include "vp/ssd/ShardHash.hpp"

namespace vp::ssd {

namespace {

struct TaskSpec {
  const char* key;
  int64_t def;
  const char* desc;
};
// The defaults of the layered firmware's own tasks (parse, trans, compose)
// are the platform's reference figures; the others are 0 there because the
// default platform's controller hardware fetches and completes commands.
// The DeepFlash preset sets all of them (platforms/server/presets/deepflash.yaml).
constexpr TaskSpec kTaskSpecs[Firmware::kTasks] = {
    {"fetch", 0, "cycles to fetch one command from an SQ into the firmware's SQ buffer"},
    {"fetch_batch", 0, "cycles per fetch batch besides its commands (doorbell, head/tail update)"},
    {"parse", 400, "cycles to parse one command (opcode, LBA range, PRPs)"},
    {"lock", 0, "cycles of one ILOCK acquire or release"},
    {"lock_level", 0, "cycles per level of the lock tree walked by an ILOCK operation"},
    {"cache_lookup", 0, "cycles of a cache tag lookup, per page (NVMQ's own with the bypass)"},
    {"cache", 0, "cycles of CACHE's work on a hit or a buffered write (data placement, eviction), per page"},
    {"trans", 160, "cycles of address translation (map lookup or update, allocation), per page"},
    {"compose", 80, "cycles to compose and schedule one flash transaction"},
    {"complete", 0, "cycles to write one completion into the CQ (buffer)"},
    {"cq_flush", 0, "cycles per CQ flush (copy of the CQ buffer to the host's CQ, tail update, interrupt)"},
    {"gc", 0, "cycles of a garbage-collection step (one flash transaction of a reclaim), on BGC"},
    {"journal", 0, "cycles of a journal step (one checkpoint page), on LOG"},
    {"message", 0, "cycles for a thread to receive a message from another thread"},
};

}  // namespace

std::map<std::string, std::vector<unsigned>> Firmware::pins(const Config& c) {
  static const std::set<std::string> kRoles = {"layered", "nvmq", "trans", "fcmd", "cache", "ilock", "log", "bgc"};
  std::map<std::string, std::vector<unsigned>> out;
  std::istringstream in(c.get_string("ssd.fw.pin"));
  auto cores = static_cast<unsigned>(c.get_int("ssd.fw.cores"));
  for (std::string item; in >> item;) {
    auto eq = item.find('=');
    std::string role = item.substr(0, eq);
    if (eq == std::string::npos || !kRoles.count(role))
      c.fail("ssd.fw.pin", fmt::format("{} is not role=cpu-list with a role of layered, nvmq, trans, fcmd, cache, "
                                       "ilock, log, bgc",
                                       vp::quoted(item)));
    auto list = parse_cpu_list(item.substr(eq + 1), cores - 1);
    if (!list || list->empty())
      c.fail({"ssd.fw.pin", "ssd.fw.cores"}, fmt::format("{}: {} is not a list of cores 0-{}", vp::quoted(item),
                                                         vp::quoted(item.substr(eq + 1)), cores - 1));
    if (out.count(role)) c.fail("ssd.fw.pin", fmt::format("role {} is pinned twice", role));
    out[role] = *list;
  }
  return out;
}

struct Firmware::Job {
  HostCommand* c;
  uint64_t lpn = 0;
  uint32_t pages = 0;
  FirmwareThread* home = nullptr;  // the thread that completes it (and holds its lock)
  bool locked = false, issued = false;
  bool parsed = false;
  bool waiting = false;  // for a range (no forwarding)
  uint64_t serial = 0;    // tells a job from a later one of the same command slot
  bool ready = false;  // done in the firmware, waiting for an earlier request to one of its pages
};

void Firmware::declare_params(ParamRegistry& r) {
  r.choice("ssd.fw.organisation", "layered", {"layered", "manylayered", "deepflash"},
           "firmware threads and request path: one layered firmware per core; ManyLayered's layered+FCMD "
           "pair per shard; DeepFlash's NVMQ/ILOCK/CACHE/TRANS/FCMD/LOG/BGC network (FAST'19 sec. 4-6)");
  r.freq("ssd.fw.clock", "800MHz", "clock of the embedded firmware cores");
  r.integer("ssd.fw.cores", 1, "embedded cores the firmware threads are placed on").range(1, 256);
  r.string("ssd.fw.pin", "",
           "threads pinned to cores, space separated role=cpu-list (e.g. \"nvmq=0-3 trans=4-7 ilock=8\"): a role's "
           "threads are dealt round robin over its cores; roles: layered nvmq trans fcmd cache ilock log bgc; the "
           "others are placed by ssd.fw.placement");
  r.rule([](const Config& c) { pins(c); });
  r.choice("ssd.fw.placement", "balanced", {"balanced", "round_robin"},
           "threads to cores: balanced puts each thread, heaviest first (its role's task cycles per request over "
           "its threads), on the least loaded core; round_robin deals them out role by role");
  r.choice("ssd.fw.core_type", "inorder", {"inorder", "ooo"},
           "core pipeline: in-order runs a task's cycles as given; out-of-order divides them by ssd.fw.ooo_speedup");
  r.real("ssd.fw.ooo_speedup", 2.0, "instructions per cycle of an out-of-order core relative to an in-order one")
      .range(1.0, 16.0);
  r.real("ssd.fw.contention", 0.0,
         "memory contention: a task on a shared structure costs (1 + contention x (k - 1)) times its cycles, "
         "k the cores whose threads touch the structure")
      .range(0.0, 10.0);
  for (const auto& t : kTaskSpecs)
    r.integer(fmt::format("ssd.fw.cost.{}", t.key), t.def, t.desc).at_least(0);
  r.choice("ssd.fw.dispatch", "auto", {"auto", "per_sq", "dios"},
           "which thread takes a command: per_sq binds SQ s to thread (s-1) mod n (sqid 0 to thread 0), static "
           "queue allocation (FAST'19 sec. 4.2); dios lets any free one take any command (sec. 5.1); auto: dios "
           "for deepflash, per_sq otherwise");
  r.boolean("ssd.fw.ilock.forwarding", true,
            "deepflash: a request whose range another NVMQ thread holds is forwarded to it (sec. 5.2); "
            "off: the requester waits for the range (BaseDeepFlash)");
  r.time("ssd.fw.ilock.retry", "2us",
         "deepflash without forwarding: a requester waiting for a held range asks ILOCK again this often (each "
         "time ILOCK pays a lookup and both pay a message: the tight NVMQ/ILOCK traffic of BaseDeepFlash, "
         "sec. 6.1); 0: it waits for the grant silently");
  r.size("ssd.fw.ilock.range", "256KiB", "bytes one ILOCK lock covers (the page size: a page lock)").at_least(1);
  r.boolean("ssd.fw.cache_bypass", true,
            "deepflash: NVMQ looks the cache up itself and sends read misses straight to TRANS (sec. 5.3); "
            "off: every request passes a CACHE thread");
  r.integer("ssd.fw.fetch_batch", 64, "deepflash: most commands one NVMQ fetch copies from an SQ").range(1, 65536);
  r.integer("ssd.fw.threads.nvmq", 8, "deepflash: NVMQ threads").range(1, 1024);
  r.integer("ssd.fw.threads.ilock", 1, "deepflash: ILOCK threads (a range's lock is served by range mod n)")
      .range(1, 1024);
  r.integer("ssd.fw.threads.cache", 2, "deepflash: CACHE threads (0: no CACHE stage)").range(0, 1024);
  r.integer("ssd.fw.threads.fcmd", 8, "deepflash: FCMD threads, each serving a group of channels").range(1, 1024);
  r.integer("ssd.fw.threads.log", 1, "deepflash: LOG threads running journal steps (0: FCMD pays them)")
      .range(0, 1);
  r.integer("ssd.fw.threads.bgc", 1, "deepflash: BGC threads running GC steps (0: FCMD pays them)").range(0, 1);
  r.rule([](const Config& c) {
    if (!c.is("ssd.fw.organisation", "deepflash")) return;
    int64_t channels = c.get_int("ssd.flash.channels");
    if (c.get_int("ssd.fw.threads.fcmd") > channels)
      c.fail({"ssd.fw.threads.fcmd", "ssd.flash.channels", "ssd.fw.organisation"},
             "deepflash: each FCMD thread serves at least one channel");
  });
}

Firmware::Firmware(sc_core::sc_module_name name, Services& svc, const ShardMap& shards)
    : sc_module(name),
      target("target"),
      ftl("ftl"),
      fcmd("fcmd"),
      flash("flash"),
      stats_(svc.stats),
      eq_("eq"),
      lock_(1),
      commands_(svc.stats.counter("ssd.fw.commands", "commands", "host commands handled by firmware")),
      forwards_(svc.stats.counter("ssd.fw.ilock.forwards", "requests",
                                  "requests forwarded to the NVMQ thread holding their range")),
      lock_waits_(svc.stats.counter("ssd.fw.ilock.waits", "requests",
                                    "requests whose NVMQ thread waited for a range another held")),
      bypassed_(svc.stats.counter("ssd.fw.cache.bypassed", "requests",
                                  "reads an NVMQ thread sent straight to TRANS after its own cache lookup")),
      order_waits_(svc.stats.counter("ssd.fw.order_waits", "requests",
                                     "requests held back until an earlier request to one of their pages left")) {
  svc.stats.section("firmware", [this] { return summary(now_ps()); });
  target.bind(*this);
  fcmd.bind(*this);
  const Config& c = svc.cfg;
  org_ = c.get_enum<Organisation>("ssd.fw.organisation", {{"layered", Organisation::Layered},
                                                          {"manylayered", Organisation::ManyLayered},
                                                          {"deepflash", Organisation::DeepFlash}});
  // auto: DIOS for DeepFlash, per-SQ threads otherwise.
  auto d = c.get_enum<int>("ssd.fw.dispatch", {{"per_sq", 0}, {"dios", 1}, {"auto", 2}});
  dispatch_ = d == 1 || (d == 2 && org_ == Organisation::DeepFlash) ? Dispatch::Dios : Dispatch::PerSq;
  forwarding_ = c.get_bool("ssd.fw.ilock.forwarding");
  balanced_ = c.is("ssd.fw.placement", "balanced");
  pins_ = pins(c);
  retry_ = c.get_time("ssd.fw.ilock.retry");
  bypass_ = c.get_bool("ssd.fw.cache_bypass");
  // One thread per SQ (layered per_sq) and ManyLayered's one owner per page
  // keep an SQ's order by themselves; parallel parsing and DeepFlash's
  // paths of different lengths need the per-page guard.
  ordered_ = org_ == Organisation::DeepFlash || (org_ == Organisation::Layered && dispatch_ == Dispatch::Dios);
  ftl_xor_ = shards.xor_hash;
  shards_ = shards.shards;
  fetch_batch_ = static_cast<uint32_t>(c.get_int("ssd.fw.fetch_batch"));
  channels_ = static_cast<uint32_t>(c.get_int("ssd.flash.channels"));
  for (unsigned k = 0; k < kTasks; ++k) cycles_[k] = c.get_int(fmt::format("ssd.fw.cost.{}", kTaskSpecs[k].key));
  double speedup = c.is("ssd.fw.core_type", "ooo") ? c.get_real("ssd.fw.ooo_speedup") : 1.0;
  ps_per_cycle_ = 1e12 / c.get_freq("ssd.fw.clock") / speedup;
  contention_ = c.get_real("ssd.fw.contention");
  uint64_t range = c.get_size("ssd.fw.ilock.range");
  uint64_t page = c.get_size("ssd.flash.page_size");
  lock_ = IndexLock(static_cast<uint32_t>(std::max<uint64_t>(1, range / page)));
  n_nvmq_ = static_cast<unsigned>(c.get_int("ssd.fw.threads.nvmq"));
  n_ilock_ = static_cast<unsigned>(c.get_int("ssd.fw.threads.ilock"));
  n_cache_ = static_cast<unsigned>(c.get_int("ssd.fw.threads.cache"));
  n_fcmd_ = static_cast<unsigned>(c.get_int("ssd.fw.threads.fcmd"));
  n_log_ = static_cast<unsigned>(c.get_int("ssd.fw.threads.log"));
  n_bgc_ = static_cast<unsigned>(c.get_int("ssd.fw.threads.bgc"));
  auto ncores = static_cast<unsigned>(c.get_int("ssd.fw.cores"));
  for (unsigned i = 0; i < ncores; ++i)
    cores_.push_back(std::make_unique<EmbeddedCore>(i, eq_, svc.stats, svc.waves));
  build();
}

Firmware::~Firmware() = default;

void Firmware::build() {
  // Each role: its threads and the cycles one request costs it in all,
  // which placement spreads over the cores.
  struct Role {
    std::vector<FirmwareThread*>* group;
    const char* name;
    unsigned threads;
    double cycles;
  };
  auto c = [this](std::initializer_list<std::pair<Task, double>> work) {
    double sum = 0;
    for (auto [k, n] : work) sum += double(cycles_[k]) * n;
    return sum;
  };
  auto plan_roles = [&]() -> std::vector<Role> {
    switch (org_) {
      case Organisation::Layered:
        return {{&nvmq_, "layered", cores(), 1.0}};
      case Organisation::ManyLayered:
        // A layered thread and an FCMD thread per shard.
        return {{&nvmq_, "layered", shards_,
                  c({{Fetch, 1}, {Parse, 1}, {CacheLookup, 1}, {Trans, 1}, {Complete, 1}, {CqFlush, 1}, {Message, 2}})},
                 {&fcmd_, "fcmd", shards_, c({{Compose, 1}, {Message, 1}})}};
      case Organisation::DeepFlash:
        return {{&nvmq_, "nvmq", n_nvmq_,
                  c({{Fetch, 1}, {Parse, 1}, {CacheLookup, bypass_ ? 1.0 : 0.0}, {Complete, 1}, {CqFlush, 1},
                     {Message, 3}})},
                 {&trans_, "trans", shards_, c({{Trans, 1}, {Message, 1}})},
                 {&fcmd_, "fcmd", n_fcmd_, c({{Compose, 1}, {Message, 1}})},
                 {&cache_, "cache", n_cache_, c({{CacheLookup, bypass_ ? 0.0 : 1.0}, {Cache, 0.5}, {Message, 1}})},
                 {&ilock_, "ilock", n_ilock_, c({{Lock, 2}, {LockLevel, 16}, {Message, 2}})},
                 {&log_, "log", n_log_, c({{Journal, 0.01}, {Message, 0.01}})},
                 {&bgc_, "bgc", n_bgc_, c({{Gc, 0.01}, {Message, 0.01}})}};
    }
    return {};
  };
  const std::vector<Role> roles = plan_roles();
  // Placement: balanced puts the heaviest threads first, each on the
  // least loaded core (ties to the lowest index); round_robin deals them
  // out in role order.
  struct Planned {
    size_t role;
    unsigned index;
    double load;
    unsigned core = 0;
  };
  std::vector<Planned> plan;
  for (size_t r = 0; r < roles.size(); ++r)
    for (unsigned i = 0; i < roles[r].threads; ++i) plan.push_back({r, i, roles[r].cycles / roles[r].threads});
  // Pinned roles first; the others go around them.
  std::vector<double> load(cores(), 0.0);
  std::vector<Planned*> free;
  for (auto& p : plan) {
    auto pin = pins_.find(roles[p.role].name);
    if (pin == pins_.end()) {
      free.push_back(&p);
      continue;
    }
    p.core = pin->second[p.index % pin->second.size()];
    load[p.core] += p.load;
  }
  if (balanced_) {
    std::stable_sort(free.begin(), free.end(), [](auto* a, auto* b) { return a->load > b->load; });
    for (Planned* p : free) {
      p->core = static_cast<unsigned>(std::min_element(load.begin(), load.end()) - load.begin());
      load[p->core] += p->load;
    }
  } else {
    for (size_t i = 0; i < free.size(); ++i) free[i]->core = static_cast<unsigned>(i % cores());
  }
  for (const Planned& p : plan) {
    const Role& r = roles[p.role];
    threads_.push_back(std::make_unique<FirmwareThread>(static_cast<int>(threads_.size()),
                                                        fmt::format("{}{}", r.name, p.index), *cores_[p.core], stats_));
    r.group->push_back(threads_.back().get());
  }
  if (org_ == Organisation::ManyLayered) trans_ = nvmq_;
  if (dispatch_ == Dispatch::Dios && org_ != Organisation::ManyLayered)
    for (auto* t : nvmq_) t->serve(pool_);
  // Contention: how many cores touch each shared structure.
  auto cores_of = [](std::initializer_list<const std::vector<FirmwareThread*>*> groups) {
    std::set<unsigned> s;
    for (auto* g : groups)
      for (auto* t : *g) s.insert(t->core().index());
    return std::max<size_t>(1, s.size());
  };
  std::fill(std::begin(mult_), std::end(mult_), 1.0);
  auto shared = [&](Task k, size_t n) { mult_[k] = 1.0 + contention_ * double(n - 1); };
  if (org_ == Organisation::Layered) {
    // One map, one cache and one flash controller for every instance.
    size_t n = cores_of({&nvmq_});
    for (Task k : {CacheLookup, Trans, Compose}) shared(k, n);
  } else if (org_ == Organisation::DeepFlash) {
    // The cache metadata (NVMQ's lookups with the bypass, CACHE's updates),
    // the lock tree, and with DIOS the shared SQ and CQ buffers.
    shared(CacheLookup, bypass_ ? cores_of({&nvmq_, &cache_}) : cores_of({&cache_}));
    shared(Cache, cores_of({&cache_}));
    shared(Lock, cores_of({&ilock_}));
    shared(LockLevel, cores_of({&ilock_}));
    // With DIOS every NVMQ thread moves the shared SQ and CQ buffers' head
    // and tail (D-head, D-tail); the entries themselves are each one's own.
    if (dispatch_ == Dispatch::Dios)
      for (Task k : {FetchBatch, CqFlush}) shared(k, cores_of({&nvmq_}));
  }
}

Tick Firmware::cycles(std::initializer_list<std::pair<Task, uint64_t>> work) const {
  double c = 0;
  for (auto [k, n] : work) c += double(cycles_[k] * n) * mult_[k];
  return static_cast<Tick>(c * ps_per_cycle_ + 0.5);
}

nlohmann::json Firmware::summary(Tick elapsed) const {
  auto util = [elapsed](uint64_t busy) { return elapsed ? double(busy) / double(elapsed) : 0.0; };
  nlohmann::json cores = nlohmann::json::array(), threads = nlohmann::json::object();
  double sum = 0, max = 0;
  for (const auto& c : cores_) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto* t : c->threads()) names.push_back(t->name());
    double u = util(c->busy_ps());
    sum += u, max = std::max(max, u);
    cores.push_back({{"core", c->index()}, {"utilisation", u}, {"threads", names}});
  }
  for (const auto& t : threads_)
    threads[t->name()] = {{"core", t->core().index()}, {"utilisation", util(t->busy_ps())}, {"items", t->items()}};
  static const char* kOrgs[] = {"layered", "manylayered", "deepflash"};
  return {{"organisation", kOrgs[int(org_)]},
          {"dispatch", dispatch_ == Dispatch::Dios ? "dios" : "per_sq"},
          {"mean_core_utilisation", cores_.empty() ? 0.0 : sum / double(cores_.size())},
          {"max_core_utilisation", max},
          {"cores", cores},
          {"threads", threads}};
}

Tick Firmware::task_time(Task k, uint64_t n) const { return cycles({{k, n}}); }

Tick Firmware::lock_op_time() const {
  return cycles({{Lock, 1}, {Message, 1}}) + task_time(LockLevel, lock_.depth());
}

Tick Firmware::layered_time(uint32_t pages) const {
  return cycles({{FetchBatch, 1}, {Fetch, 1}, {Parse, 1}, {CacheLookup, pages}, {Trans, pages}, {Compose, pages}});
}

uint64_t Firmware::order_key(const Job& j, uint32_t i) { return uint64_t(j.c->sqid) << 48 ^ (j.lpn + i); }

unsigned Firmware::shard_of(uint64_t lpn) const { return shard_index(lpn, shards_, ftl_xor_); }

FirmwareThread& Firmware::nvmq_for(uint16_t sqid) const {
  return *nvmq_[sqid == 0 ? 0 : (sqid - 1u) % nvmq_.size()];
}

void Firmware::to_nvmq(FirmwareThread& bound, FwWork w) {
  if (dispatch_ == Dispatch::Dios)
    pool_.post(std::move(w));  // any NVMQ thread
  else
    bound.post(std::move(w));
}

void Firmware::send(FirmwareThread& to, Tick cost, std::function<void(FirmwareThread&)> done) {
  to.post(FwWork{cost + task_time(Message), {}, std::move(done)});
}

// ------------------------------------------------------------ queue-gather

void Firmware::submit(HostCommand& c) {
  ++commands_;
  uint32_t unit = ftl->page_size();
  c.ftl.op = c.op;
  c.ftl.lpn = c.byte_offset / unit;
  c.ftl.pages = c.op == IoOp::Flush ? 0 : c.bytes / unit;
  c.ftl.data = c.data;
  c.ftl.attr = c.attr;
  c.ftl.fua = c.fua;
  c.ftl.victim = c.victim;
  c.ftl.victim_pages = c.victim_pages;
  c.ftl.result = 0;
  c.ftl.client = this;
  c.ftl.owner = &c;
  auto& j = *(jobs_[&c] = std::make_unique<Job>());
  j.c = &c;
  j.serial = ++serial_;
  j.lpn = c.ftl.lpn;
  j.pages = c.ftl.pages;
  // Arrival order per SQ and page: later requests of the SQ to a page leave after this one.
  if (ordered_)
    for (uint32_t i = 0; i < j.pages; ++i) page_order_[order_key(j, i)].push_back(&j);

  if (org_ == Organisation::Layered) {
    // The whole firmware in one task; contention is in layered_time.
    FwWork w{layered_time(j.pages), {}, [this, &j](FirmwareThread& by) {
               j.home = &by;
               issue(j);
             }};
    return to_nvmq(nvmq_for(c.sqid), std::move(w));
  }
  if (org_ == Organisation::ManyLayered) {
    // The SQ's instance fetches and parses, then hands the command to the
    // instance owning its pages.
    nvmq_for(c.sqid).post(FwWork{cycles({{FetchBatch, 1}, {Fetch, 1}, {Parse, 1}}), {},
                                 [this, &j](FirmwareThread& by) { parsed(j, by); }});
    return;
  }
  arrival_[c.sqid].push_back(&j);
  sq_buf_[c.sqid].push_back(&j);
  if (!fetching_[c.sqid]) fetch_more(c.sqid);
}

void Firmware::fetch_more(uint16_t sqid) {
  fetching_[sqid] = true;
  // The batch is what the SQ holds when the fetch starts.
  auto batch = std::make_shared<std::vector<Job*>>();
  FwWork w;
  w.start = [this, sqid, batch] {
    auto& buf = sq_buf_[sqid];
    while (!buf.empty() && batch->size() < fetch_batch_) {
      batch->push_back(buf.front());
      buf.pop_front();
    }
    return cycles({{FetchBatch, 1}, {Fetch, batch->size()}});
  };
  w.done = [this, sqid, batch](FirmwareThread& by) {
    for (Job* j : *batch) {
      to_nvmq(by, FwWork{task_time(Parse), {}, [this, j](FirmwareThread& t) { parsed(*j, t); }});
    }
    fetching_[sqid] = false;
    if (!sq_buf_[sqid].empty()) fetch_more(sqid);
  };
  to_nvmq(nvmq_for(sqid), std::move(w));
}

void Firmware::parsed(Job& j, FirmwareThread& by) {
  j.home = &by;
  if (org_ == Organisation::ManyLayered) {
    // The owning instance does the cache lookup and translation.
    FirmwareThread& owner = *nvmq_[j.pages ? shard_of(j.lpn) : 0];
    j.home = &owner;
    Tick work = cycles({{CacheLookup, j.pages}, {Trans, j.pages}});
    auto go = [this, &j](FirmwareThread&) { issue(j); };
    if (&owner == &by)
      by.post_urgent(FwWork{work, {}, go});
    else
      send(owner, work, go);
    return;
  }
  // ILOCK sees an SQ's requests in the SQ's order (FAST'19 sec. 5.2), so a
  // later request of an SQ never takes a range before an earlier one.
  j.parsed = true;
  auto& arrived = arrival_[j.c->sqid];
  while (!arrived.empty() && arrived.front()->parsed) {
    Job& n = *arrived.front();
    arrived.pop_front();
    if (n.pages == 0 || n.c->op == IoOp::Flush)
      issue(n);
    else
      lock(n, *n.home);
  }
}

bool Firmware::lock_waited(const Job& j) const {
  uint64_t first = lock_.first_range(j.lpn), last = lock_.last_range(j.lpn, j.pages);
  for (const Job* w : lock_queue_)
    if (lock_.first_range(w->lpn) <= last && first <= lock_.last_range(w->lpn, w->pages)) return true;
  return false;
}

void Firmware::lock(Job& j, FirmwareThread& requester) {
  FirmwareThread& il = *ilock_[lock_.first_range(j.lpn) % ilock_.size()];
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
  il.post(std::move(w));
}

void Firmware::wait_for_lock(Job& j) {
  ++lock_waits_;
  j.waiting = true;
  lock_queue_.push_back(&j);
  poll_lock(j);
}

void Firmware::poll_lock(Job& j) {
  if (retry_ == 0) return;
  // The job may be granted, served and gone before a poll fires: each step
  // finds it again by its command and serial number.
  auto still_waiting = [this, c = j.c, serial = j.serial]() -> Job* {
    auto it = jobs_.find(c);
    return it != jobs_.end() && it->second->serial == serial && it->second->waiting ? it->second.get() : nullptr;
  };
  eq_.after(retry_, [this, still_waiting] {
    Job* w = still_waiting();
    if (!w) return;
    FwWork ask;
    ask.start = [this] { return lock_op_time(); };
    ask.done = [this, still_waiting](FirmwareThread&) {
      Job* w = still_waiting();
      if (!w) return;  // granted meanwhile
      w->home->post_urgent(FwWork{task_time(Message), {}, [this, still_waiting](FirmwareThread&) {
                                    if (Job* w = still_waiting()) poll_lock(*w);  // still held: ask again later
                                  }});
    };
    ilock_[lock_.first_range(w->lpn) % ilock_.size()]->post(std::move(ask));
  });
}

void Firmware::lock_reply(Job& j, FirmwareThread& requester, int holder) {
  j.waiting = false;
  requester.post_urgent(FwWork{task_time(Message), {}, [this, &j, holder](FirmwareThread& t) {
                                 if (holder == IndexLock::kFree) {
                                   j.locked = true;
                                   dispatch_job(j, t);
                                   if (t.blocked()) t.unblock();
                                   return;
                                 }
                                 // Ownership forwarding: the holder serves it under its lock.
                                 ++forwards_;
                                 send(*threads_[size_t(holder)], 0, [this, &j](FirmwareThread& owner) {
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

void Firmware::release(uint64_t lpn, uint32_t pages) {
  FirmwareThread& il = *ilock_[lock_.first_range(lpn) % ilock_.size()];
  FwWork w;
  w.start = [this] { return lock_op_time(); };
  w.done = [this, lpn, pages](FirmwareThread&) {
    if (lock_.release(lpn, pages).empty() || lock_queue_.empty()) return;
    // Waiters in arrival order; one stays behind an earlier one on its ranges.
    std::vector<Job*> waiting = std::move(lock_queue_);
    lock_queue_.clear();
    for (Job* w : waiting) {
      if (!lock_waited(*w) && lock_.acquire(w->lpn, w->pages, w->home->id()) == IndexLock::kFree)
        lock_reply(*w, *w->home, IndexLock::kFree);
      else
        lock_queue_.push_back(w);
    }
  };
  il.post(std::move(w));
}

// ------------------------------------------------------------ trans-apply

void Firmware::dispatch_job(Job& j, FirmwareThread& holder) {
  j.home = &holder;
  if (cache_.empty()) return to_trans(j);
  FirmwareThread& ct = *cache_[j.lpn % cache_.size()];
  bool write = j.c->op == IoOp::Write, read = j.c->op == IoOp::Read;
  // Writes stay in the cache's DRAM when it buffers them; reads hit or miss.
  auto to_cache = [this, &j, write, read] { return (write && ftl->buffers_writes()) || (read && ftl->cached(j.lpn, j.pages)); };
  if (bypass_) {
    holder.post_urgent(FwWork{task_time(CacheLookup, j.pages), {}, [this, &j, &ct, to_cache](FirmwareThread&) {
                                if (to_cache())
                                  return send(ct, task_time(Cache, j.pages), [this, &j](FirmwareThread&) { issue(j); });
                                if (j.c->op == IoOp::Read) ++bypassed_;
                                to_trans(j);
                              }});
    return;
  }
  // CACHE looks up every request; it works on hits and writes only.
  auto hit = std::make_shared<bool>(false);
  FwWork w;
  w.start = [this, &j, hit, to_cache] {
    *hit = to_cache();
    return cycles({{Message, 1}, {CacheLookup, j.pages}, {Cache, *hit ? j.pages : 0}});
  };
  w.done = [this, &j, hit](FirmwareThread&) {
    if (*hit)
      issue(j);
    else
      to_trans(j);
  };
  ct.post(std::move(w));
}

void Firmware::to_trans(Job& j) {
  send(*trans_[shard_of(j.lpn)], task_time(Trans, j.pages), [this, &j](FirmwareThread&) { issue(j); });
}

// ------------------------------------------------------- leaving, coming back

void Firmware::issue(Job& j) {
  for (uint32_t i = 0; ordered_ && i < j.pages; ++i)
    if (page_order_[order_key(j, i)].front() != &j) {
      ++order_waits_;
      j.ready = true;  // an earlier request to this page has not left yet
      return;
    }
  issue_now(j);
}

void Firmware::issue_now(Job& j) {
  j.ready = false;
  j.issued = true;
  std::vector<Job*> next;
  for (uint32_t i = 0; ordered_ && i < j.pages; ++i) {
    auto it = page_order_.find(order_key(j, i));
    it->second.pop_front();
    if (it->second.empty())
      page_order_.erase(it);
    else if (it->second.front()->ready)
      next.push_back(it->second.front());
  }
  HostCommand& c = *j.c;
  c.client->firmware_issued(c);
  ftl->submit(c.ftl);
  for (Job* n : next)
    if (n->ready) issue(*n);
}

void Firmware::ftl_done(FtlRequest& r) {
  auto* c = static_cast<HostCommand*>(r.owner);
  c->result = r.result;
  Job& j = *jobs_.at(c);
  if (cycles_[Complete] == 0 && cycles_[CqFlush] == 0) return finish(j);
  auto& pending = done_[j.home];
  pending.push_back(&j);
  if (pending.size() > 1) return;  // a completion item is already queued
  FirmwareThread* home = j.home;
  auto batch = std::make_shared<std::vector<Job*>>();
  FwWork w;
  // The CQ buffer: every completion that reached the thread before the item
  // starts goes out in one flush with DIOS; per_sq flushes each one.
  w.start = [this, home, batch] {
    *batch = std::move(done_[home]);
    done_.erase(home);
    uint64_t n = batch->size();
    uint64_t flushes = dispatch_ == Dispatch::Dios ? 1 : n;
    uint64_t msgs = org_ == Organisation::Layered ? 0 : 1;
    return cycles({{Complete, n}, {CqFlush, flushes}, {Message, msgs}});
  };
  w.done = [this, batch](FirmwareThread&) {
    for (Job* b : *batch) finish(*b);
  };
  home->post_urgent(std::move(w));
}

void Firmware::finish(Job& j) {
  HostCommand& c = *j.c;
  bool locked = j.locked;
  uint64_t lpn = j.lpn;
  uint32_t pages = j.pages;
  jobs_.erase(&c);
  c.client->firmware_done(c);
  if (locked) release(lpn, pages);
}

// ------------------------------------------------------------ flash-scatter

void Firmware::submit(flash::FlashTransaction& t) {
  if (fcmd_.empty()) return flash->submit(t);  // the layered task composed it
  FirmwareThread& f = *fcmd_[size_t(t.addr.channel) * fcmd_.size() / channels_];
  auto compose = [this, &t, &f](FirmwareThread&) {
    send(f, task_time(Compose), [this, &t](FirmwareThread&) { flash->submit(t); });
  };
  const auto& bg = t.use == flash::FlashUse::Gc ? bgc_ : t.use == flash::FlashUse::Journal ? log_ : fcmd_;
  Task step = t.use == flash::FlashUse::Gc ? Gc : Journal;
  if (t.use == flash::FlashUse::Host) return compose(f);
  if (&bg == &fcmd_ || bg.empty())  // no thread of its own: FCMD pays the step too
    return send(f, cycles({{step, 1}, {Compose, 1}}), [this, &t](FirmwareThread&) { flash->submit(t); });
  send(*bg.front(), task_time(step), compose);
}

}  // namespace vp::ssd
