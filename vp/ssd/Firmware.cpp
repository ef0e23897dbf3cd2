#include "vp/ssd/Firmware.hpp"

#include <fmt/format.h>

namespace vp::ssd {

void Firmware::declare_params(ParamRegistry& r) {
  r.freq("ssd.fw.clock", "800MHz", "clock of the embedded firmware cores");
  r.integer("ssd.fw.parse_cycles", 400, "cycles to parse one host command").at_least(0);
  r.integer("ssd.fw.ftl_lookup_cycles", 160, "cycles of FTL translation per logical page").at_least(0);
  r.integer("ssd.fw.flash_issue_cycles", 80, "cycles to build and issue one flash command").at_least(0);
  r.integer("ssd.fw.cores", 1, "embedded cores running the command-processing task (DeepFlash's NVMQ threads)")
      .range(1, 256);
  r.choice("ssd.fw.dispatch", "per_sq", {"per_sq", "dios"},
           "which core takes a command: per_sq binds SQ s to core (s-1) mod cores (sqid 0 to core 0), "
           "static queue allocation (DeepFlash FAST'19 sec. 4.1); dios gives it to the core that can start it "
           "first, ties to the lowest index (DeepFlash's dynamic I/O serialization, sec. 5.1)");
}

Firmware::Firmware(sc_core::sc_module_name name, Services& svc)
    : sc_module(name),
      target("target"),
      ftl("ftl"),
      eq_("eq"),
      clock_hz_(svc.cfg.get_freq("ssd.fw.clock")),
      parse_cycles_(svc.cfg.get_int("ssd.fw.parse_cycles")),
      lookup_cycles_(svc.cfg.get_int("ssd.fw.ftl_lookup_cycles")),
      issue_cycles_(svc.cfg.get_int("ssd.fw.flash_issue_cycles")),
      dispatch_(svc.cfg.get_string("ssd.fw.dispatch") == "dios" ? Dispatch::Dios : Dispatch::PerSq),
      commands_(svc.stats.counter("ssd.fw.commands", "commands", "host commands handled by firmware")),
      busy_ps_(svc.stats.counter("ssd.fw.busy_ps", "ps", "time the firmware cores were busy, summed over cores")) {
  target.bind(*this);
  auto n = static_cast<unsigned>(svc.cfg.get_int("ssd.fw.cores"));
  for (unsigned i = 0; i < n; ++i) {
    auto c = std::make_unique<Core>();
    c->commands = &svc.stats.counter(fmt::format("ssd.fw.core{}.commands", i), "commands",
                                     fmt::format("host commands processed by firmware core {}", i));
    c->busy_ps = &svc.stats.counter(fmt::format("ssd.fw.core{}.busy_ps", i), "ps",
                                    fmt::format("time firmware core {} was busy", i));
    c->busy.attach(svc.waves, fmt::format("ssd_fw_core{}_busy", i), "firmware");
    cores_.push_back(std::move(c));
  }
}

Tick Firmware::task_time(uint32_t pages) const {
  uint64_t cycles = parse_cycles_ + uint64_t(pages) * (lookup_cycles_ + issue_cycles_);
  return static_cast<Tick>(double(cycles) * 1e12 / clock_hz_ + 0.5);
}

unsigned Firmware::pick_core(uint16_t sqid, Tick now) const {
  if (dispatch_ == Dispatch::PerSq) return sqid == 0 ? 0 : (sqid - 1u) % cores();
  // A core that went idle before `now` can start at `now`, no earlier: idle
  // cores tie and the lowest index wins.
  unsigned best = 0;
  Tick best_start = std::max(now, cores_[0]->res.free_at());
  for (unsigned i = 1; i < cores(); ++i) {
    Tick start = std::max(now, cores_[i]->res.free_at());
    if (start < best_start) best = i, best_start = start;
  }
  return best;
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
  Tick now = now_ps(), cost = task_time(c.ftl.pages);
  Core& core = *cores_[pick_core(c.sqid, now)];
  Tick end = core.res.book(now, cost);
  ++*core.commands;
  *core.busy_ps += cost;
  busy_ps_ += cost;
  core.busy.interval(eq_, end - cost, end);
  eq_.at(end, [this, &c] {
    c.client->firmware_issued(c);
    ftl->submit(c.ftl);
  });
}

void Firmware::ftl_done(FtlRequest& r) {
  auto* c = static_cast<HostCommand*>(r.owner);
  c->result = r.result;
  c->client->firmware_done(*c);
}

}  // namespace vp::ssd
