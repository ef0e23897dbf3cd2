// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/SimControl.hpp"

#include <systemc>

#include "vp/core/Calendar.hpp"

namespace vp {
namespace {
std::string& message() {
  static std::string m;
  return m;
}
}  // namespace

void sim_abort(const std::string& msg) {
  if (message().empty()) message() = msg;
  Calendar::get().stop();
}
const std::string& sim_abort_message() { return message(); }
void sim_clear_interrupt() { detail::interrupt_cause.store(0, std::memory_order_relaxed); }
}  // namespace vp
