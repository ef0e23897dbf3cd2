// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/firmware/Firmware.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "vp/core/CpuList.hpp"
#include "vp/core/Quote.hpp"

#include "vp/ssd/firmware/LayeredFirmware.hpp"
#include "vp/ssd/firmware/ManyLayeredFirmware.hpp"
#include "vp/ssd/ShardHash.hpp"

namespace vp::ssd {

namespace {
}  // namespace

std::map<std::string, std::vector<unsigned>> Firmware::pins(const ScopedConfig& c) {
  static const std::set<std::string> kRoles = {"layered", "nvmq", "trans", "fcmd", "cache", "ilock", "log", "bgc"};
  std::map<std::string, std::vector<unsigned>> out;
  std::istringstream in(c.get_string("pin"));
  auto cores = static_cast<unsigned>(c.get_int("cores"));
  for (std::string item; in >> item;) {
    auto eq = item.find('=');
    std::string role = item.substr(0, eq);
    if (eq == std::string::npos || !kRoles.count(role))
      c.fail("pin", fmt::format("{} is not role=cpu-list with a role of layered, nvmq, trans, fcmd, cache, "
                                       "ilock, log, bgc",
                                       vp::quoted(item)));
    auto list = parse_cpu_list(item.substr(eq + 1), cores - 1);
    if (!list || list->empty())
      c.fail({"pin", "cores"}, fmt::format("{}: {} is not a list of cores 0-{}", vp::quoted(item),
                                                         vp::quoted(item.substr(eq + 1)), cores - 1));
    if (out.count(role)) c.fail("pin", fmt::format("role {} is pinned twice", role));
    out[role] = *list;
  }
  return out;
}

void Firmware::declare_params(const ParamScope& fw) {
  fw.choice("organisation", "layered", {"layered", "manylayered", "deepflash"},
            "firmware threads and request path: one layered firmware per core; ManyLayered's layered+FCMD "
            "pair per shard; DeepFlash's NVMQ/ILOCK/CACHE/TRANS/FCMD/LOG/BGC network (FAST'20 sec. 4-6)");
  fw.integer("cores", 1, "embedded cores the firmware threads are placed on").range(1, 256);
  fw.string("pin", "",
            "threads pinned to cores, space separated role=cpu-list (e.g. \"nvmq=0-3 trans=4-7 ilock=8\"): a role's "
            "threads are dealt round robin over its cores; roles: layered nvmq trans fcmd cache ilock log bgc; the "
            "others are placed by ssd.fw.placement");
  fw.rule([](const ScopedConfig& c) { pins(c); });
  fw.choice("placement", "balanced", {"balanced", "round_robin"},
            "threads to cores: balanced puts each thread, heaviest first (its role's task cycles per request over "
            "its threads), on the least loaded core; round_robin deals them out role by role");
  FirmwareCosts::declare_params(fw);
  fw.choice("dispatch", "auto", {"auto", "per_sq", "dios"},
            "which thread takes a command: per_sq binds SQ s to thread (s-1) mod n (sqid 0 to thread 0), static "
            "queue allocation (FAST'20 sec. 4.2); dios lets any free one take any command (sec. 5.1); auto: dios "
            "for deepflash, per_sq otherwise");
  DeepFlashFirmware::declare_params(fw);
}

namespace {
std::unique_ptr<FirmwareOrganisation> organisation_for(Firmware& fw, const ScopedConfig& c, const ShardMap& shards,
                                                       DeepFlashStats& stats) {
  enum class Org { Layered, ManyLayered, DeepFlash };
  switch (c.get_enum<Org>("organisation", {{"layered", Org::Layered},
                                           {"manylayered", Org::ManyLayered},
                                           {"deepflash", Org::DeepFlash}})) {
    case Org::Layered: return std::make_unique<LayeredFirmware>(fw);
    case Org::ManyLayered: return std::make_unique<ManyLayeredFirmware>(fw, shards.shards);
    case Org::DeepFlash: return std::make_unique<DeepFlashFirmware>(fw, c, shards.shards, stats);
  }
  return nullptr;
}
}  // namespace

Firmware::Firmware(sc_core::sc_module_name name, Services& svc, const ShardMap& shards, const std::string& scope)
    : sc_module(name),
      target("target"),
      ftl("ftl"),
      fcmd("fcmd"),
      flash("flash"),
      stats_(svc.stats, scope),
      eq_("eq"),
      costs_(ScopedConfig(svc.cfg, scope)),
      deepflash_stats_(stats_),
      org_(organisation_for(*this, ScopedConfig(svc.cfg, scope), shards, deepflash_stats_)),
      shards_(shards),
      fcmd_stage_(flash, roles_, costs_),
      commands_(stats_.counter("commands", "commands", "host commands handled by firmware")),
      order_waits_(stats_.counter("order_waits", "requests",
                                 "requests held back until an earlier request to one of their pages left")) {
  stats_.section("firmware", "firmware organisation, cores and threads with their utilisation", [this] { return summary(now_ps()); });
  target.bind(*this);
  fcmd.bind(fcmd_stage_);
  ScopedConfig c(svc.cfg, scope);
  auto d = c.get_enum<int>("dispatch", {{"per_sq", 0}, {"dios", 1}, {"auto", 2}});
  dispatch_ = d == 1 ? Dispatch::Dios : d == 0 ? Dispatch::PerSq : org_->default_dispatch();
  balanced_ = c.is("placement", "balanced");
  pins_ = pins(c);
  ordered_ = org_->reorders();
  auto ncores = static_cast<unsigned>(c.get_int("cores"));
  for (unsigned i = 0; i < ncores; ++i)
    cores_.push_back(std::make_unique<EmbeddedCore>(i, eq_, stats_, svc.waves, costs_.time(Switch)));
  build();
}

Firmware::~Firmware() = default;

void Firmware::end_of_elaboration() {
  if (flash.size()) fcmd_stage_.bound();
  org_->bound(ftl->page_size());
}

void Firmware::build() {
  using Role = FwRole;
  const std::vector<Role> roles = org_->roles(roles_, costs_);
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
  org_->placed(roles_, costs_);
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
  return {{"organisation", org_->name()},
          {"dispatch", dispatch_ == Dispatch::Dios ? "dios" : "per_sq"},
          {"mean_core_utilisation", cores_.empty() ? 0.0 : sum / double(cores_.size())},
          {"max_core_utilisation", max},
          {"cores", cores},
          {"threads", threads}};
}

Tick Firmware::layered_time(uint32_t pages) const {
  return costs_.time({{FetchBatch, 1}, {Fetch, 1}, {Parse, 1}, {CacheLookup, pages}, {Trans, pages}, {Compose, pages}});
}

uint64_t Firmware::order_key(const FwJob& j, uint32_t i) { return uint64_t(j.c->sqid) << 48 ^ (j.lpn + i); }

unsigned Firmware::shard_of(uint64_t lpn) const { return shards_.of(lpn); }

FirmwareThread& Firmware::nvmq_for(uint16_t sqid) const {
  const auto& nvmq = roles_.nvmq;
  return *nvmq[sqid == 0 ? 0 : (sqid - 1u) % nvmq.size()];
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

void Firmware::prefetch(const HostCommand& c) const {
  const uint32_t unit = ftl->page_size();
  if (c.bytes) ftl->prefetch(c.byte_offset / unit, c.bytes / unit);
}

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
  // Looked up after the firmware's own time. A write was hinted when the
  // controller decoded it, so its mapping entry is on the way: the block
  // records its overwrite touches can start loading now.
  if (c.ftl.pages) {
    if (c.op == IoOp::Write)
      ftl->prefetch_overwrite(c.ftl.lpn, c.ftl.pages);
    else
      ftl->prefetch(c.ftl.lpn, c.ftl.pages);
  }
  FwJob& j = job_nodes_.entry(jobs_, &c) = FwJob{};
  j.c = &c;
  j.serial = ++serial_;
  j.lpn = c.ftl.lpn;
  j.pages = c.ftl.pages;
  // Arrival order per SQ and page: later requests of the SQ to a page leave after this one.
  if (ordered_)
    for (uint32_t i = 0; i < j.pages; ++i) page_order_[order_key(j, i)].push_back(&j);

  org_->submit(j);
}

// ------------------------------------------------------- leaving, coming back

void Firmware::issue(FwJob& j) {
  for (uint32_t i = 0; ordered_ && i < j.pages; ++i)
    if (page_order_[order_key(j, i)].front() != &j) {
      ++order_waits_;
      j.ready = true;  // an earlier request to this page has not left yet
      return;
    }
  issue_now(j);
}

void Firmware::issue_now(FwJob& j) {
  j.ready = false;
  j.issued = true;
  std::vector<FwJob*> next;
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
  for (FwJob* n : next)
    if (n->ready) issue(*n);
}

void Firmware::ftl_done(FtlRequest& r) {
  auto* c = static_cast<HostCommand*>(r.owner);
  c->result = r.result;
  FwJob& j = jobs_.at(c);
  if (costs_.cycles_of(Complete) == 0 && costs_.cycles_of(CqFlush) == 0) return finish(j);
  auto& pending = done_[j.home];
  pending.push_back(&j);
  if (pending.size() > 1) return;  // a completion item is already queued
  FirmwareThread* home = j.home;
  auto batch = std::make_shared<std::vector<FwJob*>>();
  FwWork w;
  // The CQ buffer: every completion that reached the thread before the item
  // starts goes out in one flush with DIOS; per_sq flushes each one.
  w.start = [this, home, batch] {
    *batch = std::move(done_[home]);
    done_.erase(home);
    uint64_t n = batch->size();
    uint64_t flushes = dispatch_ == Dispatch::Dios ? 1 : n;
    return costs_.time({{Complete, n}, {CqFlush, flushes}, {Message, org_->completion_messages()}});
  };
  w.done = [this, batch](FirmwareThread&) {
    for (FwJob* b : *batch) finish(*b);
  };
  home->post_urgent(std::move(w));
}

void Firmware::finish(FwJob& j) {
  HostCommand& c = *j.c;
  bool locked = j.locked;
  uint64_t lpn = j.lpn;
  uint32_t pages = j.pages;
  job_nodes_.erase(jobs_, jobs_.find(&c));
  c.client->firmware_done(c);
  org_->finished(lpn, pages, locked);
}

}  // namespace vp::ssd
