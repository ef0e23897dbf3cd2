// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Waveform tracing for GTKWave. Off unless asked for (--trace vcd): a
// component registers the state variables it wants shown (queue depths, busy
// flags) and, when tracing is off, registration costs nothing. Alongside the
// VCD a GTKWave save file lists the signals grouped by subsystem.
// The same registrations feed the timeline (--trace perfetto, Timeline):
// either output, or both, from the one registry.
//
// A signal's name is its component's parameter scope and a dotted path in
// it (signal_name: ssd1.nvme.sq1.occupancy), so the VCD's hierarchy (SystemC
// makes a $scope of each dotted part) has a scope per component and every
// drive its own.
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/AtomicFile.hpp"
#include "vp/core/EventQueue.hpp"
#include "vp/core/Timeline.hpp"

namespace vp {

class TimelineSampler;
struct BusySignal;

class Waves {
 public:
  // How GTKWave draws a count: a level (a queue's depth, free blocks) as an
  // analog step; a running total (doorbell writes) as a line through its
  // values, whose slope is the rate (a dense box of digits tells nothing).
  enum class Count : uint8_t { Level, Total };
  // Where a group sits in the save file: the host's cores, then the NVMe
  // queues, both open so they are in view when the file opens; then the
  // rest, closed (a click opens one).
  enum class Shelf : uint8_t { Host, Queues, Detail };

  Waves();  // out of line: the timeline's sampler is an incomplete type here
  ~Waves();
  // Writes vcd_base + ".vcd", under a temporary name until close().
  void open(const std::string& vcd_base);
  // Signals are wanted: the VCD, the timeline or both are being written.
  bool enabled() const { return tf_ != nullptr || timeline_ != nullptr; }
  bool vcd() const { return tf_ != nullptr; }
  // Writes the timeline (timeline.json) to `path`, under a temporary name
  // until close(); stops the calendar running ahead, as the VCD does.
  void open_timeline(const std::string& path);
  Timeline* timeline() const { return timeline_.get(); }
  // Where the VCD is being written until close() ("" when off).
  std::string temp_path() const { return vcd_ ? vcd_->temp_path() : std::string(); }
  // `group` is the GTKWave group the signal is shown in (the timeline's
  // process). Counts are drawn as `count` says, flags as one-bit waves.
  void trace(const uint64_t& var, const std::string& name, const std::string& group, Count count = Count::Level,
             Shelf shelf = Shelf::Detail);
  void trace(const bool& var, const std::string& name, const std::string& group, Shelf shelf = Shelf::Detail);
  // A BusySignal's flag: the VCD samples its level; the timeline takes its
  // booked intervals as they are booked.
  void trace(BusySignal& s, const std::string& name, const std::string& group, Shelf shelf = Shelf::Detail);
  // A count of something the run may create (an NVMe queue, made by the
  // host's Create I/O SQ): in the VCD from the start, since SystemC takes no
  // signal once the run has begun, but in the save file and on the timeline
  // only from when show(var) says it exists.
  void trace_dormant(const uint64_t& var, const std::string& name, const std::string& group,
                     Count count = Count::Level, Shelf shelf = Shelf::Detail);
  void show(const uint64_t& var);
  // A component's signal and group named after its parameter scope:
  // ("ssd.nvme", "sq1.occupancy") -> ssd.nvme.sq1.occupancy, in the group
  // "ssd nvme".
  static std::string signal_name(const std::string& scope, const std::string& rel);
  static std::string group_name(const std::string& scope);
  // The save file opens the view at `view_start` (ps; e.g. when I/O began).
  void write_gtkw(const std::string& gtkw_path, const std::string& vcd_path) const;
  void set_view_start(Tick view_start) { view_start_ps_ = view_start; }
  // Ends the traces; `publish`: the complete VCD and timeline take their
  // names (else, as after an error, the partial ones are removed).
  void close(bool publish = true);

 private:
  enum class Kind : uint8_t { Flag, Level, Total };
  struct Sig {
    std::string name, group;
    const void* var;
    Kind kind;
    Shelf shelf;
    bool shown;  // in the save file and on the timeline (trace_dormant: once shown)
  };
  void add(const void* var, const std::string& name, const std::string& group, Kind kind, Shelf shelf, bool shown);

  sc_core::sc_trace_file* tf_ = nullptr;
  std::unique_ptr<AtomicFile> vcd_;
  Tick view_start_ps_ = 0;
  std::vector<Sig> sigs_;  // every registration, in order, while enabled()
  std::unique_ptr<Timeline> timeline_;
  std::unique_ptr<TimelineSampler> sampler_;
};

// A busy flag driven by booked intervals [start, end) that never overlap:
// when traced, the transitions are scheduled on the owner's event queue; when
// not, nothing is. Back-to-back intervals keep the flag up (the end of one
// and the start of the next fall in the same instant, in booking order).
// On the timeline each interval is a slice, written as booked: no events.
struct BusySignal {
  bool level = false;
  bool on = false;                // the VCD's flag is driven
  Timeline* timeline = nullptr;  // the timeline's thread of slices, when written
  uint32_t thread = 0;
  void attach(Waves& w, const std::string& name, const std::string& group) { w.trace(*this, name, group); }
  void interval(EventQueue& eq, Tick start, Tick end) {
    if (end <= start) return;
    if (timeline) timeline->interval(thread, start, end);
    if (!on) return;
    eq.at(start, [this] { level = true; });
    eq.at(end, [this] { level = false; });
  }
};

}  // namespace vp
