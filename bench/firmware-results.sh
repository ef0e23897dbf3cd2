#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The SSD firmware model's results (DeepFlash FAST'19; not part of the test
# suite), all on the deepflash preset with 16 jobs of 4 KiB I/O at libaio
# QD32, 10,000 I/Os each (bench/jobs/deepflash-*.fio):
#  1) the organisations Layered (one core), ManyLayered (16 channel shards),
#     BaseDeepFlash (per-SQ dispatch, no lock forwarding, no cache bypass)
#     and DeepFlash against read / randread / write / randwrite;
#  2) DeepFlash's IOPS against the firmware core count (randread, randwrite);
#  3) static (per_sq) against dynamic (DIOS) queue allocation against the
#     host's queue count (one NVMe queue per host core), randread, with an
#     ideal host (no CPU costs) so the host is not the limit;
#  4) ILOCK: page lock, 256 KiB ranges without and with forwarding, 1 MiB.
# Every run's wall time goes to $out/NAME.wall; the tables (markdown) come
# from $out/NAME/summary.json and the .wall files.
# Usage: bench/firmware-results.sh [OUTDIR]   (default /tmp/flashvp-firmware-results)
# Needs build/bin/vp-server (cmake --build build) and python3 for the tables.
# 54 runs of 1-4 s each: about 2.5 minutes on two cores.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/build/bin/vp-server"
jobs="$root/bench/jobs"
out=${1:-/tmp/flashvp-firmware-results}

[ -x "$bin" ] || { echo "error: $bin not built (cmake --build build)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "error: python3 is needed to print the tables" >&2; exit 1; }
mkdir -p "$out"

launch() {  # launch NAME ARGS...: one vp-server run into $out/NAME, its wall seconds in $out/NAME.wall
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  if ! "$bin" --seed 1 --overwrite --out "$out/$name" "$@" >"$out/$name.log" 2>&1; then
    echo "error: run $name failed, see $out/$name.log:" >&2
    grep -E 'error|stopped early' "$out/$name.log" | tail -3 >&2 || true
    exit 1
  fi
  t1=$(date +%s.%N)
  python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.3f}")' "$t0" "$t1" >"$out/$name.wall"
  echo "  $name: $(cat "$out/$name.wall") s" >&2
}
df() {  # df NAME PATTERN ARGS...: a run on the deepflash preset with bench/jobs/deepflash-PATTERN.fio
  local name=$1 pattern=$2
  shift 2
  launch "$name" --preset deepflash --job "$jobs/deepflash-$pattern.fio" "$@"
}

start=$(date +%s)
patterns=(read randread write randwrite)

echo "1) organisations x patterns" >&2
for p in "${patterns[@]}"; do
  df "org-layered1-$p" "$p" --set ssd.fw.organisation=layered --set ssd.fw.cores=1
  df "org-manylayered-$p" "$p" --set ssd.fw.organisation=manylayered --set ssd.ftl.shards=16 \
    --set ssd.ftl.shard_partition=channel --set ssd.ftl.shard_hash=modulo
  df "org-basedeepflash-$p" "$p" --set ssd.fw.dispatch=per_sq --set ssd.fw.ilock.forwarding=false \
    --set ssd.fw.cache_bypass=false
  df "org-deepflash-$p" "$p"
done

echo "2) DeepFlash against firmware cores" >&2
cores=(1 2 4 6 8 10 12 14 16 19)
for p in randread randwrite; do
  for n in "${cores[@]}"; do
    df "cores-$p-$n" "$p" --set "ssd.fw.cores=$n"
  done
done

echo "3) static / dynamic queue allocation against host queues (ideal host)" >&2
ideal=()
for kv in host.core.submit_cost=0ns host.core.isr_cost=0ns host.core.complete_cost=0ns \
          host.core.ctx_switch_cost=0ns host.sched.cache_penalty=0ns host.blkmq.insert_cost=0ns \
          host.blkmq.merge_search_cost=0ns; do
  if "$bin" --list-params | awk -v k="${kv%%=*}" '$1 == k {found = 1} END {exit !found}'; then
    ideal+=(--set "$kv")
  else
    echo "  ${kv%%=*}: not a parameter of this build, left out of the ideal host" >&2
  fi
