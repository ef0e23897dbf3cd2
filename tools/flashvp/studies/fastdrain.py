# SPDX-License-Identifier: BSD-3-Clause
"""FastDrain (CAL'20): the page cache's write-back bursts against online
servers' p99, with FastDrain's buffer, FTL and host parts added one by one
(docs/study-fastdrain.md)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from flashvp.studies.base import Effect, Grids, Results, Run, Study, mean_interval, papers
from flashvp.studies.common import _finish, _online, _ratio, statistics_mean
from flashvp.summary import Summary

# Oracle (Fig 2b): Vanilla with a buffer that holds everything the run writes.
FD_CONFIGS = ["vanilla", "fd-buf", "fd-ftl", "fd", "oracle"]
# Fig 3a's LSB-only: FD-Buf with foreground evictions on LSB pages by the
# prior work's write point (Fig 3b's skipped pages); its LSB/CSB/MSB
# reference is FD-Buf.
FD_LSB_ONLY = "lsb-only"
# The six latency-critical apps of sec. 4.1 as online servers: Table 3's rows
# where FlashShare has them (Apache = ap, Apache-U = au, ImgServer = is), the
# upload / update variants as writes, DB select / update as 4 KiB random
# reads / writes (the paper gives no figures for them: our choice).
FD_APPS = {
    "apache-f": {"workload.online.app": "ap"},
    "apache-u": {"workload.online.app": "au"},
    "db-s": {"workload.online.app": "ap", "workload.online.bs": "4k"},
    "db-u": {"workload.online.app": "au", "workload.online.bs": "4k", "workload.online.rw": "randwrite"},
    "imgserver-f": {"workload.online.app": "is"},
    "imgserver-u": {"workload.online.app": "is", "workload.online.rw": "randwrite"},
}


# Figs 1b and 6a: Apache-U's responses over time, one traced run per system.
FD_TRACED = "(traced)"


def _fd_figures(s: Summary) -> dict[str, Any]:
    f = _online(s)
    f["latency_p99"], f["latency_mean"], f["latency_max"] = (f.get("response_p99"), f.get("response_mean"),
                                                             f.get("response_max"))
    ftl = s.ftl
    f["pages_written"], f["pages_skipped"] = ftl.host_page_writes, ftl.wasted_pages
    return f


def _fd_grids(quick: bool) -> Grids:
    apps = ["apache-u"] if quick else list(FD_APPS)
    base: dict[str, Any] = {"set": {}}
    if quick:  # an eighth of the paper's scale: time, buffer and page cache, so the buffer fills as often
        base["set"] = {"workload.online.runtime": "3750ms", "workload.ungzip.runtime": "3750ms",
                       "ssd.cache.size": "64MiB", "host.pagecache.size": "320MiB",
                       "host.pagecache.dirtyable": str(908002 // 8 * 4096)}

    def sets(c: str, a: str) -> dict[str, Any]:
        # The Oracle's buffer keeps its size at every scale: it must hold all the run writes.
        return {**FD_APPS[a], **({"ssd.cache.size": "8GiB"} if quick and c == "oracle" else {})}

    grids = {"configs": (base, [Run(c, f"fastdrain/{c}", a, sets(c, a)) for a in apps
                                for c in FD_CONFIGS + [FD_LSB_ONLY]])}
    # Seed 1 of Apache-U again with responses.csv and requests.csv, as
    # configurations of their own so that the effects do not count them twice.
    traced = [Run(f"{c} {FD_TRACED}", f"fastdrain/{c}", "apache-u", sets(c, "apache-u")) for c in FD_CONFIGS]
    grids["dynamics"] = ({**base, "trace": ["requests"]}, traced)
    return grids


def _fd_effects() -> list[Effect]:
    return [Effect(f"{c.replace('-', '_')}_p99", "latency_p99", c, "vanilla") for c in FD_CONFIGS[1:]] + [
        Effect("fd_vs_fd_ftl_p99", "latency_p99", "fd", "fd-ftl"),
        Effect("lsb_only_p99", "latency_p99", FD_LSB_ONLY, "fd-buf"),
        Effect("fd_ftl_vs_fd_buf_worst_response", "latency_max", "fd-ftl", "fd-buf")]


def _fd_extra(res: Results, out: Path, ctx: dict[str, Any]) -> list[str]:
    import matplotlib.pyplot as plt

    apps = res.variants("vanilla")
    paper = {e["id"]: e["change"] for e in papers()["fastdrain"]["effects"]}
    fig, ax = plt.subplots(figsize=(7, 3.8))
    width = 0.8 / len(FD_CONFIGS)
    for i, c in enumerate(FD_CONFIGS):
        ms = [mean_interval(_ratio(res, c, a, "latency_p99")) for a in apps]
        ax.bar([k + i * width for k in range(len(apps))], [m for m, _ in ms], width,
               yerr=[0 if math.isnan(h) else h for _, h in ms], capsize=2, label=c, color=f"C{i}")
        if c != "vanilla":
            ax.axhline(1 + paper[f"{c.replace('-', '_')}_p99"], color=f"C{i}", linestyle="--", linewidth=0.8)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(apps))], apps, fontsize=8)
    ax.set_ylabel("p99 response time / Vanilla")
    _finish(fig, ax, out / "fig5",
            "Fig 5: p99 response time normalised to Vanilla (ours: bars; paper's averages: dashed)", 8)
    # The buffer level over time, FD's first run of the first app.
    folder = res.summaries.get(("fd", apps[0], 1))
    lines = []
    if folder:
        wb = Summary.load(folder / "summary.json").write_buffer
        if wb.series and wb.capacity_pages:
            fig, ax = plt.subplots(figsize=(7, 3))
            ax.plot([p.time_us / 1e6 for p in wb.series], [100 * p.max_pages / wb.capacity_pages for p in wb.series],
                    linewidth=0.6)
            ax.axhline(80, color="red", linestyle="--", linewidth=0.8, label="high watermark")
            ax.axhline(20, color="green", linestyle="--", linewidth=0.8, label="low watermark")
            ax.set_xlabel("time, s")
            ax.set_ylabel("buffer level, % (max per step)")
            _finish(fig, ax, out / "buffer-level", f"FD's buffer level ({apps[0]} + Ungzip, seed 1)", 9)
    lines += _fd_dynamics(res, out)
    rows = ["| app | " + " | ".join(f"{c} p99 us" for c in FD_CONFIGS) + " | responses per run |",
            "| --- |" + " --- |" * (len(FD_CONFIGS) + 1)]
    for a in apps:
        n = min(res.values("vanilla", a, "responses").values())
        rows.append(f"| {a} | " + " | ".join(f"{statistics_mean(res.values(c, a, 'latency_p99')):,.0f}"
                                             for c in FD_CONFIGS) + f" | {n:.0f} |")
    return lines + ["## p99 response time per app, mean over seeds", "", *rows, ""] + _fd_page_usage(res, apps)


def _fd_page_usage(res: Results, apps: list[str]) -> list[str]:
    """Figs 3b and 6b: flash pages skipped unprogrammed against pages written,
    per system, summed over the apps and seeds."""
    rows = ["| system | pages written | pages skipped | skipped / (written + skipped) |", "| --- | --- | --- | --- |"]
    for c in ["fd-buf", "fd-ftl", "fd", FD_LSB_ONLY]:
        w = sum(sum(res.values(c, a, "pages_written").values()) for a in apps)
        k = sum(sum(res.values(c, a, "pages_skipped").values()) for a in apps)
        if w + k:
            rows.append(f"| {c} | {w:,.0f} | {k:,.0f} | {100 * k / (w + k):.1f}% |")
    return ["## Flash pages skipped (Figs 3b, 6b)", "",
            "The paper: the prior work's write point (LSB-only) leaves 35% of the flash pages unused (Fig 3b); "
            "FastDrain's FTL uses 90% of them (Fig 6b). Pages are mapping units (4 KiB); FD-FTL's groups skip none "
            "(their CSB/MSB pages are filled by later writes).", "", *rows, ""]


def _fd_dynamics(res: Results, out: Path) -> list[str]:
    """Figs 1b and 6a: Apache-U's response times over the run (seed 1, one run
    per system, as the paper plots one run) and, beside Vanilla's, the dirty
    pages the page cache wrote back (victimized) per 100 ms."""
    import matplotlib.pyplot as plt
    import pandas as pd

    traced = {c: res.summaries.get((f"{c} {FD_TRACED}", "apache-u", 1)) for c in FD_CONFIGS}
    runs = {c: f for c, f in traced.items() if f and (f / "responses.csv").exists()}
    if not runs:
        return []
    fig, axes = plt.subplots(len(runs), 1, figsize=(7, 1.6 * len(runs)), sharex=True, squeeze=False)
    rows = ["| system | responses | mean ms | p99 ms | max ms | responses above 10 ms |",
            "| --- | --- | --- | --- | --- | --- |"]
    for ax, (c, folder) in zip(axes[:, 0], runs.items(), strict=True):
        r = pd.read_csv(folder / "responses.csv")
        t, ms = r["received_ps"] / 1e12, r["response_ps"] / 1e9
        ax.plot(t, ms, linewidth=0.4, color="C0")
        ax.set_ylabel(f"{c}\nms", fontsize=8)
        rows.append(f"| {c} | {len(ms):,} | {ms.mean():.2f} | {ms.quantile(0.99):.2f} | {ms.max():.1f} | "
                    f"{int((ms > 10).sum()):,} |")
        if c == "vanilla" and (folder / "requests.csv").exists():
            q = pd.read_csv(folder / "requests.csv", usecols=["job", "op", "bytes", "issue_ps"])
            wb = q[(q["job"] == "pagecache") & (q["op"] == "write")]
            bins = (wb["issue_ps"] // 10**11).astype(int)  # 100 ms
            pages = (wb.groupby(bins)["bytes"].sum() / 4096)
            twin = ax.twinx()
            twin.bar(pages.index / 10, pages.values, width=0.1, align="edge", color="C3", alpha=0.3)
            twin.set_ylabel("pages written\nback / 100 ms", fontsize=7, color="C3")
            ax.set_zorder(twin.get_zorder() + 1)  # the responses over the bars
            ax.patch.set_visible(False)
    axes[-1, 0].set_xlabel("time, s")
    _finish(fig, axes[0, 0], out / "fig6a",
            "Figs 1b, 6a: Apache-U's response times (+ Ungzip), seed 1; Vanilla with the page cache's write-back", 9,
            legend=False)
    return ["## Apache-U's responses over time (Figs 1b, 6a; seed 1)", "",
            "The paper: Vanilla under 5 ms without victimization, up to 35 ms during one (Fig 6a); FD-FTL's worst "
            "a third of FD-Buf's.", "", *rows, ""]


STUDY = Study("fastdrain", "FastDrain (CAL'20)", _fd_grids, _fd_figures, _fd_effects(), extra=_fd_extra,
              doc_sections=("p99 response time per app", "Apache-U's responses over time", "Flash pages skipped"))
