# SPDX-License-Identifier: BSD-3-Clause
"""flashvp plot-run: the ready plots of one vp-server run's folder.

- ``latency_cdf``: the latency CDF per job and direction (requests.csv,
  written with ``--trace requests``);
- ``breakdown``: the mean time per stage as stacked bars per job and
  direction (summary.json);
- ``write_buffer``: the FastDrain buffer's level over time with its
  watermarks (write_buffer.csv);
- ``cache_epochs``: read hit ratio and the ways each class may fill per
  epoch (cache_epochs.csv, ``--trace cache`` with uni-dyn or split).

Each plot is drawn when its input is there, as PNG and SVG in OUTDIR/plots/.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from flashvp.plot import save
from flashvp.summary import STAGE_PATH, load_summary

# The path of one I/O, in order (a read's, docs/outputs.md); stages a newer
# summary adds are drawn after these.
STAGES = list(STAGE_PATH["read"])


def _finish(fig: Figure, ax: Axes, xlabel: str, ylabel: str, title: str) -> Figure:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig


def latency_cdf(requests: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (job, op), g in requests.groupby(["job", "op"], sort=False):
        v = (g["latency_ps"].astype(float) / 1e6).sort_values().to_numpy()
        ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post", label=f"{job} {op} (n={len(v):,})")
    ax.set_xscale("log")
    return _finish(fig, ax, "latency (us)", "fraction of I/Os", "latency CDF per job (requests.csv)")


def breakdown(summary: dict[str, Any], order: list[str] | None = None) -> Figure | None:
    bars = []  # (label, {stage: us})
    for j in summary.get("jobs", []):
        for op in ("read", "write"):
            n = j.get("latency_us", {}).get(op, {}).get("count", 0)
            if n:
                bars.append((f"{j['name']}\n{op} (n={n:,})", j.get("breakdown_us", {}).get(op, {})))
    if not bars:
        return None
    order = order or STAGES
    stages = [s for s in order if any(b.get(s) for _, b in bars)]
    stages += sorted({s for _, b in bars for s in b if b.get(s) and s not in stages})
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(bars) + 3), 4.5))
    bottom = [0.0] * len(bars)
    for s in stages:
        h = [b.get(s, 0.0) for _, b in bars]
        ax.bar(range(len(bars)), h, bottom=bottom, label=s)
        bottom = [a + b for a, b in zip(bottom, h, strict=True)]
    ax.set_xticks(range(len(bars)), [lbl for lbl, _ in bars], fontsize="small")
    ax.set_ylabel("mean time per I/O (us)")
    ax.legend(fontsize="x-small", bbox_to_anchor=(1.01, 1), loc="upper left")
    ax.set_title("where the time went, stage by stage (summary.json)", fontsize="medium")
    fig.tight_layout()
    return fig


def write_buffer(level: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    t = level["time_us"] / 1e3
    ax.step(t, level["max_pages"], where="post", label="level (max in step)")
    ax.step(t, level["end_pages"], where="post", label="level (end of step)", alpha=0.6)
    for col, style in (("high_watermark_pages", "--"), ("low_watermark_pages", ":")):
        if col in level and not level[col].empty:
            ax.axhline(level[col].iloc[0], linestyle=style, color="0.3", label=col.replace("_pages", ""))
    return _finish(fig, ax, "time (ms)", "pages in the write buffer", "FastDrain write buffer (write_buffer.csv)")


def cache_epochs(ep: pd.DataFrame) -> Figure:
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for cls, name in (("thr", "throughput"), ("lat", "latency-critical")):
        hits, misses = ep[f"{cls}_read_hits"], ep[f"{cls}_read_misses"]
        a1.plot(ep["epoch"], hits / (hits + misses).where(hits + misses > 0), marker=".", label=name)
        a2.step(ep["epoch"], ep[f"{cls}_ways"], where="post", label=name)
    a1.set_ylabel("read hit ratio")
    a2.set_ylabel("ways it may fill")
    a2.set_xlabel("epoch")
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
        a.legend(fontsize="small")
    a1.set_title("SSD cache per epoch (cache_epochs.csv)", fontsize="medium")
    fig.tight_layout()
    return fig


def plot_run(run_dir: str, out: str | None = None) -> list[Path]:
    run = Path(run_dir)
    summary_path = run / "summary.json"
    if not summary_path.is_file():
        raise FileNotFoundError(f"{run}: no summary.json (not a vp-server output folder)")
    dest = Path(out) if out else run / "plots"
    written: list[Path] = []
    order = None
    if (run / "requests.csv").is_file():
        req = pd.read_csv(run / "requests.csv")
        order = [c[: -len("_end_ps")] for c in req.columns if c.endswith("_end_ps")]
        if not req.empty:
            written += save(latency_cdf(req), dest / "latency_cdf")
    fig = breakdown(load_summary(summary_path), order)
    if fig is not None:
        written += save(fig, dest / "breakdown")
    if (run / "write_buffer.csv").is_file():
        wb = pd.read_csv(run / "write_buffer.csv")
        if not wb.empty:
            written += save(write_buffer(wb), dest / "write_buffer")
    if (run / "cache_epochs.csv").is_file():
        ep = pd.read_csv(run / "cache_epochs.csv")
        if not ep.empty:
            written += save(cache_epochs(ep), dest / "cache_epochs")
    return written
