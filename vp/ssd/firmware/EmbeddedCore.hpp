// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// An embedded core of the SSD controller running the work of the firmware
// threads placed on it in turn: one item at a time, taking the threads
// round robin from the one after the last that ran, so a busy thread cannot
// starve the others. Idle until a thread has work; no time passes per cycle.
// Sharing a core costs: an item of another thread than the last one to run
// first pays the switch (ssd.fw.cost.switch), so threads that share a core
// with busy neighbours get less done than the sum of their tasks.
#include <string>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/core/Waves.hpp"
#include "vp/ssd/firmware/FirmwareThread.hpp"

namespace vp::ssd {

class EmbeddedCore {
 public:
  // `stats`: the firmware's group (core<index>.*, busy_ps summed);
  // `switch_time`: the core time of changing threads.
  EmbeddedCore(unsigned index, EventQueue& eq, const StatGroup& stats, Waves& waves, Tick switch_time = 0);
  unsigned index() const { return index_; }
  void add(FirmwareThread& t) { threads_.push_back(&t); }
  const std::vector<FirmwareThread*>& threads() const { return threads_; }
  // A thread of this core got work or was unblocked: start it if idle.
  void kick();
  uint64_t busy_ps() const { return busy_ps_.value; }

 private:
  void finish(FirmwareThread& t);

  unsigned index_;
  EventQueue& eq_;
  std::vector<FirmwareThread*> threads_;
  size_t next_ = 0;
  const FirmwareThread* last_ = nullptr;  // whose context the core holds
  Tick switch_time_;
  bool running_ = false;
  FwWork current_;  // the item running
  Counter &busy_ps_, &items_, &total_ps_, &switches_;
  BusySignal busy_;
};

}  // namespace vp::ssd