done
queues=(1 2 4 8 16)
for q in "${queues[@]}"; do
  df "queues-static-$q" randread "${ideal[@]}" --set "host.cores=$q" --set ssd.fw.dispatch=per_sq
  df "queues-dynamic-$q" randread "${ideal[@]}" --set "host.cores=$q" --set ssd.fw.dispatch=dios
done

echo "4) ILOCK variants" >&2
for p in randread randwrite; do
  df "lock-page-$p" "$p" --set ssd.fw.ilock.range=4KiB --set ssd.fw.ilock.forwarding=false
  df "lock-base-$p" "$p" --set ssd.fw.ilock.forwarding=false
  df "lock-forwd-$p" "$p"
  df "lock-1mb-$p" "$p" --set ssd.fw.ilock.range=1MiB --set ssd.fw.ilock.forwarding=false
done

echo "all runs: $(($(date +%s) - start)) s" >&2

python3 - "$out" "${cores[*]}" "${queues[*]}" <<'PY'
import json, sys

out = sys.argv[1]
cores = [int(c) for c in sys.argv[2].split()]
queues = [int(q) for q in sys.argv[3].split()]
patterns = ["read", "randread", "write", "randwrite"]

def load(name):
    with open(f"{out}/{name}/summary.json") as f:
        s = json.load(f)
    with open(f"{out}/{name}.wall") as f:
        s["wall"] = float(f.read())
    s["iops"] = sum(j["iops"] for j in s["jobs"])
    s["sim_ps"] = s["sim_time_s"] * 1e12
    if not s.get("completed", True):
        print(f"**warning: run {name} did not complete**\n")
    return s

def c(s, key):
    return s["counters"].get(key, 0)

def busy(s, prefix):  # busy % of simulated time of the threads ssd.fw.thread.<prefix><k>
    vals = []
    k = 0
    while f"ssd.fw.thread.{prefix}{k}.busy_ps" in s["counters"]:
        vals.append(100.0 * c(s, f"ssd.fw.thread.{prefix}{k}.busy_ps") / s["sim_ps"])
        k += 1
    return vals

def fw_cores_busy(s):  # mean busy % of the firmware cores
    vals = []
    k = 0
    while f"ssd.fw.core{k}.busy_ps" in s["counters"]:
        vals.append(100.0 * c(s, f"ssd.fw.core{k}.busy_ps") / s["sim_ps"])
        k += 1
    return sum(vals) / len(vals) if vals else 0.0, max(vals, default=0.0)

def k(iops):
    return f"{iops:,.0f}"

total_wall = 0.0

print("## 1) Firmware organisations, deepflash preset, 16 jobs x 10,000 4 KiB I/Os at QD32\n")
orgs = [("Layered-1core", "layered1"), ("ManyLayered", "manylayered"),
        ("BaseDeepFlash", "basedeepflash"), ("DeepFlash", "deepflash")]
print("IOPS:\n")
print("| organisation | " + " | ".join(patterns) + " |")
print("| --- |" + " ---: |" * len(patterns))
runs = {}
for label, tag in orgs:
    row = []
    for p in patterns:
        s = runs[(tag, p)] = load(f"org-{tag}-{p}")
        total_wall += s["wall"]
        row.append(k(s["iops"]))
    print(f"| {label} | " + " | ".join(row) + " |")
