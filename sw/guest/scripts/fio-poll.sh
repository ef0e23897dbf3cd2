#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Polled completion: with nvme.poll_queues=1 on the kernel command line the
# stock driver keeps a polled queue, and io_uring with --hipri reaps its
# completions by polling, without interrupts. Writes and verifies 8 MiB.
set -e
dmesg | grep -o "[0-9]*/[0-9]*/[0-9]* default/read/poll queues"
[ "$(cat /sys/block/nvme0n1/queue/io_poll)" = 1 ] || { echo "no polled queue"; exit 1; }
fio --name=polled --filename=/dev/nvme0n1 --direct=1 --rw=randwrite --bs=4k --size=8M \
    --ioengine=io_uring --hipri --iodepth=4 --verify=crc32c --output=/tmp/poll.out || { cat /tmp/poll.out; exit 1; }
grep -E "err=|IOPS" /tmp/poll.out
