// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The flash statistics, registered once and shared by every channel.
#include "vp/core/StatGroup.hpp"
#include "vp/flash/FlashTypes.hpp"

namespace vp::flash {

struct FlashCounters {
  Counter &reads, &programs, &erases, &bus_bytes;
  Counter &copybacks, &multiplane_ops, &suspends, &starved_program_picks;
  Counter* reads_by_type[3];     // indexed by PageType
  Counter* programs_by_type[3];

  explicit FlashCounters(const StatGroup& s)
      : reads(s.counter("reads", "pages", "flash page reads")),
        programs(s.counter("programs", "pages", "flash page programs")),
        erases(s.counter("erases", "blocks", "flash block erases")),
        bus_bytes(s.counter("bus_bytes", "bytes", "bytes moved over the ONFI buses")),
        copybacks(s.counter("copybacks", "pages", "copy-backs (each also counts one read and one program)")),
        multiplane_ops(s.counter("multiplane_ops", "ops", "operations that ran on two or more planes at once")),
        suspends(s.counter("suspends", "ops", "programs and erases suspended for reads")),
        starved_program_picks(s.counter("starved_program_picks", "ops",
                                        "host programs past the starvation limit that went before waiting reads")) {
    for (int i = 0; i < 3; ++i) {
      const char* n = page_type_name(static_cast<PageType>(i));
      reads_by_type[i] = &s.counter(std::string("reads_") + n, "pages", std::string("flash reads of ") + n + " pages");
      programs_by_type[i] =
          &s.counter(std::string("programs_") + n, "pages", std::string("flash programs of ") + n + " pages");
    }
  }
};

}  // namespace vp::flash
