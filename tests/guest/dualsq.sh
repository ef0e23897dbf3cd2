#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# FlashShare's two SQs per core: with nvme.flashvp_dual_sq=1 the patched
# driver enables the controller with vendor-specific (FlashShare)
# arbitration and gives each core a latency-critical SQ (QPRIO high) beside
# its normal one. In sw/guest/scripts/dual-sq.sh job A (chworkload_attr 1,
# LBAs 0-2047) and job B (plain, LBAs 8192-10239) read concurrently; the
# device-side trace must show every read of A fetched from the
# latency-critical SQ (2, one guest CPU) and every read of B from SQ 1.
#   dualsq.sh VP_QEMU
set -uo pipefail
vpq=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export FLASHVP_EXTRA_ARGS="--requests $dir/device.csv"
export FLASHVP_EXTRA_APPEND="nvme.flashvp_dual_sq=1"
export FLASHVP_OUT="$dir/run"
"$here/run-guest.sh" "$vpq" dual-sq "1 latency-critical SQs (ids 2-2)" || exit 1
# columns: sqid,cid,opcode,slba,nlb,attr,status,fetch_ps,complete_ps; opcode 2 = Read
awk -F, 'NR > 1 && $3 == 2 && $4 < 2048 && $6 == 1 { a++; if ($1 != 2) abad++ }
         NR > 1 && $3 == 2 && $4 >= 8192 && $4 < 10240 { b++; if ($1 != 1) bbad++ }
  END {
    printf "job A: %d reads, %d not from SQ 2; job B: %d reads, %d not from SQ 1\n", a, abad, b, bbad
    exit (a >= 500 && b >= 500 && abad == 0 && bbad == 0) ? 0 : 1
  }' "$dir/device.csv" || exit 1
# The driver enabled the controller with the vendor-specific (FlashShare) arbitration.
grep -q '"cc_ams": 7' "$dir/run/summary.json" || { echo "CC.AMS is not 111b"; grep -A1 '"nvme"' "$dir/run/summary.json"; exit 1; }
echo "CC.AMS = 111b (FlashShare arbitration)"
