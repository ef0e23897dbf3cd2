#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# FlashShare's I/O-stack accelerator with the real guest: vp-qemu serves it
# as a second proxied function (accel.enabled=on), the guest kernel keeps a
# queue pair for it (nvme.flashvp_xler_queues=1) and its driver takes the
# latency-critical bios (sw/guest/scripts/xler.sh: 3072 of them, data
# verified across both paths). Paced at 100 wall us per simulated us, so
# the SSD's fetch of a command takes longer than the guest's next register
# writes and adjacent bios meet in the accelerator's CAM. Here: the
# accelerator's summary counts the same bios, composed commands plus merges
# make them up, some merged, and the device trace shows exactly the
# composed commands fetched from the accelerator's SQ (id 2 with one guest
# CPU), all with attribute 1.
#   xler.sh VP_QEMU
set -uo pipefail
vpq=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export FLASHVP_EXTRA_ARGS="--set accel.enabled=on --pacing paced --pace-scale 100 --requests $dir/device.csv"
export FLASHVP_EXTRA_APPEND="nvme.flashvp_xler_queues=1"
export FLASHVP_OUT="$dir/run"
"$here/run-guest.sh" "$vpq" xler "XLER bios=3072 done=3072 normal_path=0 errors=0 off_added=0" || exit 1
python3 - "$dir/run/summary.json" "$dir/device.csv" <<'PY'
import csv, json, sys
s = json.load(open(sys.argv[1]))
a = s["accelerators"][0]["accel"]
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["sqid"] == "2"]
lc = sum(1 for r in rows if r["attr"] == "1")
print(f"accelerator: {a['bios']} bios, {a['commands']} commands, {a['merges']} merges, {a['cam_hits']} CAM hits, "
      f"{a['barrier_waits']} barrier waits, {a['errors']} errors; device: {len(rows)} commands from SQ 2, {lc} with attribute 1")
ok = (a["bios"] == 3072 and a["commands"] + a["merges"] == a["bios"] and a["merges"] > 0 and a["errors"] == 0 and
      len(rows) == a["commands"] and lc == len(rows))
sys.exit(0 if ok else 1)
PY
