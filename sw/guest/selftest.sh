#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the guest image without FlashVP: boots the cached kernel and
# initramfs in plain QEMU (TCG) with QEMU's own NVMe device on a small raw
# file and an ivshmem-doorbell device served by ivshmem_test_server.py.
#   1. nvme-info, fs-roundtrip and fio-verify against QEMU's NVMe must end
#      with FLASHVP-SCRIPT-EXIT 0;
#   2. irqfwd-check: on each FLASHVP-IRQFWD-READY line the host kicks the
#      mask the guest asks for and the guest checks that exactly those NVMe
#      vectors' interrupt counts grew;
#   3. irqfwd-noheader: the same without the FVPI header forwards nothing.
# Usage: selftest.sh [SCRIPT...] (default: all of the above). Logs go to
# $FLASHVP_CACHE/selftest/<script>.log. Exits non-zero if any boot fails.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

ensure_pkgs qemu-system-x86 python3
kernel=$("$HERE/build-kernel.sh")
image=$("$HERE/build-image.sh")
say "kernel $kernel"
say "image  $image"

LOGS=$FLASHVP_CACHE/selftest
mkdir -p "$LOGS"
work=$(mktemp -d)
server_pid=""; qemu_pid=""
cleanup() {
  [ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
truncate -s 256M "$work/disk.raw"

# boot SCRIPT [server options]: one QEMU run; 0 if the guest script exited 0.
boot() {
  local script=$1; shift
  local log=$LOGS/$script.log sock=$work/ivshmem.sock ctl=$work/control
  rm -f "$ctl"; mkfifo "$ctl"
  python3 "$HERE/ivshmem_test_server.py" --socket "$sock" --control "$ctl" "$@" 2> "$log.server" &
  server_pid=$!
  local i=0
  while [ ! -S "$sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  [ -S "$sock" ] || { say "test server did not start"; return 1; }

  local t0=$(date +%s.%N)
  timeout 300 qemu-system-x86_64 -machine q35,accel=tcg -cpu max -smp 2 -m 512M \
    -nodefaults -display none -serial stdio -monitor none -no-reboot \
    -kernel "$kernel" -initrd "$image" \
    -append "console=ttyS0 panic=-1 flashvp.script=$script" \
    -drive file="$work/disk.raw",if=none,id=disk0,format=raw \
    -device nvme,serial=flashvp-selftest,drive=disk0 \
    -chardev socket,path="$sock",id=ivshmem0 \
    -device ivshmem-doorbell,chardev=ivshmem0,vectors=1 \
    < /dev/null > "$log" 2>&1 &
  qemu_pid=$!
  # Answer each FLASHVP-IRQFWD-READY <round> <mask> with a kick of <mask>.
  local handled=0 line
  while kill -0 "$qemu_pid" 2>/dev/null; do
    while read -r line; do
      set -- $line
      say "$script: guest ready for round $2, kicking $3"
      echo "kick $3" > "$ctl"
      handled=$((handled + 1))
    done < <(grep -a -o 'FLASHVP-IRQFWD-READY [0-9]* 0x[0-9a-f]*' "$log" | tail -n +$((handled + 1)))
    sleep 0.2
  done
  local qstatus=0
  wait "$qemu_pid" || qstatus=$?
  qemu_pid=""
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
  local secs=$(echo "$(date +%s.%N) - $t0" | bc)
  grep -a 'FLASHVP-IRQFWD-SEEN' "$log" | sed "s/^/[selftest] $script: /" >&2 || true
  if grep -aq '^FLASHVP-SCRIPT-EXIT 0' "$log"; then
    say "PASS $script (${secs%.*} s wall)"
    return 0
  fi
  say "FAIL $script (qemu status $qstatus, ${secs%.*} s wall): $(grep -a 'FLASHVP-SCRIPT-EXIT' "$log" || echo no exit line); log $log"
  tail -20 "$log" >&2
  return 1
}

scripts=("$@")
[ ${#scripts[@]} -gt 0 ] || scripts=(nvme-info fs-roundtrip fio-verify irqfwd-check irqfwd-noheader)
failed=0
for s in "${scripts[@]}"; do
  case "$s" in
    irqfwd-noheader) boot "$s" --no-header || failed=$((failed + 1)) ;;
    *) boot "$s" || failed=$((failed + 1)) ;;
  esac
done
[ $failed -eq 0 ] && say "all ${#scripts[@]} boots passed" || say "$failed of ${#scripts[@]} boots failed"
exit $failed
