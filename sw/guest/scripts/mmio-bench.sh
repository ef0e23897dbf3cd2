#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest-visible cost of one register read and one register write.
mmio-bench 2000
