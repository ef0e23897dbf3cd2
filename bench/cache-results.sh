#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 7's results on the SSD cache layer (not part of the test suite).
# 1)
# FlashShare (OSDI'18) Figure 18's comparison of cache organisations, hit
# rates of the latency-critical (Apache-like random reads) and throughput
# (sequential offline reader) requests, on the zssd preset with a 64 MiB
# cache so the working sets do not fit (and 2 GiB of SSD DRAM: the zssd
# preset's flat map takes 1.5 GiB). Organisations the build does not
# have are skipped.
# 2) FastDrain's policies under a write burst (below).
# Usage: bench/cache-results.sh [OUTDIR]   (default /tmp/flashvp-cache-results)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/build/bin/vp-server"
out=${1:-/tmp/flashvp-cache-results}
[ -x "$bin" ] || { echo "error: $bin not built (cmake --build build)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "error: python3 is needed to print the tables" >&2; exit 1; }
mkdir -p "$out"
have=$("$bin" --list-params | awk '$1 == "ssd.cache.organisation"' || true)

launch() {  # launch NAME ARGS...: one vp-server run into $out/NAME
  local name=$1
  shift
  local t0=$SECONDS
  "$bin" --seed 1 --overwrite --out "$out/$name" "$@" >"$out/$name.log" 2>&1 ||
    { echo "error: run $name failed, see $out/$name.log" >&2; exit 1; }
  echo "  $name: $((SECONDS - t0)) s" >&2
}
run() {  # run NAME ARGS...: the Figure 18 co-run
  local name=$1
  shift
  launch "$name" --job "$root/bench/jobs/cache-corun.fio" --set ssd.cache.size=64MiB --set ssd.dram.size=2GiB "$@"
}

runs=()
for spec in "uni-no:uni:0" "uni-128:uni:128" "uni-dyn:uni-dyn:" "split:split:"; do
  IFS=: read -r name org pf <<<"$spec"
  if ! grep -q "$org" <<<"$have"; then
    echo "  $name: skipped (no organisation $org in this build)" >&2
    continue
  fi
  args=(--set "ssd.cache.organisation=$org")
  [ -n "$pf" ] && args+=(--set "ssd.cache.prefetch_pages=$pf")
  run "$name" "${args[@]}"
  runs+=("$name")
done

# FastDrain (CAL'20): a buffered writer's page victimization bursts against a
# latency-critical reader, quick preset with FastDrain's TLC (Table 1: LSB /
# CSB / MSB programs 0.56 / 2.2 / 5 ms) and a 2 MiB buffer: a write-back
# cache (Vanilla), FD-Buf (the write buffer's watermarks and eviction
# modes), FD-FTL (+ urgent drains to LSB pages) and FD (+ the host's
# dirty-ratio switching on the buffer status).
fd_runs=()
if grep -q fastdrain <<<"$have"; then
  fd=(--preset quick --job "$root/bench/jobs/fastdrain-burst.fio" --set ssd.flash.cell=tlc-fastdrain
      --set ssd.flash.block_size=384KiB --set ssd.cache.size=2MiB --set host.pagecache.size=64MiB)
  fdrun() {  # fdrun NAME ARGS...
    local name=$1
    shift
    launch "$name" "${fd[@]}" "$@"
    fd_runs+=("$name")
  }
  fdrun fd-vanilla --set ssd.cache.organisation=uni
  fdrun fd-buf --set ssd.cache.organisation=fastdrain
  fdrun fd-ftl --set ssd.cache.organisation=fastdrain --set ssd.ftl.page_alloc=lsb_group
  fdrun fd-full --set ssd.cache.organisation=fastdrain --set ssd.ftl.page_alloc=lsb_group \
    --set host.pagecache.fastdrain=on --set ssd.nvme.buffer_status_field=sq_head
fi

python3 - "$out" "${fd_runs[@]}" <<'PY'
import csv, json, sys

out, runs = sys.argv[1], sys.argv[2:]
if runs:
    print("## FastDrain: buffered write bursts (16 MiB, fsync every 2 MiB) against a random reader, quick preset, TLC, 2 MiB buffer\n")
    print("| policy | reader mean us | reader p99 us | writer MB/s | foreground / background evictions | buffer peak pages | time above high watermark | level at 10/30/50/70/90% of the run (pages) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for name in runs:
    s = json.load(open(f"{out}/{name}/summary.json"))
    c = s["counters"]
    jobs = {j["name"]: j for j in s["jobs"]}
    rd, wr = jobs["reader"]["latency_us"]["read"], jobs["writer"]
    fg = c.get("ssd.cache.fastdrain.foreground_evictions", 0)
    bg = c.get("ssd.cache.fastdrain.background_evictions", 0)
    peak = above = "-"
    marks = "-"
    try:
        rows = list(csv.DictReader(open(f"{out}/{name}/write_buffer.csv")))
    except FileNotFoundError:
        rows = []
    if rows:
        t = [float(r["time_us"]) for r in rows]
        lvl = [int(r["end_pages"]) for r in rows]
        high = int(rows[0]["high_watermark_pages"])
        peak = max(int(r["max_pages"]) for r in rows)
        span = s["sim_time_s"] * 1e6
        up = sum((t[i + 1] if i + 1 < len(t) else span) - t[i] for i in range(len(t)) if lvl[i] > high)
        above = f"{100 * up / span:.1f}%"
        def at(f):
            x = f * span
            v = 0
            for ti, li in zip(t, lvl):
                if ti > x:
                    break
                v = li
            return v
        marks = "/".join(str(at(f)) for f in (0.1, 0.3, 0.5, 0.7, 0.9))
    print(f"| {name} | {rd['mean']:.0f} | {rd['p99']:.0f} | {wr['bandwidth_MBps']:.1f} | {fg} / {bg} | {peak} | {above} | {marks} |")
print()
PY

python3 - "$out" "${runs[@]}" <<'PY'
import json, sys

out, runs = sys.argv[1], sys.argv[2:]
print("## Cache hit rates, Apache-like random reads (lat) co-running with a sequential reader (thr), zssd, 64 MiB cache\n")
print("| organisation | lat hit rate | thr hit rate | all | prefetched pages | prefetch hits | lat read mean us | thr MB/s |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for name in runs:
    s = json.load(open(f"{out}/{name}/summary.json"))
    c = s["counters"]
    def rate(cls):
        h, m = c[f"ssd.cache.{cls}.read_hits"], c[f"ssd.cache.{cls}.read_misses"]
        return h, h + m
    lh, ln = rate("lat")
    th, tn = rate("thr")
    jobs = {j["name"]: j for j in s["jobs"]}
    lat = jobs["apache"]["latency_us"]["read"]["mean"]
    mbps = jobs["offline"]["bandwidth_MBps"]
    pct = lambda h, n: f"{100 * h / n:.1f}%" if n else "-"
    print(f"| {name} | {pct(lh, ln)} | {pct(th, tn)} | {pct(lh + th, ln + tn)} | {c['ssd.cache.prefetched_pages']} | "
          f"{c['ssd.cache.prefetch_hits']} | {lat:.1f} | {mbps:.1f} |")
PY
