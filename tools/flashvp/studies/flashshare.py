# SPDX-License-Identifier: BSD-3-Clause
"""FlashShare (OSDI'18): a latency-critical online server beside an offline
app, on Vanilla and FlashShare's parts added one by one: response times,
offline work, the cache organisations and the traced runs' dynamics
(docs/study-flashshare.md)."""
from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashvp.studies.base import Effect, Grids, Results, Run, Study, mean_interval, papers
from flashvp.studies.common import _finish, _online, _ratio, statistics_mean
from flashvp.summary import RESPONSE_PARTS, Summary

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

FS_CONFIGS = ["vanilla", "cacheopt", "kernelopt", "selectisr", "xler", "dedcore"]
FS_ONLINE = ["ap", "au", "is"]
FS_OFFLINE = ["bfs", "gpgnu", "gp", "gzip", "index", "kmn", "PR", "ungzip", "wcgnu", "wc"]
FS_KNEE_RATES = [100, 200, 300, 400, 500, 600, 800, 1000]
FS_CACHE_ORGS: dict[str, dict[str, Any]] = {"uni-no": {"ssd.cache.organisation": "uni", "ssd.cache.prefetch_pages": 0},
                 "uni-128": {"ssd.cache.organisation": "uni", "ssd.cache.prefetch_pages": 128},
                 "uni-dyn": {"ssd.cache.organisation": "uni-dyn"},
                 "split": {"ssd.cache.organisation": "split"}}


# Figs 16 (Apache with Index) and 19 (Apache with PageRank): traced runs.
FS_TRACED = "(traced)"
FS_DYNAMICS = {"ap+index": FS_CONFIGS[:5], "ap+PR": ["vanilla", "cacheopt"]}
FS_BIN_S = 0.1  # the time series' bins

# Fig 15b's parts of a latency-critical read, from the stage record.
FS_PARTS = {"block layer": ("host_submit", "blk_mq", "driver_queue"), "accelerator": ("accel",),
            "SSD": ("sq_wait", "fetch", "firmware", "flash", "data_dma", "cq_post"),
            "completion": ("interrupt", "wakeup")}


def _fs_figures(s: Summary) -> dict[str, Any]:
    f = _online(s)
    # Offline work done in the fixed run time: its I/Os (each with its Table 3 compute).
    f["offline_perf"] = sum(j.reads + j.writes for j in s.jobs_named("offline")) / s.sim_time_s
    # The online workers' reads: their mean latency and (Fig 15b) where it went, over every read.
    ws = [(j, j.latency("read")) for j in s.jobs_named("online")]
    ws = [(j, lat) for j, lat in ws if lat.count]
    n = sum(lat.count for _, lat in ws)
    f["online_io_us"] = sum(lat.mean * lat.count for _, lat in ws) / n if n else math.nan
    for part, stages in FS_PARTS.items():
        f[f"read_{part}"] = sum(j.breakdown("read")[st] * lat.count
                                for j, lat in ws for st in stages) / n if n else math.nan
    # Fig 18: the SSD cache's read hit rate per class.
    reads = {cls: s.cache_reads(cls) for cls in ("lat", "thr")}
    for cls, (h, m) in reads.items():
        f[f"hit_{cls}"] = _hit_rate(h, m)
    f["hit_all"] = _hit_rate(sum(r.hits for r in reads.values()), sum(r.misses for r in reads.values()))
    f["context_switches_per_s"] = s.context_switches / s.sim_time_s
    # Fig 17: NVMe commands per application I/O.
    ios = sum(j.reads + j.writes for j in s.jobs)
    f["commands_per_io"] = (s.device.read_commands + s.device.write_commands) / ios if ios else math.nan
    return f


def _hit_rate(hits: int, misses: int) -> float:
    return hits / (hits + misses) if hits + misses else math.nan


