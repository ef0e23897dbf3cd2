#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The README's figure, docs/img/qd-knee.png: the qd-sweep.yaml grid (27
# runs, a few seconds), then read p99 against the reader's queue depth on
# a log2 axis, each point labelled with its IOPS.
#   sh tools/examples/qd-knee.sh [SWEEP_DIR]     (default sweeps/qd)
set -e
cd "$(dirname "$0")/../.."
out=${1:-sweeps/qd}
flashvp=${FLASHVP:-.venv/bin/flashvp}
"$flashvp" sweep tools/examples/qd-sweep.yaml --out "$out"
"$flashvp" plot "$out" --x workload.reader.iodepth --logx --y latency_us.read.p99 --label iops \
    --xlabel "queue depth (the reader's iodepth)" --ylabel "read latency p99 (us)" \
    --title "zssd, one 4 KiB random reader: read p99 by queue depth, points labelled with IOPS" \
    --out "$out/plots/qd-knee"
cp "$out/plots/qd-knee.png" docs/img/qd-knee.png
echo docs/img/qd-knee.png
