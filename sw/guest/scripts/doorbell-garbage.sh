#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A guest that writes garbage to the SSD's doorbells: a doorbell of a queue
# that does not exist and out-of-range values for queues that do not exist.
# The controller must answer with asynchronous events (error: invalid
# doorbell register) and go on serving I/O; the simulator must not crash.
# Exits non-zero if the device stops working.
set -e
bar=""
for d in /sys/bus/pci/devices/*; do
  if [ "$(cat $d/class)" = "0x010802" ]; then
    bar=$(head -n 1 $d/resource | cut -d' ' -f1)
    break
  fi
done
[ -n "$bar" ] || { echo "no NVMe function"; exit 1; }
echo "BAR0 at $bar"
errors() { nvme smart-log /dev/nvme0 | sed -n 's/^num_err_log_entries[^0-9]*\([0-9]*\).*/\1/p'; }
before=$(errors)
# SQ 60 tail, CQ 60 head (no such queues), then a huge tail for SQ 61.
devmem $((bar + 0x1000 + 2 * 60 * 4)) 32 0xdeadbeef
devmem $((bar + 0x1000 + (2 * 60 + 1) * 4)) 32 0x1234
devmem $((bar + 0x1000 + 2 * 61 * 4)) 32 0xffffffff
sleep 1
after=$(errors)
echo "error log entries: $before -> $after"
[ "$after" -eq $((before + 3)) ] || { echo "expected three new error log entries"; exit 1; }
nvme error-log /dev/nvme0 -e 3 | grep -E "sqid|cmdid" | head -n 6
# Still serving reads and writes.
head -c 65536 /dev/urandom > /tmp/pattern
dd if=/tmp/pattern of=/dev/nvme0n1 bs=4096 count=16 oflag=direct 2>/dev/null
dd if=/dev/nvme0n1 of=/tmp/back bs=4096 count=16 iflag=direct 2>/dev/null
cmp /tmp/pattern /tmp/back
echo "device still serves I/O"
