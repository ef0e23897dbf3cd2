#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# FlashShare's I/O-stack accelerator (XLER) in the guest: patch 0012 and the
# driver sw/guest/xler. Boot with nvme.flashvp_xler_queues=1 on vp-qemu with
# accel.enabled=on.
# 1. Switch on. Under chworkload_attr 1, fio writes 4 MiB at 0 sequentially
#    in 4 KiB direct writes (libaio, 32 submitted at once: adjacent bios the
#    accelerator may merge) and crc32c-verifies them: 1024 writes and 1024
#    reads through the accelerator.
# 2. A plain job verifies the same blocks through blk-mq (verify_only).
# 3. A plain job writes and verifies 4 MiB at 16M through blk-mq; under
#    attribute 1 those blocks are verified again through the accelerator
#    (1024 reads).
# 4. Switched off, an attribute-1 job reads through blk-mq: the driver's
#    counters stay as they were.
# Prints "XLER bios=B done=D normal_path=N errors=E off_added=O" and exits
# non-zero unless B = D = 3072, N = 0, E = 0, O = 0 and every fio job passed.
sw=/sys/module/flashvp_xler/parameters/enable
st=/sys/module/flashvp_xler/parameters/stats
[ -w "$sw" ] || { echo "xler: no $sw (kernel without the flashvp_xler driver?)"; exit 1; }
echo 1 > "$sw" || { echo "xler: could not switch on (see dmesg)"; dmesg | tail -5; exit 1; }
dmesg | grep -E "flashvp_xler|XLER queues" | tail -3
stat() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$st"; }
fail=0
common="--filename=/dev/nvme0n1 --direct=1 --bs=4k --size=4M --verify=crc32c --randseed=1234 --ioengine=libaio"
batch="--iodepth=32 --iodepth_batch_submit=32 --iodepth_batch_complete_min=1"
# run LABEL ATTR FIO-ARGS...
run() {
  label=$1 attr=$2
  shift 2
  if [ "$attr" = 0 ]; then fio "$@" > "/tmp/$label.out" 2>&1; else chworkload_attr "$attr" -- fio "$@" > "/tmp/$label.out" 2>&1; fi
  rc=$?
  echo "xler: $label exit $rc, $(grep -o 'issued rwts: total=[0-9,]*' "/tmp/$label.out")"
  [ $rc = 0 ] || { fail=1; cat "/tmp/$label.out"; }
}
run lc-write 1 --name=lc --offset=0 --rw=write $batch $common
run plain-verify 0 --name=lc --offset=0 --rw=write --verify_only $batch $common
run plain-write 0 --name=tp --offset=16M --rw=write $batch $common
run lc-verify 1 --name=tp --offset=16M --rw=write --verify_only $batch $common
b=$(stat bios)
echo 0 > "$sw"
run off-read 1 --name=off --offset=32M --rw=read --size=1M --bs=4k --direct=1 --ioengine=libaio --filename=/dev/nvme0n1
off=$(($(stat bios) - b))
echo "XLER bios=$(stat bios) done=$(stat done) normal_path=$(stat normal_path) errors=$(stat errors) off_added=$off"
[ "$(stat bios)" = 3072 ] && [ "$(stat done)" = 3072 ] && [ "$(stat normal_path)" = 0 ] && [ "$(stat errors)" = 0 ] &&
  [ "$off" = 0 ] || fail=1
exit $fail
