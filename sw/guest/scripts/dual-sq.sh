#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# FlashShare's two SQs per I/O queue (boot with nvme.flashvp_dual_sq=1):
# the driver must have announced its latency-critical SQs and vendor
# arbitration at probe; then the two fio jobs of attr-two-jobs.sh run, so
# the device trace (vp-qemu --requests FILE) shows job A's reads (attr 1,
# LBA bytes 0..8M) on the extra SQ ids and job B's on the normal ones.
line=$(dmesg | grep -o "flashvp: dual SQs: [0-9]* latency-critical SQs (ids [0-9]*-[0-9]*), vendor arbitration")
n=$(echo "$line" | sed -n 's/.*dual SQs: \([0-9]*\) latency.*/\1/p')
echo "dual-sq: ${line:-no dual-SQ line at probe}"
if [ -z "$n" ] || [ "$n" -lt 1 ]; then
  dmesg | grep -i "nvme\|flashvp"
  exit 1
fi
dmesg | grep -o "[0-9]*/[0-9]*/[0-9]* default/read/poll queues"
exec sh /scripts/attr-two-jobs.sh
