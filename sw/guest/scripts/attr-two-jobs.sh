#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two fio jobs at once on /dev/nvme0n1, 500 direct 4 KiB random reads each:
# job A (LBA bytes 0..8M) under `chworkload_attr 1` (latency-critical),
# job B (32M..40M) with no attribute. With the FlashVP kernel patches and
# nvme.flashvp_attr on, the device sees attr 1 on every command of A's
# range and 0 on B's (vp-qemu --requests FILE records it). Prints both
# jobs' completion; exits non-zero if a job fails or misses I/Os.
common="--filename=/dev/nvme0n1 --direct=1 --rw=randread --bs=4k --size=8M --number_ios=500 --ioengine=psync --randrepeat=0"
# Each job reports its own attribute first: it must be what fio runs with.
chworkload_attr 1 -- sh -c 'echo "job A attr $(cat /proc/$$/workload_attr)"; exec fio --name=A --offset=0 '"$common" >/tmp/fio-A.out 2>&1 &
pa=$!
sh -c 'echo "job B attr $(cat /proc/$$/workload_attr)"; exec fio --name=B --offset=32M '"$common" >/tmp/fio-B.out 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
# fio's "issued rwts: total=R,W,T,S" line: R reads were issued.
ios() { sed -n 's/.*issued rwts: total=\([0-9]*\),.*/\1/p' "$1"; }
na=$(ios /tmp/fio-A.out); nb=$(ios /tmp/fio-B.out)
grep -h "^job . attr" /tmp/fio-A.out /tmp/fio-B.out
echo "attr-two-jobs: A (attr 1, offset 0) exit $ra reads ${na:-?}; B (attr 0, offset 32M) exit $rb reads ${nb:-?}"
if [ "$ra" != 0 ] || [ "$rb" != 0 ] || [ "$na" != 500 ] || [ "$nb" != 500 ]; then
  cat /tmp/fio-A.out /tmp/fio-B.out
  exit 1
fi
