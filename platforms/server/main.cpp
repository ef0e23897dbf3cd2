// SPDX-License-Identifier: BSD-3-Clause
// vp-server: the server platform binary. Runs the default preset with no
// arguments; see docs/running.md for the options and docs/outputs.md for the outputs.
#include <systemc>  // declares sc_main extern "C"

#include "vp/platform/RunCli.hpp"

int sc_main(int argc, char** argv) { return vp::platform::run_cli(argc, argv, vp::platform::Platform::Server); }

int main(int argc, char** argv) { return vp::platform::systemc_main(argc, argv); }
