// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The command line of the platform binaries (vp-server, vp-drive): presets,
// configuration files, --set, fio job files, seeds, traces, the listings,
// and the run with its outputs; see docs/running.md. Returns the exit status.
#include "vp/platform/ServerRun.hpp"

namespace vp::platform {

int run_cli(int argc, char** argv, Platform platform);

}  // namespace vp::platform
