// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The offline applications of FlashShare (OSDI'18) Table 3, as closed-loop
// fio jobs: I/O mix, request size, sequentiality and the compute between
// I/Os (instructions per I/O, turned into core time by host.core.clock and
// host.core.ipc). The paper's three online applications (ap, au, is) serve
// clients: closed-loop I/O+compute jobs like the others unless the job sets
// online=1 (OnlineClient, FioJobRunner).
#include <cstdint>
#include <string>
#include <vector>

namespace vp::host {

struct AppProfile {
  const char* name;       // as in Table 3
  const char* alias;      // a longer spelling accepted by app=
  const char* what;
  unsigned read_milli;    // read ratio x 1000 (0.995 -> 995)
  unsigned io_kb;         // mean I/O size, KB
  double ios_per_minst;   // I/Os per million instructions
  unsigned seq_percent;   // sequential ratio x 100
  bool online;            // latency-critical server application in the paper
  // Its I/O phases over time, as phases= spells them ("none": steady).
  const char* phases = "none";

  // Nearest whole percent; a half goes to the writes so 0.995 keeps 1%
  // writes (99) rather than none.
  unsigned rwmixread() const { return (read_milli + 4) / 10; }
  // Rounded up to whole 4 KiB (the LBA size and the page cache's page): an
  // app's mean request never shrinks. 30 KB -> 32 KiB.
  uint64_t bs() const { return (uint64_t(io_kb) + 3) / 4 * 4096; }
  unsigned percentage_random() const { return 100 - seq_percent; }
  // 1e6 / (I/Os per million instructions), to the nearest instruction.
  uint64_t insts_per_io() const { return static_cast<uint64_t>(1e6 / ios_per_minst + 0.5); }

  static const std::vector<AppProfile>& all();
  // By name or alias, case-insensitive; nullptr if unknown.
  static const AppProfile* find(const std::string& name);
  static std::string names();  // "bfs, gpgnu, ..." for error messages
  static std::string table();  // one line per app, for --list-apps
};

}  // namespace vp::host
