// SPDX-License-Identifier: BSD-3-Clause
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <systemc>

// Catch2 owns main(); SystemC's library still wants an sc_main to link.
int sc_main(int, char**) { return 0; }
