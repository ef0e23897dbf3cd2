#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19's results (not part of the test suite): FlashShare's I/O-stack
# accelerator (XLER) against DedCore, Vanilla, KernelOpt and SelectISR, with
# the pair bench/host-results.sh part e runs: Apache (8 workers, 400
# requests/s Poisson) co-running with PageRank in bursts of 32 (8 tasks),
# host.profile=linux-4.9, zssd preset, 8 cores, 30 s, seeds 1-3.
#   Fig 13: Apache's response time, XLER against DedCore.
#   Fig 15c: the completion part of Apache's reads (CQ entry to thread).
#   Fig 17: NVMe commands per application I/O, Vanilla / KernelOpt / XLER.
# Configurations (OSDI'18 sec. 5.1; CacheOpt's SSD cache is left out of all):
#   Vanilla    linux-4.9 as it is
#   KernelOpt  + blk-mq bypass and dual SQs (latency-critical SQ at high priority)
#   SelectISR  + latency-critical I/O polled
#   XLER       + the accelerator (accel.enabled) taking latency-critical bios
#   DedCore    KernelOpt + a dedicated polling core: a ninth core, so the
#              applications keep the same eight (the paper does not say)
# Usage: bench/xler-results.sh [OUTDIR]   (default /tmp/flashvp-xler)
# Needs build/bin/vp-server and python3. About 1.5 minutes on two cores.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/build/bin/vp-server"
jobs="$root/bench/jobs"
out=${1:-/tmp/flashvp-xler}
runtime=30s

[ -x "$bin" ] || { echo "error: $bin not built (cmake --build build)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "error: python3 is needed to print the tables" >&2; exit 1; }
mkdir -p "$out"

sed "s/^workers=4/workers=8/; s/^runtime=60s/runtime=$runtime/" "$jobs/flashshare-apache.fio" >"$out/apache.fio"
sed "s/^numjobs=4/numjobs=8/; s/^runtime=2s/runtime=$runtime/" "$jobs/flashshare-pagerank-bursts.fio" >"$out/pagerank.fio"
for f in apache pagerank; do  # DedCore's jobs stay off the polling core
  sed 's/^ioengine=libaio/ioengine=libaio\ncpus_allowed=0-7/' "$out/$f.fio" >"$out/$f-dedcore.fio"
done

base=(--preset zssd --set host.profile=linux-4.9)
eight=(--set host.cores=8 --job "$out/apache.fio" --job "$out/pagerank.fio")
kernelopt=(--set host.blkmq.bypass=on --set host.nvme.dual_sq=on)

run() {  # run NAME SEED ARGS...: one vp-server run into $out/NAME-sSEED
  local name=$1 seed=$2
  shift 2
  if ! "$bin" "${base[@]}" --seed "$seed" --overwrite --out "$out/$name-s$seed" "$@" >"$out/$name-s$seed.log" 2>&1; then
    echo "error: run $name seed $seed failed, see $out/$name-s$seed.log" >&2
    exit 1
  fi
}

start=$SECONDS
for seed in 1 2 3; do
  echo "seed $seed" >&2
  run vanilla "$seed" "${eight[@]}"
  run kernelopt "$seed" "${eight[@]}" "${kernelopt[@]}"
  run selectisr "$seed" "${eight[@]}" "${kernelopt[@]}" --set host.nvme.completion=select_isr
  run xler "$seed" "${eight[@]}" "${kernelopt[@]}" --set host.nvme.completion=xler --set accel.enabled=on
  run dedcore "$seed" --set host.cores=9 --set host.core.poll_core=8 --job "$out/apache-dedcore.fio" \
    --job "$out/pagerank-dedcore.fio" "${kernelopt[@]}" --set host.nvme.completion=dedcore
done
echo "all runs: $((SECONDS - start)) s" >&2

python3 - "$out" <<'EOF'
import json, math, statistics, sys

out = sys.argv[1]
seeds = [1, 2, 3]
configs = [("vanilla", "Vanilla"), ("kernelopt", "KernelOpt"), ("selectisr", "SelectISR"), ("xler", "XLER"),
           ("dedcore", "DedCore")]
T975 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776}  # Student's t, two-sided 95%


def summary(name, seed):
    with open(f"{out}/{name}-s{seed}/summary.json") as f:
        return json.load(f)


def apache(s):
    return [j for j in s["jobs"] if j["name"].startswith("apache")]


def mean_ci(v):
    m = statistics.mean(v)
    h = T975[len(v)] * statistics.stdev(v) / math.sqrt(len(v)) if len(v) > 1 else float("nan")
    return m, h


