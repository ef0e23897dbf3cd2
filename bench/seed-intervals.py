#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks that a change moved only the sample path, not the results: for a
change that is allowed to alter the order of work due at one instant (the
calendar's tie rule), runs every preset with seeds 1-5 on both builds and
compares, per preset and job, the mean over the seeds of IOPS, mean latency
and p99 latency.

  bench/seed-intervals.py run BIN_DIR OUT_DIR      runs the set, keeps each summary.json
  bench/seed-intervals.py compare OLD_DIR NEW_DIR  compares two such folders

A figure passes when the new build's mean over the seeds lies inside the old
build's 95% interval of the mean (Student's t, n-1 degrees of freedom), or
differs from the old mean by less than 0.5%. `compare` prints every figure,
marks those that fail, and exits 1 if any does.

The set: the seven presets of bench/same-results.py on vp-server, zssd and
deepflash on vp-drive, and quick, deepflash and rwiso/base with a power loss
at 3 ms (vp-server).
"""
import argparse
import json
import math
import os
import subprocess
import sys

SEEDS = [1, 2, 3, 4, 5]
RUNS = ([("vp-server", p, []) for p in
         ["zssd", "quick", "deepflash", "rwiso/base", "fastdrain/fd", "flashshare/vanilla", "flashshare/xler"]]
        + [("vp-drive", p, []) for p in ["zssd", "deepflash"]]
        + [("vp-server", p, ["--set", "ssd.power_loss_at=3ms"]) for p in ["quick", "deepflash", "rwiso/base"]])
# Student's t at 0.975 for n-1 = 1..9 degrees of freedom.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}
TOLERANCE = 0.005


def tag(binary, preset, extra):
    t = f"{binary}-{preset.replace('/', '-')}"
    return t + ("-powerloss" if extra else "")


def run(bin_dir, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for binary, preset, extra in RUNS:
        for seed in SEEDS:
            out = os.path.join(out_dir, f"{tag(binary, preset, extra)}-s{seed}")
            cmd = [os.path.join(bin_dir, binary), "--preset", preset, "--seed", str(seed), "--out", out,
                   "--overwrite"] + extra
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                sys.exit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
            # Only the summary is kept: the other outputs are large and unused here.
            for f in os.listdir(out):
                if f != "summary.json":
                    path = os.path.join(out, f)
                    if os.path.isfile(path):
                        os.remove(path)
        print(f"{tag(binary, preset, extra)}: {len(SEEDS)} seeds", flush=True)


def figures(summary):
    """(job, figure) -> value for every job and direction that did I/O."""
    out = {}
    for job in summary["jobs"]:
        name = job["name"]
        out[(name, "iops")] = job["iops"]
        for d, lat in job.get("latency_us", {}).items():
            if lat.get("count", 0) > 0:
                out[(name, f"{d}.mean_us")] = lat["mean"]
                out[(name, f"{d}.p99_us")] = lat["p99"]
    return out


def load(folder, t):
    per_seed = []
    for seed in SEEDS:
        with open(os.path.join(folder, f"{t}-s{seed}", "summary.json")) as f:
            per_seed.append(figures(json.load(f)))
    keys = sorted(set().union(*per_seed))
    return {k: [s[k] for s in per_seed if k in s] for k in keys}


def interval(values):
    n = len(values)
    m = sum(values) / n
    if n < 2:
        return m, m, m
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    h = T975[n - 1] * sd / math.sqrt(n)
    return m, m - h, m + h


def compare(old_dir, new_dir):
    failed = []
    count = 0
    for binary, preset, extra in RUNS:
        t = tag(binary, preset, extra)
        old, new = load(old_dir, t), load(new_dir, t)
        print(f"{t}:")
        for k in sorted(set(old) | set(new)):
            if k not in old or k not in new:
                failed.append(f"{t} {k[0]} {k[1]}: only in {'new' if k in new else 'old'}")
                print(f"  {k[0]} {k[1]}: only in one build  FAIL")
                continue
            m, lo, hi = interval(old[k])
            nm = sum(new[k]) / len(new[k])
            rel = (nm - m) / m if m else 0.0
            ok = lo <= nm <= hi or abs(rel) < TOLERANCE
            count += 1
            mark = "" if ok else "  FAIL"
            print(f"  {k[0]:<28} {k[1]:<14} old {m:14.4f} [{lo:.4f}, {hi:.4f}]  new {nm:14.4f}  {rel:+.3%}{mark}")
            if not ok:
                failed.append(f"{t} {k[0]} {k[1]}: old {m:.4f} [{lo:.4f}, {hi:.4f}], new {nm:.4f} ({rel:+.3%})")
    print(f"\n{count} figures, {len(failed)} outside the old build's 95% interval and 0.5%")
    for line in failed:
        print("  " + line)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the set with one build's binaries")
    r.add_argument("bin_dir")
    r.add_argument("out_dir")
    c = sub.add_parser("compare", help="compare two folders written by run")
    c.add_argument("old_dir")
    c.add_argument("new_dir")
    args = ap.parse_args()
    if args.cmd == "run":
        run(args.bin_dir, args.out_dir)
        return 0
    return compare(args.old_dir, args.new_dir)


if __name__ == "__main__":
    sys.exit(main())
