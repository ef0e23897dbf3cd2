// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/Waves.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <unistd.h>

#include "vp/core/TimelineSampler.hpp"

namespace vp {

namespace {
// The timeline lists the processes as the save file the groups.
Timeline::Place place(Waves::Shelf s) {
  return s == Waves::Shelf::Host     ? Timeline::Place::First
         : s == Waves::Shelf::Queues ? Timeline::Place::AfterRequests
                                     : Timeline::Place::Resources;
}
}  // namespace

Waves::Waves() = default;
Waves::~Waves() { close(false); }

void Waves::open(const std::string& vcd_base) {
  std::string temp_base = fmt::format("{}.tmp-{}", vcd_base, static_cast<long>(getpid()));
  vcd_ = std::make_unique<AtomicFile>(vcd_base + ".vcd", temp_base + ".vcd");
  tf_ = sc_core::sc_create_vcd_trace_file(temp_base.c_str());
  // The model's own resolution: a coarser unit cannot show its instants
  // (SystemC warns, W713, at every one).
  tf_->set_time_unit(1, sc_core::SC_PS);
  Calendar::get().set_run_ahead(false);  // the VCD samples values at the kernel's time
}

void Waves::open_timeline(const std::string& path) {
  timeline_ = std::make_unique<Timeline>(path);
  sampler_ = std::make_unique<TimelineSampler>(*timeline_);
  Calendar::get().set_run_ahead(false);  // the sampler reads values at the kernel's time
}

void Waves::add(const void* var, const std::string& name, const std::string& group, Kind kind, Shelf shelf,
                bool shown) {
  sigs_.push_back({name, group, var, kind, shelf, shown});
}

void Waves::trace(const uint64_t& var, const std::string& name, const std::string& group, Count count, Shelf shelf) {
  if (!enabled()) return;
  if (sampler_) sampler_->watch(var, timeline_->counter(group, name, place(shelf)));
  if (tf_) sc_core::sc_trace(tf_, var, name);
  add(&var, name, group, count == Count::Total ? Kind::Total : Kind::Level, shelf, true);
}

void Waves::trace_dormant(const uint64_t& var, const std::string& name, const std::string& group, Count count,
                          Shelf shelf) {
  if (!enabled()) return;
  if (tf_) sc_core::sc_trace(tf_, var, name);
  add(&var, name, group, count == Count::Total ? Kind::Total : Kind::Level, shelf, false);
}

void Waves::show(const uint64_t& var) {
  for (Sig& s : sigs_) {
    if (s.var != &var || s.shown) continue;
    s.shown = true;
    // The timeline's counter starts here, at the value it has now.
    if (sampler_) sampler_->watch(var, timeline_->counter(s.group, s.name, place(s.shelf)));
  }
}

void Waves::trace(const bool& var, const std::string& name, const std::string& group, Shelf shelf) {
  if (!enabled()) return;
  if (sampler_) sampler_->watch(var, timeline_->thread(group, name, place(shelf)));
  if (tf_) sc_core::sc_trace(tf_, var, name);
  add(&var, name, group, Kind::Flag, shelf, true);
}

void Waves::trace(BusySignal& s, const std::string& name, const std::string& group, Shelf shelf) {
  s.on = tf_ != nullptr;
  if (s.on) sc_core::sc_trace(tf_, s.level, name);
  s.timeline = timeline_.get();
  if (timeline_) s.thread = timeline_->thread(group, name, place(shelf));
  if (enabled()) add(&s.level, name, group, Kind::Flag, shelf, true);
}

void Waves::close(bool publish) {
  if (tf_) sc_core::sc_close_vcd_trace_file(tf_);
  tf_ = nullptr;
  if (vcd_ && publish) vcd_->commit();
  vcd_.reset();
  if (timeline_) {
    // The sampler first: the slices it still has open end now.
    const Tick now = sc_core::sc_time_stamp().value();
    sampler_->finish(now);
    sampler_.reset();
    std::unique_ptr<Timeline> t = std::move(timeline_);
    t->close(now, publish);
  }
}

namespace {
// GTKWave's trace flags (TraceEntFlagBits in its src/analyzer.h): a save
// file's "@<hex>" line sets them for the rows after it.
constexpr uint32_t kDec = 1u << 2, kBin = 1u << 3, kRjustify = 1u << 5, kBlank = 1u << 9, kCollapsed = 1u << 12,
                   kAnalogStep = 1u << 15, kAnalogInterpolated = 1u << 16, kAnalogBlankStretch = 1u << 17,
                   kClosed = 1u << 22, kGroupBegin = 1u << 23, kGroupEnd = 1u << 24;
}  // namespace

void Waves::write_gtkw(const std::string& gtkw_path, const std::string& vcd_path) const {
  AtomicFile file(gtkw_path);
  std::ostream& f = file.out();
  f << "[*] FlashVP waveform view\n";
  f << "[dumpfile] \"" << vcd_path << "\"\n";
  // Open on about 150 us of activity from when I/O began: zoom is log2 of
  // time units per pixel's inverse, and -15 showed about 150 us in 1 ns
  // units (found by trying), so -25 in 1 ps units.
  f << "[timestart] " << view_start_ps_ << "\n[size] 1400 900\n[pos] -1 -1\n";
  f << "*-25.000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n";
  f << "[treeopen] SystemC.\n";  // the signal tree shows the components' scopes
  f << "[sst_width] 260\n[signals_width] 300\n";
  f << "[sst_expanded] 1\n";
  // Groups by shelf (host cores, queues, the rest), each shelf's in the
  // order first registered; only signals shown (a queue never created has
  // none).
  std::vector<std::string> order;
  std::map<std::string, Shelf> shelf;
  std::map<std::string, std::vector<const Sig*>> by_group;
  for (const auto& s : sigs_) {
    if (!shelf.count(s.group)) {
      order.push_back(s.group);
      shelf[s.group] = s.shelf;
    }
    if (s.shown) by_group[s.group].push_back(&s);
  }
  std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) { return shelf[a] < shelf[b]; });
  auto flags = [&f](uint32_t v) { f << '@' << std::hex << v << std::dec << '\n'; };
  for (const auto& g : order) {
    if (by_group[g].empty()) continue;
    // A closed group's end also carries "collapsed", as GTKWave writes it.
    const bool open = shelf[g] != Shelf::Detail;
    flags(kGroupBegin | kBlank | (open ? 0 : kClosed));
    f << '-' << g << '\n';
    for (const Sig* s : by_group[g]) {
      // Each row is labelled with the signal's whole name ("+{alias} path"),
      // '/' between its parts: GTKWave shows only the part after the last
      // '.' of a name (occupancy, busy).
      std::string label = s->name;
      std::replace(label.begin(), label.end(), '.', '/');
      if (s->kind == Kind::Flag) {
        flags(kBin | kRjustify);
        f << "+{" << label << "} SystemC." << s->name << '\n';
        continue;
      }
      flags((s->kind == Kind::Total ? kAnalogInterpolated : kAnalogStep) | kDec | kRjustify);
      f << "+{" << label << "} SystemC." << s->name << "[63:0]\n";
      // One blank row under it makes the analog trace two rows tall.
      flags(kAnalogBlankStretch);
      f << "-\n";
    }
    flags(kGroupEnd | kBlank | (open ? 0 : kClosed | kCollapsed));
    f << '-' << g << '\n';
  }
  file.commit();
}

std::string Waves::signal_name(const std::string& scope, const std::string& rel) {
  return scope.empty() ? rel : scope + "." + rel;
}

std::string Waves::group_name(const std::string& scope) {
  std::string g = scope;
  std::replace(g.begin(), g.end(), '.', ' ');
  return g;
}

}  // namespace vp
