// SPDX-License-Identifier: BSD-3-Clause
// vp-drive: the drive platform binary (DriveTop): vp-server's options and
// outputs, the drive driven from its NVMe queues with no host above them;
// see docs/drive.md.
#include <systemc>  // declares sc_main extern "C"

#include "vp/platform/RunCli.hpp"

int sc_main(int argc, char** argv) { return vp::platform::run_cli(argc, argv, vp::platform::Platform::Drive); }

int main(int argc, char** argv) { return vp::platform::systemc_main(argc, argv); }
