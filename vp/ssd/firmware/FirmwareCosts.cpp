// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/firmware/FirmwareCosts.hpp"

#include <algorithm>
#include <fmt/format.h>

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
// The DeepFlash preset sets all of them (platforms/presets/deepflash.yaml).
constexpr TaskSpec kTaskSpecs[kFwTasks] = {
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
    {"switch", 0,
     "cycles a core spends going from one thread's work item to another thread's (saving and restoring the "
     "context, refetching the incoming thread's working set); a thread's consecutive items pay none"},
};
}  // namespace

void FirmwareCosts::declare_params(const ParamScope& fw) {
  fw.freq("clock", "800MHz", "clock of the embedded firmware cores");
  fw.choice("core_type", "inorder", {"inorder", "ooo"},
            "core pipeline: in-order runs a task's cycles as given; out-of-order divides them by ssd.fw.ooo_speedup");
  fw.real("ooo_speedup", 2.0, "instructions per cycle of an out-of-order core relative to an in-order one")
      .range(1.0, 16.0);
  fw.real("contention", 0.0,
          "memory contention: a task on a shared structure costs (1 + contention x (k - 1)) times its cycles, "
          "k the cores whose threads touch the structure")
      .range(0.0, 10.0);
  for (const auto& t : kTaskSpecs) fw.integer(fmt::format("cost.{}", t.key), t.def, t.desc).at_least(0);
}

FirmwareCosts::FirmwareCosts(const ScopedConfig& fw) {
  for (unsigned k = 0; k < kFwTasks; ++k) cycles_[k] = fw.get_int(fmt::format("cost.{}", kTaskSpecs[k].key));
  std::fill(std::begin(mult_), std::end(mult_), 1.0);
  double speedup = fw.is("core_type", "ooo") ? fw.get_real("ooo_speedup") : 1.0;
  ps_per_cycle_ = 1e12 / fw.get_freq("clock") / speedup;
  contention_ = fw.get_real("contention");
}

Tick FirmwareCosts::time(std::initializer_list<std::pair<FwTask, uint64_t>> work) const {
  double c = 0;
  for (auto [k, n] : work) c += double(cycles_[k] * n) * mult_[k];
  return static_cast<Tick>(c * ps_per_cycle_ + 0.5);
}

double FirmwareCosts::planned(std::initializer_list<std::pair<FwTask, double>> work) const {
  double sum = 0;
  for (auto [k, n] : work) sum += double(cycles_[k]) * n;
  return sum;
}

}  // namespace vp::ssd
