#!/bin/sh
# The guest-visible cost of one register read and one register write.
mmio-bench 2000
