#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 6's results on the modeled host (not part of the test suite):
#  a) FlashShare (OSDI'18 sec. 5): an Apache-like online server co-running
#     with a PageRank-like offline job on the zssd preset (4 cores), under
#     Vanilla, FlashShare (blk-mq bypass + dual SQ with priority-SQ
#     arbitration) and Select-ISR on top; Apache alone as the reference.
#  c) The same server with an I/O-bound offline co-runner instead (4 x 32 KiB
#     random reads at QD32), which PageRank's Table 3 compute is not.
#  d) PageRank in bursts of 32 I/Os through mq-deadline with 32-entry queues.
#  e) Apache with PageRank in bursts on 8 cores under host.profile=linux-4.9,
#     Vanilla and KernelOpt (the bypass): the block-layer time of Fig 15b.
#  b) Read/write queue isolation (IMCOM'17): 6 random readers + 2 random
#     writers, 4 KiB, libaio QD32, without and with isolation (RQ:WQ 3:1).
# Usage: bench/host-results.sh [OUTDIR]   (default /tmp/flashvp-results)
# Needs build/bin/vp-server (cmake --build build) and python3 for the tables.
# About 1.5 minutes on two cores.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/build/bin/vp-server"
jobs="$root/bench/jobs"
out=${1:-/tmp/flashvp-results}
seed=1

