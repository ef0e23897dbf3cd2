#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Guest-visible 4 KiB random-read IOPS and latency at queue depth 1 and 32,
# on the SSD model through vp-qemu (fast and paced) and, side by side in the
# same run, on QEMU's built-in NVMe device; all under TCG with the project's
# guest. Prints one table. Numbers under TCG are emulation-bound: compare
# the rows with each other, not with other machines.
#   bench/guest-bench.sh [build dir]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
vpq=$build/bin/vp-qemu
kernel=$(bash "$repo/sw/guest/build-kernel.sh" | tail -n 1)
initrd=$(bash "$repo/sw/guest/build-image.sh" | tail -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
result() { grep -o "FIO-RESULT.*" "$1" | tail -n 1; }
run_vp() {  # mode qd
  local out=$work/vp-$1-$2
  local args=(--preset zssd --kernel "$kernel" --initrd "$initrd"
              --append "console=ttyS0 panic=-1 flashvp.script=fio-randread flashvp.qd=$2")
  [ "$1" = paced ] && args+=(--pacing paced --pace-scale 1)
  "$vpq" "${args[@]}" </dev/null >"$out" 2>"$out.err"
  printf '%-22s %s   [%s]\n' "vp-qemu $1" "$(result "$out")" "$(grep -o '[0-9.]* s simulated' "$out.err" | head -n 1)"
}
run_builtin() {  # qd
  local out=$work/builtin-$1
  truncate -s 1G "$work/disk.raw"
  qemu-system-x86_64 -accel tcg -machine q35 -m 512M -smp 1 -nographic -nodefaults -serial stdio -no-reboot \
    -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 flashvp.script=fio-randread flashvp.qd=$1" \
    -drive file="$work/disk.raw",if=none,id=d0,format=raw -device nvme,serial=builtin,drive=d0 \
    </dev/null >"$out" 2>&1
  printf '%-22s %s\n' "QEMU -device nvme" "$(result "$out")"
}
for qd in 1 32; do
  run_vp fast $qd
  run_vp paced $qd
  run_builtin $qd
done
