#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Checks flashvp_irqfwd end to end with a host that kicks on request (the
# self-test's ivshmem_test_server.py). Each round prints
#   FLASHVP-IRQFWD-READY <round> <mask>
# and the host then sets <mask> in the pending words and kicks ivshmem vector
# 0. Once the doorbell interrupt has been counted, the round checks the
# /proc/interrupts counts of nvme0q0 (NVMe vector 0) and nvme0q1 (vector 1)
# grew by exactly the bits of the mask: a forwarded call counts even though
# nvme_irq finds no completion. The device is idle, so nothing else moves
# them (checked first). With IRQFWD_EXPECT_HEADER=0 the shared memory has no
# FVPI header and no NVMe count may move at all.
expect_header=${IRQFWD_EXPECT_HEADER:-1}

count() {
  awk -v name="$1" '
    $NF == name { s = 0; for (i = 2; i <= NF; i++) { if ($i ~ /^[0-9]+$/) s += $i; else break }; print s; found = 1 }
    END { if (!found) print -1 }' /proc/interrupts
}
snapshot() { q0=$(count nvme0q0); q1=$(count nvme0q1); fw=$(count flashvp_irqfwd); }

snapshot
if [ "$q0" -lt 0 ] || [ "$q1" -lt 0 ] || [ "$fw" -lt 0 ]; then
  echo "irqfwd-check: need nvme0q0, nvme0q1 and flashvp_irqfwd in /proc/interrupts:"
  cat /proc/interrupts
  exit 2
fi
dmesg | grep flashvp_irqfwd
a0=$q0; a1=$q1; af=$fw
sleep 1
snapshot
if [ "$q0 $q1 $fw" != "$a0 $a1 $af" ]; then
  echo "irqfwd-check: counts move without kicks ($a0 $a1 $af -> $q0 $q1 $fw)"
  exit 3
fi

fail=0
round=0
# mask, expected growth of nvme0q0 and of nvme0q1
for spec in "0x3 1 1" "0x2 0 1" "0x1 1 0" "0x0 0 0"; do
  set -- $spec
  mask=$1; e0=$2; e1=$3
  [ "$expect_header" = 1 ] || { e0=0; e1=0; }
  round=$((round + 1))
  snapshot
  b0=$q0; b1=$q1; bf=$fw
  echo "FLASHVP-IRQFWD-READY $round $mask"
  i=0
  while [ "$fw" -le "$bf" ] && [ $i -lt 200 ]; do usleep 100000; i=$((i + 1)); snapshot; done
  # The doorbell is counted before its handler runs: let the handler finish.
  usleep 300000
  snapshot
  d0=$((q0 - b0)); d1=$((q1 - b1)); df=$((fw - bf))
  if [ $df -eq 1 ] && [ $d0 -eq $e0 ] && [ $d1 -eq $e1 ]; then r=ok; else r=WRONG; fail=1; fi
  echo "FLASHVP-IRQFWD-SEEN $round mask=$mask doorbell=+$df nvme0q0=+$d0 (want +$e0) nvme0q1=+$d1 (want +$e1) $r"
done
if [ "$expect_header" != 1 ]; then
  dmesg | grep -q "no FVPI v1 header" || { echo "irqfwd-check: no log of the missing header"; fail=1; }
fi
exit $fail