def row(cells):
    print("| " + " | ".join(cells) + " |")


res = {}
for name, _ in configs:
    r = {"mean": [], "p99": [], "requests": [], "reads": [], "commands": [], "ios": [], "irq": [], "wake": [],
         "submit": [], "accel": []}
    for seed in seeds:
        s = summary(name, seed)
        o = apache(s)[0]["online"]
        r["mean"].append(o["response_us"]["mean"])
        r["p99"].append(o["response_us"]["p99"])
        r["requests"].append(o["requests"])
        n = sum(j["latency_us"]["read"]["count"] for j in apache(s))
        r["reads"].append(n)
        stage = lambda st: sum(j["breakdown_us"]["read"][st] * j["latency_us"]["read"]["count"] for j in apache(s)) / n
        r["irq"].append(stage("interrupt"))
        r["wake"].append(stage("wakeup"))
        r["submit"].append(stage("host_submit") + stage("blk_mq") + stage("driver_queue"))
        r["accel"].append(stage("accel"))
        d = s["device"]
        r["commands"].append(d["read_commands"] + d["write_commands"])
        r["ios"].append(sum(j["reads"] + j["writes"] for j in s["jobs"]))
    res[name] = r

print("## Apache's response time (Figs 11-13): mean over seeds 1-3 with a 95% interval; p99 per seed from "
      "every request of the run, then averaged\n")
row(["configuration", "requests per run", "mean us", "vs Vanilla", "vs DedCore", "p99 us", "vs Vanilla", "vs DedCore"])
row(["---"] * 8)
for name, label in configs:
    r = res[name]
    m, mh = mean_ci(r["mean"])
    p, ph = mean_ci(r["p99"])
    rel = lambda k, ref: f"{100 * (statistics.mean(r[k]) / statistics.mean(res[ref][k]) - 1):+.1f}%"
    row([label, f"{min(r['requests'])}-{max(r['requests'])}", f"{m:.1f} ± {mh:.1f}", rel("mean", "vanilla"),
         rel("mean", "dedcore"), f"{p:.1f} ± {ph:.1f}", rel("p99", "vanilla"), rel("p99", "dedcore")])
print("\nPaper (OSDI'18 sec. 5.2): against Vanilla, SelectISR -12% mean / -22% p99, XLER -22% / -31%; "
      "against DedCore (Fig 13), XLER -12% mean / -15% p99.")

print("\n## Apache's reads (Fig 15b/c): mean us per read, seeds pooled\n")
row(["configuration", "reads", "block layer (submit to doorbell)", "accelerator", "interrupt (CQ entry to reaped)",
     "wakeup (reaped to thread)", "completion (interrupt + wakeup)"])
row(["---"] * 7)
for name, label in configs:
    r = res[name]
    w = lambda k: sum(a * b for a, b in zip(r[k], r["reads"])) / sum(r["reads"])
    row([label, str(sum(r["reads"])), f"{w('submit'):.2f}", f"{w('accel'):.2f}", f"{w('irq'):.2f}",
         f"{w('wake'):.2f}", f"{w('irq') + w('wake'):.2f}"])
print("\nPaper (Fig 15c, text): polling's own delay is 6 us; ISR, context switch, polling and the block layer are "
      "96% of the completion time; the NVMe driver, MSI-X and the CQ doorbell less than 0.5 us.")

print("\n## NVMe commands (Fig 17): commands per application I/O, mean over seeds\n")
row(["configuration", "commands per run", "application I/Os per run", "commands per I/O", "vs Vanilla"])
row(["---"] * 5)
per = {n: statistics.mean(c / i for c, i in zip(res[n]["commands"], res[n]["ios"])) for n, _ in configs}
for name, label in configs:
    r = res[name]
    row([label, f"{statistics.mean(r['commands']):.0f}", f"{statistics.mean(r['ios']):.0f}", f"{per[name]:.4f}",
         f"{100 * (per[name] / per['vanilla'] - 1):+.2f}%"])
print("\nPaper (Fig 17): KernelOpt +2% commands against Vanilla, XLER -0.4%.")
acc = [summary("xler", s)["accel"] for s in seeds]
print(f"\nXLER's accelerator, summed over seeds: {sum(a['bios'] for a in acc)} bios, "
      f"{sum(a['commands'] for a in acc)} commands, {sum(a['merges'] for a in acc)} merges, "
      f"{sum(a['cam_hits'] for a in acc)} CAM hits, {sum(a['barrier_waits'] for a in acc)} barrier waits, "
      f"{sum(a['hazard_waits'] for a in acc)} hazard waits, {sum(a['interrupts'] for a in acc)} interrupts.")
EOF
