#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks that two builds give the same results: runs each preset with both
builds' vp-server (and vp-drive) and compares summary.json key by key.

Usage: bench/same-results.py OLD_BIN_DIR NEW_BIN_DIR [--preset NAME]... [--scratch DIR]

Keys that describe the simulator rather than the model are left out
(wall times, the build's revision, kernel event counts, delta cycles,
the simulator's memory), and so is the layout's schema_version: both
sides are first brought to the current layout, version 3 (flashvp's
upgrade_to_current, tools/flashvp/summary.py: a version 1 summary
regrouped by part, a version 2 one's breakdowns trimmed to the directions
a job did, with cache_wait 0 for a direct job), so a build of any layout
compares with one of another. A buffered job's breakdown still differs
between a version 2 build and a later one: version 2 counted its wait in
the page cache in host_submit.
A preset that a platform refuses (vp-drive has no host cores for an
online job, nor host-side completion modes) is reported as refused when
both builds refuse it with the same message, and the next one runs.
Exits 1 and lists the differing keys when any run differs.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

# flashvp.summary imports the standard library only: no venv needed. No
# bytecode is written into the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tools"))
from flashvp.summary import upgrade_to_current  # noqa: E402

# The default set: issue 22's check (zssd, deepflash) and a preset of every
# study, so that each platform feature is on in some run.
PRESETS = ["zssd", "quick", "deepflash", "rwiso/base", "fastdrain/fd", "flashshare/vanilla", "flashshare/xler"]
# Figures of the simulator, not of the simulated system (and any *_wall_s):
# its memory (ftl.sim_memory_bytes) is what a change of data structure moves,
# and the SystemC kernel's delta cycles what a change of how the calendar
# enters the kernel moves.
# The layout's version is left out too: both sides are compared as version 3.
IGNORED = {"wall_time_s", "git_revision", "kernel_events", "kernel_events_per_io", "sim_memory_bytes", "delta_cycles",
           "schema_version"}


def flatten(x, prefix=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from flatten(v, f"{prefix}[{i}]")
    else:
        yield prefix, x


# The platforms' exit status for a configuration they refuse (vp-drive
# refuses online jobs and host-side completion modes).
REFUSED = 2


def run(bin_dir, binary, preset, out, extra):
    """The run's flattened summary, or the platform's one-line refusal."""
    cmd = [os.path.join(bin_dir, binary), "--preset", preset, "--seed", "7", "--out", out, "--overwrite"] + extra
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode == REFUSED and "configuration error" in p.stderr:
        return p.stderr.strip().splitlines()[-1]
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    return dict(flatten(upgrade_to_current(s)))


def differences(a, b):
    out = []
    for k in sorted(set(a) | set(b)):
        last = k.split(".")[-1]
        if last in IGNORED or last.endswith("_wall_s"):
            continue
        va, vb = a.get(k, "<absent>"), b.get(k, "<absent>")
        same = va == vb or (isinstance(va, float) and isinstance(vb, float) and math.isnan(va) and math.isnan(vb))
        if not same:
            out.append(f"{k}: {va} -> {vb}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--preset", action="append", help="preset to compare (repeatable; default: a set of seven)")
    ap.add_argument("--drive", action="store_true", help="also compare vp-drive on each preset")
    ap.add_argument("--set", action="append", default=[], help="passed to both runs as --set")
    ap.add_argument("--scratch", help="folder for the runs' outputs (default: a temporary one, removed)")
    args = ap.parse_args()
    extra = [a for s in args.set for a in ("--set", s)]
    binaries = ["vp-server"] + (["vp-drive"] if args.drive else [])
    failed = 0
    with tempfile.TemporaryDirectory(dir=args.scratch) as tmp:
        for preset in args.preset or PRESETS:
            for binary in binaries:
                tag = f"{binary} {preset}"
                base = os.path.join(tmp, binary + "-" + preset.replace("/", "-"))
                a = run(args.old, binary, preset, base + "-old", extra)
                b = run(args.new, binary, preset, base + "-new", extra)
                if isinstance(a, str) or isinstance(b, str):
                    # A set-up the platform refuses (vp-drive and an online
                    # job): the same refusal from both builds is no difference.
                    if a == b:
                        print(f"{tag}: refused by both builds ({a})")
                        continue
                    print(f"{tag}: differ in refusing it\n    old: {a}\n    new: {b}"[:600])
                    failed += 1
                    continue
                d = differences(a, b)
                print(f"{tag}: {len(a)} keys, " + ("identical" if not d else f"{len(d)} differ"))
                for line in d[:20]:
                    print("   ", line)
                failed += bool(d)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
