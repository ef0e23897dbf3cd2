#include "vp/ssd/Firmware.hpp"

namespace vp::ssd {

void Firmware::declare_params(ParamRegistry& r) {
  r.freq("ssd.fw.clock", "800MHz", "clock of the embedded firmware core");
  r.integer("ssd.fw.parse_cycles", 400, "cycles to parse one host command").at_least(0);
  r.integer("ssd.fw.ftl_lookup_cycles", 160, "cycles of FTL translation per logical page").at_least(0);
  r.integer("ssd.fw.flash_issue_cycles", 80, "cycles to build and issue one flash command").at_least(0);
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
      commands_(svc.stats.counter("ssd.fw.commands", "commands", "host commands handled by firmware")),
      busy_ps_(svc.stats.counter("ssd.fw.busy_ps", "ps", "time the firmware core was busy")) {
  target.bind(*this);
  busy_.attach(svc.waves, "ssd_fw_core0_busy", "firmware");
}

Tick Firmware::task_time(uint32_t pages) const {
  uint64_t cycles = parse_cycles_ + uint64_t(pages) * (lookup_cycles_ + issue_cycles_);
  return static_cast<Tick>(double(cycles) * 1e12 / clock_hz_ + 0.5);
}

void Firmware::submit(HostCommand& c) {
  ++commands_;
  uint32_t unit = ftl->page_size();
  c.ftl.op = c.op;
  c.ftl.lpn = c.byte_offset / unit;
  c.ftl.pages = c.op == IoOp::Flush ? 0 : c.bytes / unit;
  c.ftl.data = c.data;
  c.ftl.client = this;
  c.ftl.owner = &c;
  Tick cost = task_time(c.ftl.pages);
  Tick end = core_.book(now_ps(), cost);
  busy_ps_ += cost;
  busy_.interval(eq_, end - cost, end);
  eq_.at(end, [this, &c] {
    c.client->firmware_issued(c);
    ftl->submit(c.ftl);
  });
}

void Firmware::ftl_done(FtlRequest& r) {
  auto* c = static_cast<HostCommand*>(r.owner);
  c->client->firmware_done(*c);
}

}  // namespace vp::ssd
