#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Draws a window of a run's timeline.json (vp-server --trace perfetto) with
matplotlib, laid out as ui.perfetto.dev lays out the same file: one row per
track, grouped by process (host cores, each SQ's request lanes, the NVMe
queue counters, firmware cores, PCIe, flash channels, dies). Requests are
drawn as their stage slices, coloured by stage; busy slices in grey;
counters as steps. This is a stand-in for a Perfetto screenshot, not one:
docs/img/perfetto.png is made with it because the machine that made the
docs could not reach ui.perfetto.dev.

  .venv/bin/python tools/examples/timeline.py RUN/timeline.json --out docs/img/perfetto.png
      [--start-us T] [--span-us 40] [--lanes 12] [--dies 8]
"""
import argparse
import json
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

STAGES = ["host_submit", "cache_wait", "blk_mq", "driver_queue", "accel", "sq_wait", "fetch", "firmware", "data_dma",
          "flash", "cq_post", "interrupt", "wakeup"]
# cache_wait's colour last, so the others keep those of docs/img/perfetto.png.
_COLOUR_ORDER = [s for s in STAGES if s != "cache_wait"] + ["cache_wait"]
COLOURS = dict(zip(_COLOUR_ORDER, plt.get_cmap("tab20").colors[: len(STAGES)], strict=True))


def us(x: float | str) -> float:
    return float(x)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("timeline")
    ap.add_argument("--out", required=True)
    ap.add_argument("--start-us", type=float, help="window start (default: 20 us after the first request)")
    ap.add_argument("--span-us", type=float, default=40.0)
    ap.add_argument("--lanes", type=int, default=12, help="request lanes shown per SQ")
    ap.add_argument("--dies", type=int, default=8, help="die tracks shown")
    a = ap.parse_args()
    with open(a.timeline) as f:
        events = json.load(f)["traceEvents"]

    pname, tname, tpid = {}, {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            pname[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            tname[e["tid"]] = e["args"]["name"]
            tpid[e["tid"]] = e["pid"]
    requests = [e for e in events if e.get("cat") == "request"]
    t0 = a.start_us if a.start_us is not None else min(us(e["ts"]) for e in requests) + 20.0
    t1 = t0 + a.span_us

    def inside(e: dict) -> bool:
        return us(e["ts"]) < t1 and us(e["ts"]) + us(e.get("dur", 0)) > t0

    slices: dict[int, list[dict]] = defaultdict(list)
    counters: dict[tuple[int, str], list[tuple[float, float]]] = defaultdict(list)
    for e in events:
        if e["ph"] == "X" and inside(e):
            slices[e["tid"]].append(e)
        elif e["ph"] == "C":
            counters[(e["pid"], e["name"])].append((us(e["ts"]), float(e["args"]["value"])))

    # Rows in Perfetto's grouping: (process, label, kind, key).
    rows: list[tuple[str, str, str, object]] = []
    by_process: dict[int, list[int]] = defaultdict(list)
    for tid in sorted(tname):
        by_process[tpid[tid]].append(tid)

    def add_threads(pid: int, limit: int | None = None) -> None:
        tids = by_process[pid][:limit] if limit else by_process[pid]
        for tid in tids:
            rows.append((pname[pid], tname[tid], "slices", tid))

    # As Perfetto lists them: host cores, requests, the NVMe queues, the rest.
    order = sorted(pname, key=lambda p: (pname[p] != "host cores", not pname[p].startswith("I/O requests"),
                                         not pname[p].endswith(" nvme queues"), p))
    dies = 0
    for pid in order:
        name = pname[pid]
        if name.startswith("I/O requests"):
            add_threads(pid, a.lanes)
        elif name.endswith(" dies"):
            if dies < a.dies:
                add_threads(pid, a.dies - dies)
                dies += len(by_process[pid][: a.dies - dies])
        elif name in ("host cores", "pcie") or name.endswith((" fw cores", " flash channels")):
            add_threads(pid)
        elif name.endswith(" nvme queues"):  # per drive: "ssd nvme queues"
            for (cp, cn), pts in sorted(counters.items()):
                if cp == pid and cn.endswith(".occupancy") and max(v for _, v in pts) > 0:
                    rows.append((name, cn, "counter", (cp, cn)))

    fig, ax = plt.subplots(figsize=(14, 0.28 * len(rows) + 1.6))
    labels = []
    drawn: set[str] = set()  # the stages with a slice in the window, for the legend
    for i, (group, label, kind, key) in enumerate(rows):
        y = len(rows) - 1 - i
        labels.append(f"{group}: {label}")
        if kind == "slices":
            for e in slices.get(key, []):
                s, d = us(e["ts"]), us(e["dur"])
                cat = e.get("cat")
                if cat == "request":
                    continue  # drawn as its stages
                if cat == "completion":
                    ax.plot([s], [y], marker="v", color="black", markersize=3)
                    continue
                colour = COLOURS[e["name"]] if cat == "stage" else "0.45"
                if cat == "stage":
                    drawn.add(e["name"])
                ax.broken_barh([(s, d)], (y - 0.4, 0.8), facecolors=colour, edgecolor="white", linewidth=0.2)
        else:
            pts = sorted(counters[key])
            before = [v for t, v in pts if t <= t0]
            xs = [t0] + [t for t, _ in pts if t0 < t < t1] + [t1]
            vs = [before[-1] if before else 0.0] + [v for t, v in pts if t0 < t < t1]
            top = max(vs + [1.0])
            ax.step(xs, [y - 0.4 + 0.8 * v / top for v in vs + vs[-1:]], where="post", color="tab:blue", linewidth=0.8)
            labels[-1] += f" (0-{top:g})"
    ax.set_yticks(range(len(rows) - 1, -1, -1))
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlim(t0, t1)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel("simulated time (us)")
    ax.grid(axis="x", color="0.9")
    ax.set_title(f"{a.timeline}: {a.span_us:g} us from {t0:.3f} us (drawn with matplotlib, not Perfetto)", fontsize=9)
    handles = [Patch(color=COLOURS[s], label=s) for s in STAGES if s in drawn]
    handles.append(Patch(color="0.45", label="busy"))
    ax.legend(handles=handles, fontsize=7, ncol=len(handles), loc="upper center",
              bbox_to_anchor=(0.5, -0.06 - 1.2 / len(rows)))
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(a.out)


if __name__ == "__main__":
    main()