print("\nSimulated ms / wall s / firmware cores' mean and max busy % per run:\n")
print("| organisation | " + " | ".join(patterns) + " |")
print("| --- |" + " --- |" * len(patterns))
for label, tag in orgs:
    row = []
    for p in patterns:
        s = runs[(tag, p)]
        mean, mx = fw_cores_busy(s)
        row.append(f"{s['sim_time_s'] * 1e3:.1f} ms / {s['wall']:.2f} s / {mean:.0f}%, {mx:.0f}%")
    print(f"| {label} | " + " | ".join(row) + " |")

print("\n## 2) DeepFlash against firmware cores (ssd.fw.cores)\n")
print("| cores | randread IOPS | randread sim ms | randread wall s | randwrite IOPS | randwrite sim ms | randwrite wall s |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
series = {p: [load(f"cores-{p}-{n}") for n in cores] for p in ("randread", "randwrite")}
for i, n in enumerate(cores):
    cells = []
    for p in ("randread", "randwrite"):
        s = series[p][i]
        total_wall += s["wall"]
        cells += [k(s["iops"]), f"{s['sim_time_s'] * 1e3:.1f}", f"{s['wall']:.2f}"]
    print(f"| {n} | " + " | ".join(cells) + " |")
print()
for p in ("randread", "randwrite"):
    iops = [s["iops"] for s in series[p]]
    mx = max(iops)
    first_m = next((n for n, v in zip(cores, iops) if v >= 1e6), None)
    sat = next(n for n, v in zip(cores, iops) if v >= 0.97 * mx)
    m = f"first reaches 1,000,000 IOPS at {first_m} cores" if first_m else "never reaches 1,000,000 IOPS"
    print(f"- {p}: {m}; max {k(mx)} IOPS; saturates (first within 3% of the max) at {sat} cores")

print("\n## 3) Static (per_sq) vs dynamic (DIOS) queue allocation against host queues, randread, ideal host\n")
print("NVMQ busy = min / max over ssd.fw.thread.nvmq0..7 of busy % of simulated time.\n")
print("| host queues | static IOPS | static NVMQ busy min / max | dynamic IOPS | dynamic NVMQ busy min / max | dynamic / static | static sim ms, wall s | dynamic sim ms, wall s |")
print("| ---: | ---: | --- | ---: | --- | ---: | --- | --- |")
for q in queues:
    st, dy = load(f"queues-static-{q}"), load(f"queues-dynamic-{q}")
    total_wall += st["wall"] + dy["wall"]
    bs, bd = busy(st, "nvmq"), busy(dy, "nvmq")
    print(f"| {q} | {k(st['iops'])} | {min(bs):.1f}% / {max(bs):.1f}% | {k(dy['iops'])} | {min(bd):.1f}% / {max(bd):.1f}% "
          f"| {dy['iops'] / st['iops']:.2f} | {st['sim_time_s'] * 1e3:.1f}, {st['wall']:.2f} | {dy['sim_time_s'] * 1e3:.1f}, {dy['wall']:.2f} |")

print("\n## 4) ILOCK variants on DeepFlash\n")
print("| lock | pattern | IOPS | ilock.waits | ilock.forwards | ILOCK threads busy % | sim ms | wall s |")
print("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |")
locks = [("page lock (4 KiB, no fwd)", "page"), ("ILOCK-base (256 KiB, no fwd)", "base"),
         ("ILOCK-forwd (256 KiB, fwd)", "forwd"), ("ILOCK-1MB (no fwd)", "1mb")]
for p in ("randread", "randwrite"):
    for label, tag in locks:
        s = load(f"lock-{tag}-{p}")
        total_wall += s["wall"]
        b = ", ".join(f"{v:.1f}" for v in busy(s, "ilock"))
        print(f"| {label} | {p} | {k(s['iops'])} | {c(s, 'ssd.fw.ilock.waits'):,} | {c(s, 'ssd.fw.ilock.forwards'):,} "
              f"| {b} | {s['sim_time_s'] * 1e3:.1f} | {s['wall']:.2f} |")

print(f"\nSum of the runs' wall times: {total_wall:.1f} s")
PY
echo "total: $(($(date +%s) - start)) s" >&2
