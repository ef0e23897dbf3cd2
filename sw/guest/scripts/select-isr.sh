#!/bin/sh
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
# Prints "SELECT-ISR polled_job_irqs=X plain_job_irqs=Y off_job_irqs=Z";
# exits non-zero unless X < 50 and Y, Z > 1500. Offsets: polled job at
# 0, plain at 32M, off at 64M (so the device trace tells them apart).
sw=/sys/module/block/parameters/flashvp_select_isr
[ -w "$sw" ] || { echo "select-isr: no $sw (kernel without patch 0008?)"; exit 1; }
dmesg | grep -o "[0-9]*/[0-9]*/[0-9]* default/read/poll queues"
[ "$(cat /sys/block/nvme0n1/queue/io_poll)" = 1 ] || { echo "select-isr: no polled queue (nvme.poll_queues=1?)"; exit 1; }

# Sum over CPUs of every nvme0q* line of /proc/interrupts.
irqs() {
  awk '$NF ~ /^nvme0q[0-9]+$/ { for (i = 2; i <= NF; i++) { if ($i ~ /^[0-9]+$/) s += $i; else break } }
       END { print s + 0 }' /proc/interrupts
}
common="--filename=/dev/nvme0n1 --direct=1 --rw=randread --bs=4k --size=8M --number_ios=2000 --ioengine=psync --randrepeat=0"
# fio's "issued rwts: total=R,W,T,S" line: R reads were issued.
reads() { sed -n 's/.*issued rwts: total=\([0-9]*\),.*/\1/p' "$1"; }
fail=0
# run NAME SWITCH ATTR OFFSET: prints the interrupt growth over the job.
run() {
  echo "$2" > "$sw"
  a=$(irqs)
  if [ "$3" = 0 ]; then
    fio --name="$1" --offset="$4" $common > "/tmp/$1.out" 2>&1
  else
    chworkload_attr "$3" -- fio --name="$1" --offset="$4" $common > "/tmp/$1.out" 2>&1
  fi
  rc=$?
  b=$(irqs)
  n=$(reads "/tmp/$1.out")
  if [ "$rc" != 0 ] || [ "$n" != 2000 ]; then
    echo "select-isr: job $1 exit $rc reads ${n:-?}" >&2
    cat "/tmp/$1.out" >&2
    fail=1
  fi
  echo $((b - a))
}
x=$(run polled Y 1 0)
y=$(run plain Y 0 32M)
z=$(run off N 1 64M)
echo N > "$sw"
grep -h "IOPS" /tmp/polled.out /tmp/plain.out /tmp/off.out
grep nvme0q /proc/interrupts
echo "SELECT-ISR polled_job_irqs=$x plain_job_irqs=$y off_job_irqs=$z"
[ "$fail" = 0 ] && [ "$x" -lt 50 ] && [ "$y" -gt 1500 ] && [ "$z" -gt 1500 ]
