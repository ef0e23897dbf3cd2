#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fio verify on a guest with four CPUs (vp-qemu --smp 4): four jobs, one
# pinned to each CPU, so the nvme driver's four I/O queues and their four
# MSI-X vectors are all used while other CPUs write doorbells at the same
# time. Each job writes its own 16 MiB (offsets 0, 16M, 32M, 48M) at queue
# depth 16 with crc32c, fio reads every block back; then a read-only
# verification pass of the same blocks. Fails on an I/O error, a verify
# error, a queue that raised no interrupt, or an nvme timeout or reset in
# the kernel log. Prints "SMP-VERIFY cpus=N q1=A q2=B q3=C q4=D timeouts=T".
set -e
cpus=$(grep -c ^processor /proc/cpuinfo)
[ "$cpus" = 4 ] || { echo "fio-verify-smp: $cpus CPUs, want 4 (vp-qemu --smp 4)"; exit 1; }
# Interrupts of nvme0qN summed over CPUs (the forwarder runs the handler on
# whichever CPU took the doorbell interrupt).
qirqs() {
  awk -v q="nvme0q$1" '$NF == q { for (i = 2; i <= NF; i++) { if ($i ~ /^[0-9]+$/) s += $i; else break } }
       END { print s + 0 }' /proc/interrupts
}
for q in 1 2 3 4; do eval "before$q=$(qirqs $q)"; done
common="--filename=/dev/nvme0n1 --direct=1 --bs=4k --size=16M --offset_increment=16M --numjobs=4
        --cpus_allowed=0-3 --cpus_allowed_policy=split --iodepth=16 --verify=crc32c --randseed=1234 --group_reporting"
# shellcheck disable=SC2086
fio --name=smp-verify --rw=randwrite --ioengine=io_uring $common
# shellcheck disable=SC2086
fio --name=smp-verify --rw=randwrite --ioengine=libaio --verify_only $common
line="SMP-VERIFY cpus=$cpus"
ok=1
for q in 1 2 3 4; do
  eval "b=\$before$q"
  n=$(( $(qirqs $q) - b ))
  line="$line q$q=$n"
  [ "$n" -gt 0 ] || ok=0
done
t=$(dmesg | grep -c -e "timeout, aborting" -e "resetting controller" || true)
echo "$line timeouts=$t"
[ "$ok" = 1 ] || { echo "fio-verify-smp: a queue raised no interrupt"; grep nvme /proc/interrupts; exit 1; }
[ "$t" = 0 ] || { echo "fio-verify-smp: nvme timeouts or resets"; dmesg | grep nvme | tail -20; exit 1; }
