#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two drives served by vp-qemu (platform.drives with two names): the stock
# driver probes both controllers, nvme-cli lists them with their own
# serials, and each keeps the data written to it (fio crc32c verify on
# each, one after the other, then on both at once).
set -e
nvme list
echo "NVME-CONTROLLERS $(ls -d /sys/class/nvme/nvme* | wc -l)"
common="--direct=1 --bs=4k --size=8M --iodepth=16 --verify=crc32c --ioengine=libaio --rw=randwrite"
fio --name=first --filename=/dev/nvme0n1 --randseed=11 $common
fio --name=second --filename=/dev/nvme1n1 --randseed=22 $common
fio --name=both0 --filename=/dev/nvme0n1 --randseed=33 --offset=16M $common \
    --name=both1 --filename=/dev/nvme1n1 --randseed=44 --offset=16M $common
