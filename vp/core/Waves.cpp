// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/Waves.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <unistd.h>

namespace vp {

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

void Waves::trace(const uint64_t& var, const std::string& name, const std::string& group) {
  if (!tf_) return;
  sc_core::sc_trace(tf_, var, name);
  sigs_.push_back({name, group, false});
}

void Waves::trace(const bool& var, const std::string& name, const std::string& group) {
  if (!tf_) return;
  sc_core::sc_trace(tf_, var, name);
  sigs_.push_back({name, group, true});
}

void Waves::close(bool publish) {
  if (tf_) sc_core::sc_close_vcd_trace_file(tf_);
  tf_ = nullptr;
  if (vcd_ && publish) vcd_->commit();
  vcd_.reset();
}

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
  f << "[sst_width] 260\n[signals_width] 300\n";
  f << "[sst_expanded] 1\n";
  // Keep groups in first-seen order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Sig*>> by_group;
  for (const auto& s : sigs_) {
    if (!by_group.count(s.group)) order.push_back(s.group);
    by_group[s.group].push_back(&s);
  }
  // Trace flags: 0x800200 opens a group, 0x1000200 closes it; 0x24 shows a
  // vector right-justified in decimal, 0x28 a bit in binary.
  for (const auto& g : order) {
    f << "@800200\n-" << g << "\n";
    for (const Sig* s : by_group[g])
      f << (s->flag ? "@28\nSystemC." + s->name + "\n" : "@24\nSystemC." + s->name + "[63:0]\n");
    f << "@1000200\n-" << g << "\n";
  }
  file.commit();
}

std::string Waves::signal_name(const std::string& scope, const std::string& rel) {
  std::string n = scope + "_" + rel;
  std::replace(n.begin(), n.end(), '.', '_');
  return n;
}

std::string Waves::group_name(const std::string& scope) {
  std::string g = scope;
  std::replace(g.begin(), g.end(), '.', ' ');
  return g;
}

}  // namespace vp
