// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The timeline's view of the plain variables the model registers with Waves
// (counts, and busy flags other than BusySignal's, whose intervals the
// timeline gets directly): nothing tells when such a variable is written,
// so, as SystemC's VCD writer does, they are compared with their last value
// at the end of every time step (the kernel's trace cycle; delta cycles are
// skipped) and a change becomes a counter event or the edge of a busy slice.
// A SystemC trace file, so the kernel calls it; the calendar must not run
// ahead of the kernel while it samples (Waves::open_timeline turns that off,
// which changes no result).
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/Timeline.hpp"

namespace vp {

class TimelineSampler : public sc_core::sc_trace_file {
 public:
  explicit TimelineSampler(Timeline& timeline);
  ~TimelineSampler() override;
  void watch(const bool& flag, uint32_t thread);
  void watch(const uint64_t& count, uint32_t counter);
  // Ends the busy slices still open at `now`.
  void finish(Tick now);

  // sc_trace_file's interface: the model's variables come through watch().
#define VP_IGNORED_A(tp) \
  void trace(const tp&, const std::string&) override {}
#define VP_IGNORED_B(tp) \
  void trace(const tp&, const std::string&, int) override {}
  VP_IGNORED_A(sc_core::sc_event)
  VP_IGNORED_A(sc_core::sc_time)
  VP_IGNORED_A(bool)
  VP_IGNORED_A(sc_dt::sc_bit)
  VP_IGNORED_A(sc_dt::sc_logic)
  VP_IGNORED_B(unsigned char)
  VP_IGNORED_B(unsigned short)
  VP_IGNORED_B(unsigned int)
  VP_IGNORED_B(unsigned long)
  VP_IGNORED_B(char)
  VP_IGNORED_B(short)
  VP_IGNORED_B(int)
  VP_IGNORED_B(long)
  VP_IGNORED_B(sc_dt::int64)
  VP_IGNORED_B(sc_dt::uint64)
  VP_IGNORED_A(float)
  VP_IGNORED_A(double)
  VP_IGNORED_A(sc_dt::sc_int_base)
  VP_IGNORED_A(sc_dt::sc_uint_base)
  VP_IGNORED_A(sc_dt::sc_signed)
  VP_IGNORED_A(sc_dt::sc_unsigned)
  VP_IGNORED_A(sc_dt::sc_fxval)
  VP_IGNORED_A(sc_dt::sc_fxval_fast)
  VP_IGNORED_A(sc_dt::sc_fxnum)
  VP_IGNORED_A(sc_dt::sc_fxnum_fast)
  VP_IGNORED_A(sc_dt::sc_bv_base)
  VP_IGNORED_A(sc_dt::sc_lv_base)
#undef VP_IGNORED_A
#undef VP_IGNORED_B
  void trace(const unsigned int&, const std::string&, const char**) override {}
  void write_comment(const std::string&) override {}
  void set_time_unit(double, sc_core::sc_time_unit) override {}

 protected:
  void cycle(bool delta_cycle) override;

 private:
  struct Flag {
    const bool* var;
    uint32_t thread;
    bool up = false;
    Tick since = 0;
  };
  struct Count {
    const uint64_t* var;
    uint32_t counter;
    uint64_t last = 0;
    bool seen = false;
  };
  Timeline& timeline_;
  std::vector<Flag> flags_;
  std::vector<Count> counts_;
};

}  // namespace vp
