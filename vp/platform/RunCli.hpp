// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The command line of the platform binaries (vp-server, vp-drive): presets,
// configuration files, --set, fio job files, seeds, traces, the listings,
// and the run with its outputs; see docs/running.md. Returns the exit status.
#include <string>

#include "vp/platform/ServerRun.hpp"

namespace vp::platform {

int run_cli(int argc, char** argv, Platform platform);
// --version: the binary, the source tree it was built from (git describe),
// the summary.json layout it writes and the SystemC it runs on.
std::string version_text(const std::string& prog);

}  // namespace vp::platform
