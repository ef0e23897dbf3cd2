#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# FlashShare Select-ISR (OSDI'18 section 3.4), patch 0008: with
# block.flashvp_select_isr on, synchronous direct I/O of a task with a
# non-zero workload attribute is submitted polled (poll queue, needs
# nvme.poll_queues=1 on the command line) and its submitter polls, so the
# NVMe interrupt count does not move; other I/O still completes by
# interrupt. The same fio job (2000 direct 4 KiB psync reads) runs three
# times, the switch flipped at run time through sysfs:
#   polled:  switch on,  chworkload_attr 1  -> expect ~0 interrupts
#   plain:   switch on,  no attribute       -> expect ~2000
#   off:     switch off, chworkload_attr 1  -> expect ~2000
# then, switch on under chworkload_attr 1, 512 direct 4 KiB psync writes
# read back and crc32c-verified (polled writes and reads keep the data).
# Prints "SELECT-ISR polled_job_irqs=X plain_job_irqs=Y off_job_irqs=Z
# verify_job_irqs=W"; exits non-zero unless X, W < 50 and Y, Z > 1500.
# Offsets: polled job at 0, plain at 32M, off at 64M, verify at 48M (so
# the device trace tells them apart).
sw=/sys/module/block/parameters/flashvp_select_isr
[ -w "$sw" ] || { echo "select-isr: no $sw (kernel without patch 0008?)"; exit 1; }
dmesg | grep -o "[0-9]*/[0-9]*/[0-9]* default/read/poll queues"
[ "$(cat /sys/block/nvme0n1/queue/io_poll)" = 1 ] || { echo "select-isr: no polled queue (nvme.poll_queues=1?)"; exit 1; }

# Sum over CPUs of every nvme0q* line of /proc/interrupts.
irqs() {
  awk '$NF ~ /^nvme0q[0-9]+$/ { for (i = 2; i <= NF; i++) { if ($i ~ /^[0-9]+$/) s += $i; else break } }
       END { print s + 0 }' /proc/interrupts
}
rd="--rw=randread --size=8M --number_ios=2000"
common="--filename=/dev/nvme0n1 --direct=1 --bs=4k --ioengine=psync --randrepeat=0"
# fio's "issued rwts: total=R,W,T,S" line: R reads were issued.
reads() { sed -n 's/.*issued rwts: total=\([0-9]*\),.*/\1/p' "$1"; }
rm -f /tmp/select-isr.fail
# run NAME SWITCH ATTR OFFSET READS FIO-ARGS...: prints the interrupt growth over the job
# (it runs in a subshell, so a failed job leaves a file behind).
run() {
  name=$1 attr=$3 off=$4 want=$5
  echo "$2" > "$sw"
  shift 5
  a=$(irqs)
  if [ "$attr" = 0 ]; then
    fio --name="$name" --offset="$off" $common "$@" > "/tmp/$name.out" 2>&1
  else
    chworkload_attr "$attr" -- fio --name="$name" --offset="$off" $common "$@" > "/tmp/$name.out" 2>&1
  fi
  rc=$?
  b=$(irqs)
  n=$(reads "/tmp/$name.out")
  if [ "$rc" != 0 ] || [ "$n" != "$want" ]; then
    echo "select-isr: job $name exit $rc reads ${n:-?} (want $want)" >&2
    cat "/tmp/$name.out" >&2
    touch /tmp/select-isr.fail
  fi
  echo $((b - a))
}
x=$(run polled Y 1 0 2000 $rd)
y=$(run plain Y 0 32M 2000 $rd)
z=$(run off N 1 64M 2000 $rd)
# fio counts the verify reads as issued reads: 2 MiB / 4 KiB = 512.
w=$(run verify Y 1 48M 512 --rw=randwrite --size=2M --verify=crc32c)
echo N > "$sw"
grep -h "IOPS" /tmp/polled.out /tmp/plain.out /tmp/off.out /tmp/verify.out
grep nvme0q /proc/interrupts
echo "SELECT-ISR polled_job_irqs=$x plain_job_irqs=$y off_job_irqs=$z verify_job_irqs=$w"
[ ! -e /tmp/select-isr.fail ] && [ "$x" -lt 50 ] && [ "$w" -lt 50 ] && [ "$y" -gt 1500 ] && [ "$z" -gt 1500 ]
