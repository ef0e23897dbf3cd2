#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# QEMU killed mid-run: vp-qemu must notice within seconds, exit non-zero
# (4: QEMU was killed) and leave no process behind.
#   kill-qemu.sh VP_QEMU
set -uo pipefail
vpq=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
kernel=$(bash "$here/sw/guest/build-kernel.sh" | tail -n 1) || exit 1
initrd=$(bash "$here/sw/guest/build-image.sh" | tail -n 1) || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$vpq" --preset quick --kernel "$kernel" --initrd "$initrd" \
  --append "console=ttyS0 panic=-1 flashvp.script=fio-verify" </dev/null >"$out/console" 2>"$out/err" &
vp=$!
# Wait until the guest is running fio, then kill its QEMU.
for _ in $(seq 1 600); do
  grep -q "write-verify" "$out/console" 2>/dev/null && break
  sleep 0.1
done
qemu=$(pgrep -P $vp qemu-system)
[ -n "$qemu" ] || { echo "no QEMU child found"; cat "$out/err"; exit 1; }
kill -KILL "$qemu"
t0=$(date +%s.%N)
rc=0
for _ in $(seq 1 100); do
  kill -0 $vp 2>/dev/null || break
  sleep 0.1
done
if kill -0 $vp 2>/dev/null; then echo "vp-qemu still runs 10 s after QEMU was killed"; kill -KILL $vp; exit 1; fi
wait $vp
rc=$?
printf 'vp-qemu ended %.2f s after QEMU was killed, status %d\n' "$(echo "$(date +%s.%N) - $t0" | bc)" $rc
tail -n 1 "$out/err"
[ $rc -eq 4 ] || { echo "expected exit status 4 (QEMU killed)"; exit 1; }
if pgrep -f "vp-qemu-$vp/irq.sock" >/dev/null; then echo "a QEMU is left behind"; exit 1; fi
exit 0
