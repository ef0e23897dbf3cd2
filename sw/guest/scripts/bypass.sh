#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# FlashShare's blk-mq bypass (OSDI'18 section 3.3), patch 0009. Boot with
# nvme.io_queue_depth=2: one driver tag per queue, so requests wait in the
# I/O scheduler (mq-deadline) as they would behind a deep throughput load.
#
# 1. Merges (plug and scheduler) are skipped for latency-critical requests:
#    the same fio job (1024 sequential 4 KiB direct writes, libaio, batches
#    of 32, so the plug and mq-deadline merge neighbours) runs three times:
#      bypass on,  chworkload_attr 1 -> offset  0M, 1024 commands expected
#      bypass on,  plain             -> offset 16M, merged (fewer)
#      bypass off, chworkload_attr 1 -> offset 32M, merged (fewer)
#    The host side counts the device's commands per region; here the
#    bypass counter must grow by exactly 1024, and by 0 for the others.
# 2. Same-LBA hazard: lba-hazard writes pattern A (attribute 0) then B
#    (attribute 1) to one block, 100 rounds, each behind 32 plain writes
#    to other blocks submitted just before; the block must hold B. Run with the bypass
#    without the hazard rule (2: B overtakes A, stale rounds expected), with
#    it (1: none stale, conflicting requests issued ahead > 0), and off (0).
#    Then with no scheduler (none), mode 1 again.
# 3. A scheduler without the hand-over (kyber) keeps latency-critical
#    requests queued: the sched_kept counter grows.
# Prints "BYPASS unsafe_stale=U safe_stale=S ..." and exits non-zero unless
# U > 0 (the hazard is real), S = 0, off_stale = 0, none_stale = 0 and the
# counters are as said.
sw=/sys/module/block/parameters/flashvp_bypass
st=/sys/module/block/parameters/flashvp_bypass_stats
q=/sys/block/nvme0n1/queue
[ -w "$sw" ] || { echo "bypass: no $sw (kernel without patch 0009?)"; exit 1; }
echo "queue depth $(cat $q/nr_requests), schedulers: $(cat $q/scheduler)"
echo mq-deadline > $q/scheduler || exit 1
# The scheduler may hold more requests than the driver's tags (default: 2 x depth).
echo 256 > $q/nr_requests || exit 1
fail=0
# stat NAME: one of bypassed, tandem, sched_kept
stat() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$st"; }

seqw="--filename=/dev/nvme0n1 --direct=1 --ioengine=libaio --iodepth=32 --iodepth_batch_submit=32
      --iodepth_batch_complete_min=1 --rw=write --bs=4k --size=4M"
# job NAME MODE ATTR OFFSET WANT_BYPASSED
job() {
  echo "$2" > "$sw"
  b0=$(stat bypassed)
  if [ "$3" = 0 ]; then
    fio --name="$1" --offset="$4" $seqw > "/tmp/$1.out" 2>&1
  else
    chworkload_attr "$3" -- fio --name="$1" --offset="$4" $seqw > "/tmp/$1.out" 2>&1
  fi
  rc=$?
  d=$(($(stat bypassed) - b0))
  echo "job $1: bypass $2 attr $3 offset $4: exit $rc, $d requests bypassed (want $5)"
  [ "$rc" = 0 ] && [ "$d" = "$5" ] || { cat "/tmp/$1.out"; fail=1; }
}
job lc-bypass 1 1 0 1024
job plain-bypass 1 0 16M 0
job lc-off 0 1 32M 0

# hazard MODE: prints the stale rounds
hazard() {
  echo "$1" > "$sw"
  lba-hazard /dev/nvme0n1 48M 100 1 32 > /tmp/hazard.out 2>&1 || { cat /tmp/hazard.out >&2; fail=1; }
  sed -n 's/.*stale=\([0-9]*\).*/\1/p' /tmp/hazard.out
}
t0=$(stat tandem)
unsafe=$(hazard 2)
t1=$(stat tandem)
safe=$(hazard 1)
t2=$(stat tandem)
off=$(hazard 0)
echo none > $q/scheduler
echo "none: queue depth $(cat $q/nr_requests)"
t3=$(stat tandem)
none=$(hazard 1)
t4=$(stat tandem)
echo "hazard rounds stale: unsafe $unsafe, safe $safe (issued ahead $((t2 - t1))), off $off," \
     "safe without a scheduler $none (issued ahead $((t4 - t3)))"
[ "$((t1 - t0))" = 0 ] || { echo "bypass 2 issued requests ahead"; fail=1; }

echo kyber > $q/scheduler
k0=$(stat sched_kept)
echo 1 > "$sw"
chworkload_attr 1 -- fio --name=kyber --filename=/dev/nvme0n1 --direct=1 --ioengine=psync --rw=read \
  --bs=4k --offset=40M --size=1M > /tmp/kyber.out 2>&1 || fail=1
k1=$(stat sched_kept)
echo 0 > "$sw"
echo mq-deadline > $q/scheduler
cat "$st"
echo "BYPASS unsafe_stale=$unsafe safe_stale=$safe off_stale=$off none_stale=$none" \
     "safe_ahead=$((t2 - t1)) kyber_kept=$((k1 - k0))"
[ "$fail" = 0 ] && [ "${unsafe:-0}" -gt 0 ] && [ "$safe" = 0 ] && [ "$off" = 0 ] && [ "$none" = 0 ] && [ "$((t2 - t1))" -gt 0 ] &&
  [ "$((k1 - k0))" -gt 0 ]
