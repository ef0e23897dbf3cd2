#include "vp/core/Waves.hpp"

#include <fmt/format.h>
#include <fstream>
#include <map>

namespace vp {

Waves::~Waves() { close(); }

void Waves::open(const std::string& vcd_base) {
  tf_ = sc_core::sc_create_vcd_trace_file(vcd_base.c_str());
  tf_->set_time_unit(1, sc_core::SC_NS);
}

void Waves::trace(const uint64_t& var, const std::string& name, const std::string& group) {
  if (!tf_) return;
  sc_core::sc_trace(tf_, var, name);
  sigs_.push_back({name, group});
}

void Waves::close() {
  if (tf_) sc_core::sc_close_vcd_trace_file(tf_);
  tf_ = nullptr;
}

void Waves::write_gtkw(const std::string& gtkw_path, const std::string& vcd_path) const {
  std::ofstream f(gtkw_path);
  f << "[*] FlashVP waveform view\n";
  f << "[dumpfile] \"" << vcd_path << "\"\n";
  f << "[timestart] 0\n[size] 1400 900\n[pos] -1 -1\n[sst_width] 260\n[signals_width] 300\n";
  f << "[sst_expanded] 1\n";
  // Keep groups in first-seen order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> by_group;
  for (const auto& s : sigs_) {
    if (!by_group.count(s.group)) order.push_back(s.group);
    by_group[s.group].push_back(s.name);
  }
  for (const auto& g : order) {
    // 0xc00200: group start (blank|grp_begin|closed off); closing with 0x1000200.
    f << "@800200\n-" << g << "\n";
    for (const auto& n : by_group[g]) f << "@24\nSystemC." << n << "[63:0]\n";
    f << "@1000200\n-" << g << "\n";
  }
}

}  // namespace vp