def _fs_response_parts(res: Results, pairs: list[str]) -> list[str]:
    """Where the online responses' time went, over all and over the p99 tail, per system."""
    rows = [r for r in res.rows if r["variant"] in pairs and r.get("tail_responses")]
    if not rows:
        return []
    head = " | ".join(f"{p} us" for p in RESPONSE_PARTS)
    md = [f"| system | responses (tail) | all: {head} | tail: {head} |",
          "| --- | --- |" + " --- |" * (2 * len(RESPONSE_PARTS))]
    for c in FS_CONFIGS:
        mine = [r for r in rows if r["config"] == c]
        if not mine:
            continue
        def cell(k: str, mine: list[dict[str, Any]] = mine) -> str:
            return f"{statistics.mean(r[k] for r in mine):,.0f}"

        md.append(f"| {c} | {sum(r['responses'] for r in mine):,} ({sum(r['tail_responses'] for r in mine):,}) | " +
                  " | ".join(cell(f"resp_{p}") for p in RESPONSE_PARTS) + " | " +
                  " | ".join(cell(f"tail_{p}") for p in RESPONSE_PARTS) + " |")
    return ["## Where the responses' time went, mean over the pairs and seeds", "",
            "network: both crossings; queue: at the server until a worker was free; io: the worker's time "
            "with one of the request's I/Os in flight; compute: the rest (compute, waiting for the core). "
            "Tail: the responses at or above each run's p99.", "", *md, ""]


def _fs_grids(quick: bool) -> Grids:
    pairs = [("ap", "PR")] if quick else [(o, f) for o in FS_ONLINE for f in FS_OFFLINE]
    runtime = "3s" if quick else "6s"
    base: dict[str, Any] = {"set": {"workload.online.runtime": runtime, "workload.offline.runtime": runtime}}
    runs = [Run(c, f"flashshare/{c}", f"{o}+{f}", {"workload.online.app": o, "workload.offline.app": f})
            for o, f in pairs for c in FS_CONFIGS]
    grids = {"configs": (base, runs)}
    if not quick:
        knee = [Run("vanilla", "flashshare/vanilla", f"rate={r}", {"workload.online.request_rate": r})
                for r in FS_KNEE_RATES]
        alone = [Run("alone", "flashshare/vanilla", f"rate={r}",
                     {"workload.online.request_rate": r, "workload.offline.number_ios": 1,
                      "workload.offline.time_based": 0, "workload.offline.numjobs": 1})
                 for r in FS_KNEE_RATES[:1]]
        grids["knee"] = (base, knee + alone)
        # Fig 18: the cache organisations, Apache with each offline app, on Vanilla's host.
        cache = [Run(org, "flashshare/vanilla", f"ap+{off}:{org}",
                     {"workload.offline.app": off, **FS_CACHE_ORGS[org]})
                 for off in FS_OFFLINE for org in FS_CACHE_ORGS]
        grids["cache"] = (base, cache)
    # Figs 16 and 19: the same runs traced (requests.csv, responses.csv,
    # cache_epochs.csv), as configurations of their own so that the effects
    # do not count them twice.
    traced = [Run(f"{c} {FS_TRACED}", f"flashshare/{c}", pair,
                  {"workload.online.app": pair.split("+")[0], "workload.offline.app": pair.split("+")[1]})
              for pair, configs in FS_DYNAMICS.items() for c in configs]
    grids["dynamics"] = ({**base, "trace": ["requests", "cache"]}, traced)
    return grids


def _fs_per_pair(res: Results, pairs: list[str]) -> list[str]:
    """Figs 11 and 12 as numbers: each pair's mean and p99 response per system, mean over the seeds."""
    rows = ["| pair | " + " | ".join(FS_CONFIGS) + " |", "| --- |" + " --- |" * len(FS_CONFIGS)]
    for v in sorted(pairs):
        cells = []
        for c in FS_CONFIGS:
            m, p = res.values(c, v, "response_mean"), res.values(c, v, "response_p99")
            cells.append(f"{statistics_mean(m):.0f} / {statistics_mean(p):.0f}" if m and p else "-")
        rows.append(f"| {v} | " + " | ".join(cells) + " |")
    return ["## Mean / p99 response time per pair, us (mean over the seeds)", "", *rows, ""]


