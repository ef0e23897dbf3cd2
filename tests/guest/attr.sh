#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The workload attribute end to end: in the patched guest kernel, job A runs
# under `chworkload_attr 1`, job B plainly (sw/guest/scripts/attr-two-jobs.sh:
# A reads LBAs 0-2047, B LBAs 8192-10239). The device-side trace of vp-qemu
# (--requests) must show attribute 1 on every read of A's range and 0 on
# every read of B's.
#   attr.sh VP_QEMU
set -uo pipefail
vpq=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export FLASHVP_EXTRA_ARGS="--requests $dir/device.csv"
"$here/run-guest.sh" "$vpq" attr-two-jobs || exit 1
# columns: sqid,cid,opcode,slba,nlb,attr,status,fetch_ps,complete_ps; opcode 2 = Read
# The kernel's partition scan reads LBA 0 (attribute 0) at boot, before the
# jobs: only commands fetched from the first of the jobs' commands on count.
start=$(awk -F, 'NR > 1 && $3 == 2 && $4 >= 8192 && $4 < 10240 { print $8; exit }' "$dir/device.csv")
start=$(awk -F, -v b="${start:-0}" 'NR > 1 && $3 == 2 && $4 < 2048 && $6 == 1 && ($8 < m || m == "") { m = $8 }
  END { print (m != "" && m < b) ? m : b }' "$dir/device.csv")
awk -F, -v start="$start" 'NR > 1 && $3 == 2 && $8 >= start {
  if ($4 < 2048) { a++; if ($6 != 1) abad++ }
  else if ($4 >= 8192 && $4 < 10240) { b++; if ($6 != 0) bbad++ }
} END {
  printf "job A: %d reads, %d without attribute 1; job B: %d reads, %d with an attribute\n", a, abad, b, bbad
  exit (a > 0 && b > 0 && abad == 0 && bbad == 0) ? 0 : 1
}' "$dir/device.csv"
