// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Waveform tracing for GTKWave. Off unless asked for (--trace vcd): a
// component registers the state variables it wants shown (queue depths, busy
// flags) and, when tracing is off, registration costs nothing. Alongside the
// VCD a GTKWave save file lists the signals grouped by subsystem.
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/AtomicFile.hpp"
#include "vp/core/EventQueue.hpp"

namespace vp {

class Waves {
 public:
  ~Waves();
  // Writes vcd_base + ".vcd", under a temporary name until close().
  void open(const std::string& vcd_base);
  bool enabled() const { return tf_ != nullptr; }
  // Where the VCD is being written until close() ("" when off).
  std::string temp_path() const { return vcd_ ? vcd_->temp_path() : std::string(); }
  // `group` is the GTKWave group the signal is shown in. Counts are shown
  // in decimal, flags as one-bit waves.
  void trace(const uint64_t& var, const std::string& name, const std::string& group);
  void trace(const bool& var, const std::string& name, const std::string& group);
  // A component's signal and group named after its parameter scope:
  // ("ssd.dram", "busy") -> ssd_dram_busy in group "ssd dram".
  static std::string signal_name(const std::string& scope, const std::string& rel);
  static std::string group_name(const std::string& scope);
  // The save file opens the view at `view_start` (ps; e.g. when I/O began).
  void write_gtkw(const std::string& gtkw_path, const std::string& vcd_path) const;
  void set_view_start(Tick view_start) { view_start_ps_ = view_start; }
  // Ends the trace; `publish`: the complete VCD takes its name (else, as
  // after an error, the partial one is removed).
  void close(bool publish = true);

 private:
  sc_core::sc_trace_file* tf_ = nullptr;
  std::unique_ptr<AtomicFile> vcd_;
  Tick view_start_ps_ = 0;
  struct Sig {
    std::string name, group;
    bool flag;
  };
  std::vector<Sig> sigs_;
};

// A busy flag driven by booked intervals [start, end) that never overlap:
// when traced, the transitions are scheduled on the owner's event queue; when
// not, nothing is. Back-to-back intervals keep the flag up (the end of one
// and the start of the next fall in the same instant, in booking order).
struct BusySignal {
  bool level = false;
  bool on = false;
  void attach(Waves& w, const std::string& name, const std::string& group) {
    on = w.enabled();
    if (on) w.trace(level, name, group);
  }
  void interval(EventQueue& eq, Tick start, Tick end) {
    if (!on || end <= start) return;
    eq.at(start, [this] { level = true; });
    eq.at(end, [this] { level = false; });
  }
};

}  // namespace vp
