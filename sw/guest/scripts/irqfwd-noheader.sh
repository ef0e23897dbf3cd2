#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# irqfwd-check.sh against shared memory without the FVPI header: the
# forwarder must take the doorbell but forward nothing, and say so.
IRQFWD_EXPECT_HEADER=0 exec sh /scripts/irqfwd-check.sh
