#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Checks the FlashShare workload attribute interface of the patched guest
# kernel (sw/kernel/patches/000[1-5]-workload-attr-*.patch) and leaves I/O
# in known LBA ranges for the device-side trace (vp-qemu --requests FILE):
#   bytes  0M.. 8M  reads,  attr 1   (attr-two-jobs.sh job A)
#   bytes 32M..40M  reads,  attr 0   (attr-two-jobs.sh job B)
#   bytes 16M..17M  reads,  attr 0   (task attr 1 but nvme.flashvp_attr=N)
#   bytes 48M..+64K writes, attr 1   (buffered, written by an attr-1 task)
#   bytes 56M..+64K writes, attr 0   (buffered, written by an attr-0 task)
# Prints "PASS ..."/"FAIL ..." per check; exits 1 if any failed.
fail=0
check() {  # check NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "PASS $1: $3"; else echo "FAIL $1: expected '$2' got '$3'"; fail=1; fi
}
param=/sys/module/nvme/parameters/flashvp_attr

check "init attribute" 0 "$(cat /proc/1/workload_attr)"
check "own attribute (prctl get)" 0 "$(chworkload_attr)"
check "chworkload_attr 1 -- cat" 1 "$(chworkload_attr 1 -- cat /proc/self/workload_attr)"
check "prctl get under attribute 7" 7 "$(chworkload_attr 7 chworkload_attr)"
check "inherited by grandchild" 1 "$(chworkload_attr 1 -- sh -c 'sh -c "cat /proc/self/workload_attr"')"
chworkload_attr 256 -- true 2>/dev/null
check "attribute 256 refused (exit)" 125 "$?"
check "proc write 256 refused" refused "$(sh -c 'echo 256 > /proc/$$/workload_attr' 2>/dev/null && echo accepted || echo refused)"

# Threads: fio --thread makes a multithreaded process.
fthreads="--name=t --ioengine=null --size=1M --thread --numjobs=3 --time_based --runtime=3"
chworkload_attr 1 -- fio $fthreads >/dev/null 2>&1 &
p=$!
sleep 1
n=$(ls /proc/$p/task | wc -l)
check "threads inherit (all of $n threads)" 1 "$(cat /proc/$p/task/*/workload_attr | sort -u | tr '\n' ' ' | sed 's/ $//')"
# -p sets every thread; the per-thread file sets one.
chworkload_attr -p $p 2 >/dev/null
check "-p PID 2 sets all threads" 2 "$(cat /proc/$p/task/*/workload_attr | sort -u | tr '\n' ' ' | sed 's/ $//')"
tid=$(ls /proc/$p/task | sed -n 2p)
echo 3 > /proc/$p/task/$tid/workload_attr
check "task/TID write sets one thread" "2 3" "$(cat /proc/$p/task/*/workload_attr | sort | uniq | tr '\n' ' ' | sed 's/ $//')"
wait $p

sleep 30 &
s=$!
check "-p PID reads" "pid $s: workload attribute 0" "$(chworkload_attr -p $s)"
check "-p PID ATTR sets" "pid $s: workload attribute 0 -> 1" "$(chworkload_attr -p $s 1)"
check "/proc/PID after -p" 1 "$(cat /proc/$s/workload_attr)"
kill $s

check "nvme.flashvp_attr default" Y "$(cat $param)"

sh /scripts/attr-two-jobs.sh || fail=1

# The run-time switch: off, an attr-1 task's reads carry 0 to the device.
echo N > $param
check "nvme.flashvp_attr off" N "$(cat $param)"
chworkload_attr 1 -- fio --name=V --filename=/dev/nvme0n1 --direct=1 --rw=randread --bs=4k \
  --offset=16M --size=1M --number_ios=50 --ioengine=psync >/dev/null || fail=1
echo Y > $param
check "nvme.flashvp_attr on again" Y "$(cat $param)"

# Buffered writes reach the device from writeback, with the attribute the
# block device's page cache took from its last writer.
chworkload_attr 1 -- dd if=/dev/zero of=/dev/nvme0n1 bs=4k count=16 seek=12288 conv=notrunc 2>/dev/null || fail=1
sync
dd if=/dev/zero of=/dev/nvme0n1 bs=4k count=16 seek=14336 conv=notrunc 2>/dev/null || fail=1
sync
echo "workload-attr: done (device ranges: see the header of this script)"
exit $fail
