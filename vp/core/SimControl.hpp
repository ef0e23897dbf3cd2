// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Stopping a run from inside the model with a message (e.g. the FTL ran out
// of free blocks): the message is kept, sc_stop ends the simulation, and the
// platform reports it and exits non-zero instead of crashing.
//
// Stopping it from outside (a signal, the platform's watchdog thread):
// sim_interrupt() only sets a flag, so it is safe in a signal handler and
// from another thread; the calendar pauses the kernel at its next instant
// or delta cycle when the flag is up, and the platform ends the run there.
#include <atomic>
#include <string>

namespace vp {
void sim_abort(const std::string& message);
const std::string& sim_abort_message();  // empty if the run was not aborted

namespace detail {
inline std::atomic<int> interrupt_cause{0};
}
// `cause`: a signal number, or kWatchdog. The first cause given is kept.
constexpr int kWatchdog = -1;
inline void sim_interrupt(int cause) {
  int none = 0;
  detail::interrupt_cause.compare_exchange_strong(none, cause, std::memory_order_relaxed);
}
inline int sim_interrupt_cause() { return detail::interrupt_cause.load(std::memory_order_relaxed); }
inline bool sim_interrupted() { return sim_interrupt_cause() != 0; }
void sim_clear_interrupt();  // a new run in the same process (the tests)
}  // namespace vp
