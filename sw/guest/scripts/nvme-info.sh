#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Identify and health of the first NVMe controller and namespace.
# Exits non-zero if any command fails.
fail=0
run() { echo "+ $*"; "$@" || { echo "FAILED ($?): $*"; fail=1; }; }
run nvme list
run nvme id-ctrl /dev/nvme0
run nvme id-ns /dev/nvme0n1
run nvme smart-log /dev/nvme0
run nvme get-feature /dev/nvme0 -f 7 -H
exit $fail
