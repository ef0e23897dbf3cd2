#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 4 KiB random reads with O_DIRECT on /dev/nvme0n1 for a few seconds at the
# queue depth given on the kernel command line (flashvp.qd=N, default 1),
# after writing the region once so reads hit mapped pages. Prints one line:
#   FIO-RESULT qd=N iops=I lat_mean_us=L lat_p99_us=P
set -e
qd=1
for w in $(cat /proc/cmdline); do
  case $w in flashvp.qd=*) qd=${w#flashvp.qd=} ;; esac
done
fio --name=fill --filename=/dev/nvme0n1 --direct=1 --rw=write --bs=128k --size=32M \
    --ioengine=io_uring --iodepth=8 --output=/dev/null
fio --name=rr --filename=/dev/nvme0n1 --direct=1 --rw=randread --bs=4k --size=32M \
    --ioengine=io_uring --iodepth=$qd --time_based --runtime=4 --ramp_time=1 \
    --output-format=terse --terse-version=3 --output=/tmp/rr.terse
# terse v3 read fields: 8 IOPS, 40 total latency mean (us), 18-37 completion latency percentiles
awk -F';' -v qd=$qd '{
  p99 = "?"
  for (i = 18; i <= 37; i++) if (index($i, "99.000000%=") == 1) { split($i, a, "="); p99 = a[2] }
  printf "FIO-RESULT qd=%s iops=%s lat_mean_us=%.1f clat_p99_us=%s\n", qd, $8, $40, p99
}' /tmp/rr.terse
