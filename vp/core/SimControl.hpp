// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Stopping a run from inside the model with a message (e.g. the FTL ran out
// of free blocks): the message is kept, sc_stop ends the simulation, and the
// platform reports it and exits non-zero instead of crashing.
#include <string>

namespace vp {
void sim_abort(const std::string& message);
const std::string& sim_abort_message();  // empty if the run was not aborted
}  // namespace vp
