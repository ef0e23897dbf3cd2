#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# FlashShare's blk-mq bypass with the same-LBA hazard rule (patch 0009),
# sw/guest/scripts/bypass.sh in a guest with one driver tag per queue
# (nvme.io_queue_depth=2), paced. The guest script checks the kernel's counters and
# the hazard rounds; here the device-side trace must show the merges the
# bypass skipped: 1024 sequential 4 KiB writes, submitted 32 at a time,
# reach the device as 1024 one-block commands when latency-critical with
# the bypass on (slba 0-1023), and as fewer, merged commands plain (slba
# 4096-5119) or with the bypass off (slba 8192-9215); 1024 blocks each.
#   bypass.sh VP_QEMU
set -uo pipefail
vpq=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Paced: completions take the model's time, so the writes queued ahead of a
# latency-critical one are still queued when it arrives (as fast as possible,
# the device drains them while the guest's next system call runs).
export FLASHVP_EXTRA_ARGS="--requests $dir/device.csv --pacing paced"
export FLASHVP_EXTRA_APPEND="nvme.io_queue_depth=2"
"$here/run-guest.sh" "$vpq" bypass "BYPASS " || exit 1
# columns: sqid,cid,opcode,slba,nlb,attr,status,...; opcode 1 = Write, nlb counts blocks
awk -F, 'NR > 1 && $3 == 1 {
    r = $4 < 1024 ? "a" : ($4 >= 4096 && $4 < 5120) ? "b" : ($4 >= 8192 && $4 < 9216) ? "c" : ""
    if (r != "") { n[r]++; blocks[r] += $5 }
  } END {
    printf "latency-critical, bypass on: %d commands, %d blocks\n", n["a"], blocks["a"]
    printf "plain, bypass on: %d commands, %d blocks\n", n["b"], blocks["b"]
    printf "latency-critical, bypass off: %d commands, %d blocks\n", n["c"], blocks["c"]
    exit (n["a"] == 1024 && blocks["a"] == 1024 && blocks["b"] == 1024 && blocks["c"] == 1024 &&
          n["b"] < 1024 && n["c"] < 1024) ? 0 : 1
  }' "$dir/device.csv"