[ -x "$bin" ] || { echo "error: $bin not built (cmake --build build)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "error: python3 is needed to print the tables" >&2; exit 1; }
mkdir -p "$out"

run() {  # run NAME ARGS...: one vp-server run into $out/NAME
  local name=$1
  shift
  local t0=$SECONDS
  if ! "$bin" --seed "$seed" --overwrite --out "$out/$name" "$@" >"$out/$name.log" 2>&1; then
    echo "error: run $name failed, see $out/$name.log" >&2
    exit 1
  fi
  echo "  $name: $((SECONDS - t0)) s" >&2
}

start=$SECONDS
echo "a) FlashShare co-run (zssd preset)" >&2
apache=(--job "$jobs/flashshare-apache.fio")
corun=(--job "$jobs/flashshare-apache.fio" --job "$jobs/flashshare-pagerank.fio")
flashshare=(--set host.blkmq.bypass=on --set host.nvme.dual_sq=on)
run fs-alone "${apache[@]}"
run fs-vanilla "${corun[@]}"
run fs-flashshare "${corun[@]}" "${flashshare[@]}"
run fs-selectisr "${corun[@]}" "${flashshare[@]}" --set host.nvme.completion=select_isr

echo "c) Apache with an I/O-bound co-runner (zssd preset, 2 s)" >&2
sed 's/^runtime=60s/runtime=2s/' "$jobs/flashshare-apache.fio" >"$out/apache-2s.fio"  # as long as the co-runner
bulk=(--job "$out/apache-2s.fio" --job "$jobs/flashshare-bulk.fio")
run bulk-vanilla "${bulk[@]}"
run bulk-flashshare "${bulk[@]}" "${flashshare[@]}"
run bulk-selectisr "${bulk[@]}" "${flashshare[@]}" --set host.nvme.completion=select_isr

echo "d) Apache with PageRank in bursts through mq-deadline (zssd preset, 2 s)" >&2
bursts=(--job "$out/apache-2s.fio" --job "$jobs/flashshare-pagerank-bursts.fio"
        --set host.blkmq.scheduler=deadline --set host.nvme.queue_depth=32)
run burst-vanilla "${bursts[@]}"
run burst-flashshare "${bursts[@]}" "${flashshare[@]}"
run burst-selectisr "${bursts[@]}" "${flashshare[@]}" --set host.nvme.completion=select_isr

echo "e) Apache with PageRank in bursts under host.profile=linux-4.9 (zssd preset, 8 cores, 60 s)" >&2
sed 's/^workers=4/workers=8/' "$jobs/flashshare-apache.fio" >"$out/apache-8.fio"
sed 's/^numjobs=4/numjobs=8/; s/^runtime=2s/runtime=60s/' "$jobs/flashshare-pagerank-bursts.fio" >"$out/pagerank-bursts-8.fio"
linux49=(--job "$out/apache-8.fio" --job "$out/pagerank-bursts-8.fio" --set host.cores=8 --set host.profile=linux-4.9)
run l49-vanilla "${linux49[@]}"
run l49-kernelopt "${linux49[@]}" --set host.blkmq.bypass=on

echo "b) read/write queue isolation (zssd preset)" >&2
run rw-baseline --job "$jobs/rw-isolation.fio" --trace requests
run rw-isolated --job "$jobs/rw-isolation.fio" --trace requests \
  --set host.blkmq.rw_isolation=on --set host.blkmq.read_queue_ratio=0.75
echo "all runs: $((SECONDS - start)) s" >&2

python3 - "$out" <<'EOF'
import csv, json, math, sys

out = sys.argv[1]
stages = ["host_submit", "blk_mq", "driver_queue", "sq_wait", "fetch", "firmware", "data_dma", "flash", "cq_post",
          "interrupt", "wakeup"]


def summary(name):
    with open(f"{out}/{name}/summary.json") as f:
        return json.load(f)


def jobs(s, prefix):
    return [j for j in s["jobs"] if j["name"] == prefix or j["name"].startswith(prefix + ".")]


def pooled_breakdown(js, op):
    # Mean per stage over every I/O of these jobs (each job's mean weighted by its count).
    n = sum(j["latency_us"][op]["count"] for j in js)
    if n == 0:
        return None, 0
    b = {st: sum(j["breakdown_us"][op][st] * j["latency_us"][op]["count"] for j in js) / n for st in stages}
    b["total"] = sum(j["latency_us"][op]["mean"] * j["latency_us"][op]["count"] for j in js) / n
    return b, n


def row(cells):
    print("| " + " | ".join(cells) + " |")


def corun_tables(title, configs, offline):
    print(title + "\n")
    row(["configuration", "requests", "response mean us", "p95 us", "p99 us", "p99.9 us", f"{offline} IOPS",
         f"{offline} MB/s"])
    row(["---"] * 8)
    for name, label in configs:
        s = summary(name)
        o = jobs(s, "apache")[0]["online"]
        r = o["response_us"]
        off = jobs(s, offline)
        iops = f"{sum(j['iops'] for j in off):.0f}" if off else "-"
        mbps = f"{sum(j['bandwidth_MBps'] for j in off):.1f}" if off else "-"
        row([label, str(o["requests"]), f"{r['mean']:.1f}", f"{r['p95']:.1f}", f"{r['p99']:.1f}", f"{r['p999']:.1f}",
             iops, mbps])

    print("\nLayer breakdown: mean us per read in each stage (the summary's breakdown_us, pooled over the jobs' reads)\n")
    row(["configuration", "job", "reads"] + stages + ["I/O latency"])
    row(["---"] * (len(stages) + 4))
    for name, label in configs:
        s = summary(name)
        for prefix in ("apache", offline):
            b, n = pooled_breakdown(jobs(s, prefix), "read")
            if b:
                row([label, prefix, str(n)] + [f"{b[st]:.2f}" for st in stages] + [f"{b['total']:.2f}"])

    print("\nHost cores (mean over the cores, % of the run)\n")
    row(["configuration", "user", "kernel", "irq", "ctxsw", "poll", "idle"])
    row(["---"] * 7)
    for name, label in configs:
        cpu = summary(name)["cpu"]
        row([label] + [f"{sum(c[k + '_pct'] for c in cpu) / len(cpu):.1f}"
                       for k in ("user", "kernel", "irq", "ctxsw", "poll", "idle")])


fs = "FlashShare: bypass + dual SQ + priority SQ"
corun_tables("## a) Apache (ap, 400 req/s Poisson, 4 workers) co-running with PageRank (PR, 4 tasks), zssd preset",
             [("fs-alone", "Apache alone (Vanilla)"), ("fs-vanilla", "Vanilla"), ("fs-flashshare", fs),
              ("fs-selectisr", "+ Select-ISR")], "pagerank")
print()
corun_tables("## c) Apache co-running with an I/O-bound reader (4 x 32 KiB random reads at QD32), 2 s, zssd preset",
             [("bulk-vanilla", "Vanilla"), ("bulk-flashshare", fs), ("bulk-selectisr", "+ Select-ISR")], "bulk")
print()
corun_tables("## d) Apache co-running with PageRank in bursts of 32 (mq-deadline, 32-entry queues), 2 s, zssd preset",
             [("burst-vanilla", "Vanilla"), ("burst-flashshare", fs), ("burst-selectisr", "+ Select-ISR")], "pagerank")

print()
corun_tables("## e) Apache (8 workers) co-running with PageRank in bursts of 32 (8 tasks), host.profile=linux-4.9, "
             "zssd preset, 8 cores, 60 s (block layer: host_submit + blk_mq + driver_queue; FlashShare Fig 15b: "
             "39 us Vanilla, 21 us KernelOpt)",
             [("l49-vanilla", "Vanilla"), ("l49-kernelopt", "KernelOpt (bypass)")], "pagerank")


def read_latencies(name):
    lat = []
    with open(f"{out}/{name}/requests.csv") as f:
        for r in csv.DictReader(f):
            if r["op"] == "read" and r["job"] != "pagecache":
                lat.append(float(r["latency_ps"]) / 1e6)
    lat.sort()
    return lat


def nearest_rank(v, p):
    return v[min(len(v), max(1, math.ceil(p * len(v)))) - 1]


print("\n## b) 6 random readers + 2 random writers, 4 KiB, libaio QD32, zssd preset (4 cores)\n")
row(["configuration", "read IOPS", "write IOPS", "read IOPS per reader (min-max)", "read lat mean us",
     "read lat p99 us", "write lat mean us"])
row(["---"] * 7)
for name, label in [("rw-baseline", "Baseline"), ("rw-isolated", "Isolation RQ:WQ 3:1")]:
    s = summary(name)
    rd, wr = jobs(s, "reader"), jobs(s, "writer")
    lat = read_latencies(name)
    wn = sum(j["latency_us"]["write"]["count"] for j in wr)
    wmean = sum(j["latency_us"]["write"]["mean"] * j["latency_us"]["write"]["count"] for j in wr) / wn
    per = [j["iops"] for j in rd]
    row([label, f"{sum(per):.0f}", f"{sum(j['iops'] for j in wr):.0f}", f"{min(per):.0f}-{max(per):.0f}",
         f"{sum(lat) / len(lat):.2f}", f"{nearest_rank(lat, 0.99):.2f}", f"{wmean:.2f}"])
EOF
