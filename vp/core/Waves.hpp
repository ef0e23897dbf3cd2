#pragma once
// Waveform tracing for GTKWave. Off unless asked for (--trace vcd): a
// component registers the state variables it wants shown (queue depths, busy
// flags) and, when tracing is off, registration costs nothing. Alongside the
// VCD a GTKWave save file lists the signals grouped by subsystem.
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/EventQueue.hpp"

namespace vp {

class Waves {
 public:
  ~Waves();
  void open(const std::string& vcd_base);  // writes vcd_base + ".vcd"
  bool enabled() const { return tf_ != nullptr; }
  // `group` is the GTKWave group the signal is shown in.
  void trace(const uint64_t& var, const std::string& name, const std::string& group);
  void write_gtkw(const std::string& gtkw_path, const std::string& vcd_path) const;
  void close();

 private:
  sc_core::sc_trace_file* tf_ = nullptr;
  struct Sig {
    std::string name, group;
  };
  std::vector<Sig> sigs_;
};

// A busy level driven by booked intervals [start, end): when traced, the
// transitions are scheduled on the owner's event queue; when not, nothing is.
struct BusySignal {
  uint64_t level = 0;
  bool on = false;
  void attach(Waves& w, const std::string& name, const std::string& group) {
    on = w.enabled();
    if (on) w.trace(level, name, group);
  }
  void interval(EventQueue& eq, Tick start, Tick end) {
    if (!on || end <= start) return;
    eq.at(start, [this] { ++level; });
    eq.at(end, [this] { --level; });
  }
};

}  // namespace vp