def _fs_extra(res: Results, out: Path, ctx: dict[str, Any]) -> list[str]:
    import matplotlib.pyplot as plt

    lines = []
    # Figures 11 and 12: each pair's mean / p99 normalised to Vanilla, mean over seeds.
    pairs = res.variants("vanilla")
    pairs = [v for v in pairs if "+" in v]
    ref = papers()["flashshare"]["effects"]
    paper = {e["id"]: e["change"] for e in ref}
    for metric, fig_no in (("response_mean", 11), ("response_p99", 12)):
        fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(pairs) * 1.5), 4))
        width = 0.8 / len(FS_CONFIGS)
        for i, c in enumerate(FS_CONFIGS):
            vals, errs = [], []
            for v in pairs:
                mine, base = res.values(c, v, metric), res.values("vanilla", v, metric)
                m, h = mean_interval([mine[s] / base[s] for s in mine if s in base])
                vals.append(m)
                errs.append(0 if math.isnan(h) else h)
            ax.bar([k + i * width for k in range(len(pairs))], vals, width, yerr=errs, capsize=2, label=c)
        for i, c in enumerate(FS_CONFIGS[1:5], start=1):  # the paper's averages as dashed lines
            key = f"{c}_{'mean' if metric == 'response_mean' else 'p99'}"
            ax.axhline(1 + paper[key], color=f"C{i}", linestyle="--", linewidth=0.8)
        ax.set_xticks([k + 0.4 - width / 2 for k in range(len(pairs))], pairs, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel(f"{metric.replace('response_', '')} response time / Vanilla")
        n = min((r["responses"] for r in res.rows if "responses" in r), default=0)
        _finish(fig, ax, out / f"fig{fig_no}",
                f"Fig {fig_no}: online response time normalised to Vanilla (ours: bars, 3 seeds, 95% "
                f"interval; paper's averages: dashed; fewest responses per run {n})", 8, ncol=3)
    # Figure 13: XLER and DedCore normalised to Vanilla, mean over pairs and seeds.
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for k, metric in enumerate(("response_mean", "response_p99")):
        for i, c in enumerate(("dedcore", "xler")):
            m, h = mean_interval([x for v in pairs for x in _ratio(res, c, v, metric)])
            ax.bar(k * 3 + i, m, yerr=0 if math.isnan(h) else h, capsize=3, color=f"C{i}",
                   label=c if k == 0 else None)
    ax.set_xticks([0.5, 3.5], ["mean", "p99"])
    ax.set_ylabel("response time / Vanilla")
    _finish(fig, ax, out / "fig13", "Fig 13: XLER against DedCore (paper: XLER -12% mean, -15% p99 vs DedCore)", 8)
    # Figure 15b: where a latency-critical read's time goes, per system (pooled over pairs and seeds).
    fig, ax = plt.subplots(figsize=(6, 3.5))
    bottom: list[float] = [0.0] * len(FS_CONFIGS)
    rows15 = ["| system | " + " | ".join(f"{p} us" for p in FS_PARTS) + " |", "| --- |" + " --- |" * len(FS_PARTS)]
    cells: dict[str, list[str]] = {c: [] for c in FS_CONFIGS}
    for part in FS_PARTS:
        vals = [statistics_mean({i: r[f"read_{part}"] for i, r in enumerate(res.rows)
                                 if r["config"] == c and r["variant"] in pairs}) for c in FS_CONFIGS]
        ax.bar(range(len(FS_CONFIGS)), vals, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        for c, val in zip(FS_CONFIGS, vals, strict=True):
            cells[c].append(f"{val:.1f}")
    rows15 += [f"| {c} | " + " | ".join(cells[c]) + " |" for c in FS_CONFIGS]
    ax.set_xticks(range(len(FS_CONFIGS)), FS_CONFIGS, fontsize=8)
    ax.set_ylabel("us per latency-critical read")
    _finish(fig, ax, out / "fig15b",
            "Fig 15b: a latency-critical read's time (paper: block layer 39 -> 21 us with KernelOpt; "
            "SSD 29 -> 18 us with CacheOpt)", 7)
    lines += ["## A latency-critical read's time (Fig 15b), mean over the pairs and seeds", "", *rows15, ""]
    lines += _fs_response_parts(res, pairs)
    lines += _fs_per_pair(res, pairs)
    # Figure 17: NVMe commands per application I/O, normalised to Vanilla.
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ms = [mean_interval([x for v in pairs for x in _ratio(res, c, v, "commands_per_io")]) for c in FS_CONFIGS]
    ax.bar(range(len(FS_CONFIGS)), [m for m, _ in ms], yerr=[0 if math.isnan(h) else h for _, h in ms], capsize=3)
    ax.set_xticks(range(len(FS_CONFIGS)), FS_CONFIGS, fontsize=8)
    ax.set_ylabel("NVMe commands per I/O / Vanilla")
    ax.set_ylim(0.9, 1.1)
    _finish(fig, ax, out / "fig17", "Fig 17: NVMe commands (paper: KernelOpt +2%, XLER -0.4%)", 8, legend=False)
    lines += ["NVMe commands per application I/O against Vanilla (Fig 17): " +
              ", ".join(f"{c} {100 * (m - 1):+.2f}%" for c, (m, _) in zip(FS_CONFIGS, ms, strict=True)) + ".", ""]
    # Figure 14: offline performance normalised to Vanilla.
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for i, c in enumerate(FS_CONFIGS):
        m, h = mean_interval([x for v in pairs for x in _ratio(res, c, v, "offline_perf")])
        ax.bar(i, m, yerr=0 if math.isnan(h) else h, capsize=3)
    ax.axhspan(0.96, 1.04, color="#dddddd", label="paper: within 4% of Vanilla")
    ax.set_xticks(range(len(FS_CONFIGS)), FS_CONFIGS)
    ax.set_ylabel("offline I/Os per second / Vanilla")
    _finish(fig, ax, out / "fig14", "Fig 14: offline performance (mean over pairs and seeds)", 9)
    # Figure 18: read hit rates of the cache organisations (full scale only).
    offs = [o for o in FS_OFFLINE if res.values("uni-no", f"ap+{o}:uni-no", "hit_all")]
    if offs:
        cols = [("uni-no", "hit_all"), ("uni-128", "hit_all"), ("uni-dyn", "hit_all"), ("split", "hit_lat"),
                ("split", "hit_thr")]
        names = ["uni-no", "uni-128", "uni-dyn", "split-lat", "split-thr"]
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(offs) + 2), 3.8))
        width = 0.8 / len(cols)
        table = ["| offline app | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
        for i, ((org, metric), name) in enumerate(zip(cols, names, strict=True)):
            vals = [statistics_mean(res.values(org, f"ap+{o}:{org}", metric)) for o in offs]
            ax.bar([k + i * width for k in range(len(offs))], [100 * v for v in vals], width, label=name)
        for o in offs:
            cells18 = [statistics_mean(res.values(org, f"ap+{o}:{org}", metric)) for org, metric in cols]
            table.append(f"| {o} | " + " | ".join(f"{100 * v:.1f}%" for v in cells18) + " |")
        ax.set_xticks([k + 0.4 - width / 2 for k in range(len(offs))], offs, fontsize=8)
        ax.set_ylabel("SSD cache read hit rate, %")
        _finish(fig, ax, out / "fig18",
                "Fig 18: cache organisations, Apache with each offline app (paper: uni-128 only 12% "
                "above uni-no; split-thr far higher)", 8, ncol=5)
        no = [x for o in offs for x in res.values("uni-no", f"ap+{o}:uni-no", "hit_all").values()]
        p128 = [x for o in offs for x in res.values("uni-128", f"ap+{o}:uni-128", "hit_all").values()]
        lines += ["## SSD cache read hit rates by organisation (Fig 18), mean over 3 seeds", "", *table, "",
                  f"uni-128 against uni-no: {100 * (sum(p128) / len(p128) - sum(no) / len(no)):+.1f} points "
                  f"(the paper: 12% higher).", ""]
    dummy = [x for v in pairs for x in res.values("vanilla", v, "hit_thr").values()]
    split = [x for v in pairs for x in res.values("cacheopt", v, "hit_thr").values()]
    if dummy and split:
        lines += [f"Offline apps' SSD-cache read hit rate, CacheOpt against Vanilla's cache (Fig 19's "
                  f"comparison): {100 * sum(split) / len(split):.1f}% against {100 * sum(dummy) / len(dummy):.1f}% "
                  f"({100 * (sum(split) / sum(dummy) - 1):+.0f}%; the paper: about +36% for PageRank).", ""]
    lines += _fs_dynamics(res, out)
    # The knee of Vanilla's latency-load curve (full scale only).
    knee = [(int(v.split("=")[1]), v) for v in res.variants("vanilla") if v.startswith("rate=")]
    if knee:
        knee.sort()
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for metric in ("response_mean", "response_p99"):
            ms = [mean_interval(list(res.values("vanilla", v, metric).values())) for _, v in knee]
            ax.errorbar([r for r, _ in knee], [m / 1000 for m, _ in ms],
                        yerr=[0 if math.isnan(h) else h / 1000 for _, h in ms], marker="o", capsize=3,
                        label=metric.replace("response_", ""))
        ax.axvline(400, color="grey", linestyle="--", linewidth=0.8, label="the preset's rate")
        ax.set_yscale("log")
        ax.set_xlabel("requests per second")
        ax.set_ylabel("response time, ms")
        _finish(fig, ax, out / "knee", "Vanilla's latency-load curve (Apache + PageRank)", 9)
        lo = statistics_mean(res.values("vanilla", knee[0][1], "response_mean"))
        rows = ["| requests/s | mean response us | p99 us | responses per run | mean / lowest rate's |",
                "| --- | --- | --- | --- | --- |"]
        for r, v in knee:
            m = statistics_mean(res.values("vanilla", v, "response_mean"))
            p = statistics_mean(res.values("vanilla", v, "response_p99"))
            n = min(res.values("vanilla", v, "responses").values())
            p99 = f"{p:.0f}" if n >= 1000 else "(fewer than 1,000 responses)"
            rows.append(f"| {r} | {m:.0f} | {p99} | {n:.0f} | {m / lo:.2f} |")
        lines += ["## The latency-load curve (Vanilla, ap + PR)", "", *rows, ""]
        alone = res.values("alone", knee[0][1], "response_mean")
        io = res.values("alone", knee[0][1], "online_io_us")
        if alone:
            share = statistics_mean({s: 8 * io[s] / alone[s] for s in alone})
            lines += [f"Apache alone at {knee[0][0]} requests/s: mean response {statistics_mean(alone):.0f} us, "
                      f"of which its 8 reads are {100 * share:.1f}% (the paper: more than 19%).", ""]
    return lines


def _stage_times(df: pd.DataFrame) -> pd.DataFrame:
    """Each stage's time per row of a requests.csv frame (ps; NaN where the
    stage did not occur): its `<stage>_ps` columns, in path order."""
    stages = [c[: -len("_end_ps")] for c in df.columns if c.endswith("_end_ps")]
    times = df[[f"{s}_ps" for s in stages]].astype(float)
    times.columns = stages
    return times


def _binned(t_ps: Any, values: Any, how: str = "mean") -> tuple[Any, Any]:
    """`values` grouped into FS_BIN_S bins of `t_ps`: (bin start s, their `how`: mean, max, sum, count)."""
    import pandas as pd

    b = (pd.Series(t_ps, dtype=float) / 1e12 // FS_BIN_S) * FS_BIN_S
    g = pd.Series(list(values), dtype=float).groupby(b.to_numpy())
    r = getattr(g, how)()
    return r.index.to_numpy(), r.to_numpy()


def _panel(ax: Axes, ylabel: str, title: str) -> None:
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def _ctx(res: Results, config: str) -> float:
    return statistics_mean(res.values(f"{config} {FS_TRACED}", "ap+index", "context_switches_per_s"))


def _has_traced(res: Results, config: str, pair: str) -> bool:
    return (f"{config} {FS_TRACED}", pair, 1) in res.summaries


def _traced(res: Results, config: str, pair: str) -> Path:
    return res.summaries[(f"{config} {FS_TRACED}", pair, 1)]


def _read_requests(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    import pandas as pd

    df = pd.read_csv(folder / "requests.csv")
    return df, _stage_times(df)


def _fs_dynamics(res: Results, out: Path) -> list[str]:
    """Figs 16 and 19 from the traced runs (seed 1), as the paper plots one run."""
    import matplotlib.pyplot as plt
    import pandas as pd

    lines = []
    if _has_traced(res, "vanilla", "ap+index"):
        fig, axs = plt.subplots(2, 2, figsize=(11, 6.5))
        reqs = {c: _read_requests(_traced(res, c, "ap+index")) for c in FS_DYNAMICS["ap+index"]}
        online = {c: df["job"].str.startswith("online") & (df["op"] == "read") for c, (df, _) in reqs.items()}
        ax = axs[0][0]
        for c, (df, _) in reqs.items():
            m = online[c]
            ax.plot(*_binned(df.loc[m, "issue_ps"], df.loc[m, "latency_ps"] / 1e6), label=c)
        _panel(ax, "Apache read latency, us (mean per 100 ms)", "(a) Apache's I/O service delay")
        ax = axs[0][1]
        for c, name in (("vanilla", "dummy cache (Vanilla)"), ("cacheopt", "adaptive split cache (CacheOpt)")):
            ep = pd.read_csv(_traced(res, c, "ap+index") / "cache_epochs.csv")
            hits = ep["thr_read_hits"] + ep["lat_read_hits"]
            miss = ep["thr_read_misses"] + ep["lat_read_misses"]
            t = ep["start_us"] * 1e6
            _, h = _binned(t, hits, "sum")
            x, mi = _binned(t, miss, "sum")
            ax.plot(x, 100 * mi / (h + mi), label=name)
        _panel(ax, "SSD cache read miss rate, %", "(b) cache misses")
        ax = axs[1][0]
        queue = {}
        for c, name in (("vanilla", "no bypass (Vanilla)"), ("kernelopt", "bypass (KernelOpt)")):
            df, st = reqs[c]
            m = online[c]
            q = (st.loc[m, ["blk_mq", "driver_queue", "sq_wait"]].fillna(0).sum(axis=1)) / 1e6
            queue[c] = q.mean()
            line, = ax.plot(*_binned(df.loc[m, "issue_ps"], q), label=f"{name}: mean")
            ax.plot(*_binned(df.loc[m, "issue_ps"], q, "max"), ":", color=line.get_color(), label=f"{name}: max")
        _panel(ax, "software + hardware queue, us", "(c) Apache reads' time in the queues")
        ax = axs[1][1]
        switched = {}
        for c, name in (("kernelopt", "interrupt (KernelOpt)"), ("selectisr", "polling for Apache (SelectISR)")):
            df, st = reqs[c]
            m = online[c]
            w = st.loc[m, "wakeup"].fillna(0) > 0
            switched[c] = int(w.sum())
            ax.plot(*_binned(df.loc[m, "issue_ps"] + df.loc[m, "latency_ps"], w.astype(int), "sum"), label=name)
        _panel(ax, "Apache reads whose completion switched\nthe worker in, per 100 ms",
               "(d) context switches for Apache's completions")
        for a in axs.flat:
            a.set_xlabel("time, s")
        n = {c: int(online[c].sum()) for c in reqs}
        fig.suptitle(f"Fig 16: Apache with Index over time (seed 1; Apache reads per run: {min(n.values()):,} "
                     f"or more)", fontsize=10)
        fig.tight_layout()
        from flashvp.plot import save

        save(fig, out / "fig16")
        lines += ["## Apache with Index over time (Fig 16, seed 1)", "",
                  f"Apache reads' time in the software and hardware queues: {queue['vanilla']:.1f} us without "
                  f"bypass (Vanilla), {queue['kernelopt']:.1f} us with it (KernelOpt). Apache reads whose "
                  f"completion switched the worker in: {switched['kernelopt']:,} of {n['kernelopt']:,} with "
                  f"interrupts (KernelOpt), {switched['selectisr']:,} of {n['selectisr']:,} when Apache polls "
                  f"(SelectISR). Context switches of the whole host per second (all threads, Index's "
                  f"included): " + ", ".join(f"{c} {_ctx(res, c):,.0f}" for c in reqs) + ".", ""]
    if _has_traced(res, "cacheopt", "ap+PR"):
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        folder = _traced(res, "cacheopt", "ap+PR")
        ep = pd.read_csv(folder / "cache_epochs.csv")
        share = ep["thr_ways"] / (ep["thr_ways"] + ep["lat_ways"])
        x, sh = _binned(ep["start_us"] * 1e6, share)
        top.plot(x, 100 * sh, color="C1", label="offline's share of the cache (CacheOpt)")
        top.set_ylabel("cache space for PageRank, %")
        top.set_ylim(0, 105)
        rt = top.twinx()
        for c, style in (("cacheopt", "-"), ("vanilla", ":")):
            r = pd.read_csv(_traced(res, c, "ap+PR") / "responses.csv")
            rt.plot(*_binned(r["received_ps"], r["response_ps"] / 1e9), style, color="C0",
                    label=f"Apache response ({c})")
        rt.axhline(3.1, color="grey", linestyle="--", linewidth=0.8, label="paper: 3.1 ms")
        rt.set_ylabel("Apache response, ms (mean per 100 ms)")
        h1, l1 = top.get_legend_handles_labels()
        h2, l2 = rt.get_legend_handles_labels()
        top.legend(h1 + h2, l1 + l2, fontsize=7, loc="lower right")
        # The offline app is buffered: its device I/Os are the page cache's (read-ahead, write-back).
        df = pd.read_csv(folder / "requests.csv", usecols=["job", "issue_ps"])
        off = df[df["job"] == "pagecache"]
        x, n = _binned(off["issue_ps"], [1] * len(off), "count")
        bottom.bar(x, n, width=FS_BIN_S * 0.9, align="edge", color="C2")
        bottom.set_ylabel("device I/Os the page cache\nsent for PageRank, per 100 ms")
        bottom.set_xlabel("time, s")
        fig.suptitle("Fig 19: Apache with PageRank over time (seed 1)\npaper: Apache keeps 23% of the cache "
                     "during PageRank's burst (0-2.8 s), response 3.1 ms", fontsize=9)
        fig.tight_layout()
        from flashvp.plot import save

        save(fig, out / "fig19")
        burst, quiet = ep["end_us"] <= 2.8e6, ep["start_us"] >= 3e6
        after = (f"; from 3 s on, when PageRank's I/O is quieter, {100 * (1 - share[quiet].mean()):.0f}% (the paper: "
                 f"it grows)" if quiet.any() else "")
        lines += ["## Apache with PageRank over time (Fig 19, seed 1)", "",
                  f"Apache's share of CacheOpt's cache over the first 2.8 s: {100 * (1 - share[burst].mean()):.0f}% "
                  f"(the paper: 23% during PageRank's burst, 0-2.8 s){after}; over the whole run "
                  f"{100 * (1 - share.mean()):.0f}%.", ""]
    return lines


def _fs_effects() -> list[Effect]:
    e = []
    for c in ("cacheopt", "kernelopt", "selectisr", "xler"):
        e += [Effect(f"{c}_mean", "response_mean", c, "vanilla"), Effect(f"{c}_p99", "response_p99", c, "vanilla")]
    e += [Effect("xler_vs_dedcore_mean", "response_mean", "xler", "dedcore"),
          Effect("xler_vs_dedcore_p99", "response_p99", "xler", "dedcore")]
    e += [Effect(f"offline_{c}", "offline_perf", c, "vanilla", within=0.04)
          for c in ("cacheopt", "kernelopt", "selectisr", "xler")]
    e += [Effect("flashshare_context_switches", "context_switches_per_s", "xler", "vanilla")]
    return e


STUDY = Study("flashshare", "FlashShare (OSDI'18)", _fs_grids, _fs_figures, _fs_effects(), extra=_fs_extra,
              doc_sections=("Apache with Index over time", "A latency-critical read's time",
                            "Mean / p99 response time per pair", "SSD cache read hit rates",
                            "Apache with PageRank over time", "The latency-load curve"))
