#!/usr/bin/env bash
# Issue 7's results on the SSD cache layer (not part of the test suite):
# FlashShare (OSDI'18) Figure 18's comparison of cache organisations, hit
# rates of the latency-critical (Apache-like random reads) and throughput
# (sequential offline reader) requests, on the zssd preset with a 64 MiB
# cache so the working sets do not fit (and 2 GiB of SSD DRAM: the zssd
# preset's flat map takes 1.5 GiB). Organisations the build does not
# have are skipped.
# Usage: bench/cache-results.sh [OUTDIR]   (default /tmp/flashvp-cache-results)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/build/bin/vp-server"
out=${1:-/tmp/flashvp-cache-results}
[ -x "$bin" ] || { echo "error: $bin not built (cmake --build build)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "error: python3 is needed to print the tables" >&2; exit 1; }
mkdir -p "$out"
have=$("$bin" --list-params | awk '$1 == "ssd.cache.organisation"' || true)

run() {  # run NAME ARGS...
  local name=$1
  shift
  local t0=$SECONDS
  if ! "$bin" --seed 1 --out "$out/$name" --job "$root/bench/jobs/cache-corun.fio" \
      --set ssd.cache.size=64MiB --set ssd.dram.size=2GiB "$@" >"$out/$name.log" 2>&1; then
    echo "error: run $name failed, see $out/$name.log" >&2
    exit 1
  fi
  echo "  $name: $((SECONDS - t0)) s" >&2
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
