#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Boots the project's guest on the SSD model (vp-qemu, TCG) and runs one of
# sw/guest/scripts/NAME.sh in it. Passes when the script exits 0, vp-qemu
# exits 0 (the guest powered off) and every EXPECTED text is in the console.
#   run-guest.sh VP_QEMU NAME [EXPECTED...]
set -uo pipefail
vpq=$1 name=$2
shift 2
here=$(cd "$(dirname "$0")/../.." && pwd)
kernel=$(bash "$here/sw/guest/build-kernel.sh" | tail -n 1) || { echo "kernel build failed"; exit 1; }
initrd=$(bash "$here/sw/guest/build-image.sh" | tail -n 1) || { echo "image build failed"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$(date +%s.%N)
extra=()
[ -n "${FLASHVP_EXTRA_SET:-}" ] && extra=(--set "$FLASHVP_EXTRA_SET")
# shellcheck disable=SC2206
[ -n "${FLASHVP_EXTRA_ARGS:-}" ] && extra+=($FLASHVP_EXTRA_ARGS)
run_out=${FLASHVP_OUT:-$out/run}
timeout 600 "$vpq" --preset quick "${extra[@]}" --out "$run_out" --kernel "$kernel" --initrd "$initrd" \
  --append "console=ttyS0 panic=-1 flashvp.script=$name ${FLASHVP_EXTRA_APPEND:-}" </dev/null >"$out/console" 2>"$out/vp-qemu"
rc=$?
end=$(date +%s.%N)
fail=0
if [ $rc -ne 0 ]; then echo "vp-qemu exited $rc"; fail=1; fi
if ! grep -q "^FLASHVP-SCRIPT-EXIT 0" "$out/console"; then echo "the guest script did not exit 0"; fail=1; fi
# The run's outputs: the configuration and a summary with the model's counters.
if [ $rc -eq 0 ] && ! { [ -s "$run_out/config.yaml" ] && grep -q '"ssd.nvme.io_commands"' "$run_out/summary.json"; }; then
  echo "vp-qemu --out wrote no config.yaml or summary.json with counters"; fail=1
fi
# With FLASHVP_SUMMARY_DRIVES=N: the summary has N drives, each with its
# controller's and link's sections and I/O commands from the guest.
if [ $rc -eq 0 ] && [ -n "${FLASHVP_SUMMARY_DRIVES:-}" ]; then
  n=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(sum(1 for d in s["drives"] if "nvme" in d and "pcie" in d and s["counters"][d["name"] + ".nvme.io_commands"] > 0))' \
    "$run_out/summary.json")
  if [ "$n" != "$FLASHVP_SUMMARY_DRIVES" ]; then
    echo "summary.json: $n drives with sections and I/O commands, not $FLASHVP_SUMMARY_DRIVES"; fail=1
  fi
fi
# vp-qemu removes what it created.
run_dir=$(sed -n 's/^vp-qemu: run folder \(.*\) (removed at exit)$/\1/p' "$out/vp-qemu")
if [ -z "$run_dir" ]; then echo "vp-qemu did not name its run folder"; fail=1
elif [ -e "$run_dir" ]; then echo "vp-qemu left $run_dir behind"; fail=1; fi
for e in "$@"; do
  if ! grep -qF -- "$e" "$out/console"; then echo "missing from the console: $e"; fail=1; fi
done
printf 'guest run %s: %.1f s wall\n' "$name" "$(echo "$end - $start" | bc)"
tail -n 1 "$out/vp-qemu"
if [ $fail -ne 0 ]; then
  # The script's own output first (CI shows only part of a long log), then the console's end.
  echo "---- console from the script's start"; sed -n '/^FLASHVP-SCRIPT-START/,$p' "$out/console" | head -n 120
  echo "---- console (last 60 lines)"; tail -n 60 "$out/console"
  echo "---- vp-qemu"; cat "$out/vp-qemu"
fi
exit $fail
