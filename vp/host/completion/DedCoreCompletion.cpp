// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/completion/DedCoreCompletion.hpp"

namespace vp::host {

void DedCoreCompletion::declare_params(const ParamScope& r) {
  // The paper gives no figures. Our choice: a modified line moves between
  // cores in 100 ns (a snoop hit in a shared L3 at 2 GHz), and a completion
  // touches 4 lines (the CQ entry, the request, its bio, the waiting task);
  // a contended spin lock changes hands in 300 ns.
  r.time("core.dedcore_line_transfer", "100ns",
         "dedcore: one cache line moved between the polling core and a general core");
  r.integer("core.dedcore_lines", 4,
            "dedcore: cache lines a completion moves each way (CQ entry, request, bio, waiting task)")
      .range(0, 1024);
  r.time("core.dedcore_lock_handoff", "300ns",
         "dedcore: a queue's spin lock changing hands between the polling core and a submitting core (once per "
         "submission and once per completion)");
  r.integer("core.poll_core", -1,
            "dedcore completion: the core that polls all completion queues and runs no jobs (-1: the last core)")
      .range(-1, 255);
  r.rule([](const ScopedConfig& c) {
    if (c.get_int("core.poll_core") >= c.get_int("cores"))
      c.fail({"core.poll_core", "cores"}, "the polling core does not exist");
  });
}

unsigned DedCoreCompletion::polling_core(const ScopedConfig& c) {
  int64_t k = c.get_int("core.poll_core");
  return static_cast<unsigned>(k < 0 ? c.get_int("cores") - 1 : k);
}

DedCoreCompletion::DedCoreCompletion(const ScopedConfig& host)
    : lines_(Tick(host.get_int("core.dedcore_lines")) * host.get_time("core.dedcore_line_transfer")),
      lock_(host.get_time("core.dedcore_lock_handoff")) {}

}  // namespace vp::host
