# SPDX-License-Identifier: BSD-3-Clause
"""The four studies flashvp repro runs: their runs (presets of
platforms/presets/<study>/ and sets), figures of merit, headline
effects and study figures. Set-ups and what differs from the papers:
docs/study-<name>.md."""
from __future__ import annotations

import math
import statistics
from pathlib import Path

from flashvp.repro import (Effect, Results, Run, Study, deterministic, effect_samples, format_ours, judge,
                           mean_interval, papers)

# ----------------------------------------------------------------------------
# Figures of merit from one run's summary.json


RESPONSE_PARTS = ("network", "queue", "io", "compute")


def _online(summary: dict) -> dict:
    """The online server's response times (worker 0's job carries them) and
    where they went, over all responses and over the p99 tail."""
    for j in summary["jobs"]:
        if "online" in j:
            r = j["online"]["response_us"]
            f = {"response_mean": r["mean"], "response_p99": r["p99"], "response_max": r.get("max", math.nan),
                 "responses": r["count"]}
            parts = j["online"].get("response_parts_us", {})
            for scope, key in (("all", "resp"), ("p99_and_above", "tail")):
                for part in RESPONSE_PARTS:
                    f[f"{key}_{part}"] = parts.get(scope, {}).get(part, math.nan)
            f["tail_responses"] = parts.get("p99_and_above", {}).get("count", 0)
            return f
    return {}


def _jobs(summary: dict, prefix: str) -> list[dict]:
    return [j for j in summary["jobs"] if j["name"] == prefix or j["name"].startswith(prefix + ".")]



def _finish(fig, ax, path: Path, title: str, fontsize: int, legend: bool = True, ncol: int = 1) -> None:
    """Titles the figure, adds its legend and writes it as PNG and SVG."""
    from flashvp.plot import save

    ax.set_title(title, fontsize=fontsize)
    if legend:
        ax.legend(fontsize=7, ncol=ncol)
    fig.tight_layout()
    save(fig, path)


# ----------------------------------------------------------------------------
# FlashShare (OSDI'18)

FS_CONFIGS = ["vanilla", "cacheopt", "kernelopt", "selectisr", "xler", "dedcore"]
FS_ONLINE = ["ap", "au", "is"]
FS_OFFLINE = ["bfs", "gpgnu", "gp", "gzip", "index", "kmn", "PR", "ungzip", "wcgnu", "wc"]
FS_KNEE_RATES = [100, 200, 300, 400, 500, 600, 800, 1000]
FS_CACHE_ORGS = {"uni-no": {"ssd.cache.organisation": "uni", "ssd.cache.prefetch_pages": 0},
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


def _fs_figures(s: dict) -> dict:
    f = _online(s)
    off = _jobs(s, "offline")
    # Offline work done in the fixed run time: its I/Os (each with its Table 3 compute).
    f["offline_perf"] = sum(j["reads"] + j["writes"] for j in off) / s["sim_time_s"]
    f["online_io_us"] = _online_io_share(s)
    ws = [j for j in _jobs(s, "online") if j["latency_us"]["read"]["count"]]
    n = sum(j["latency_us"]["read"]["count"] for j in ws)
    for part, stages in FS_PARTS.items():
        f[f"read_{part}"] = sum(j["breakdown_us"]["read"][st] * j["latency_us"]["read"]["count"]
                                for j in ws for st in stages) / n if n else math.nan
    # Fig 18: the SSD cache's read hit rate per class.
    c = s["counters"]
    for cls in ("lat", "thr"):
        h, m = c.get(f"ssd.cache.{cls}.read_hits", 0), c.get(f"ssd.cache.{cls}.read_misses", 0)
        f[f"hit_{cls}"] = h / (h + m) if h + m else math.nan
    h = sum(c.get(f"ssd.cache.{cls}.read_hits", 0) for cls in ("lat", "thr"))
    m = sum(c.get(f"ssd.cache.{cls}.read_misses", 0) for cls in ("lat", "thr"))
    f["hit_all"] = h / (h + m) if h + m else math.nan
    f["context_switches_per_s"] = c.get("host.context_switches", 0) / s["sim_time_s"]
    # Fig 17: NVMe commands per application I/O.
    ios = sum(j["reads"] + j["writes"] for j in s["jobs"])
    f["commands_per_io"] = (s["device"]["read_commands"] + s["device"]["write_commands"]) / ios if ios else math.nan
    return f


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
        cell = lambda k: f"{statistics.mean(r[k] for r in mine):,.0f}"  # noqa: E731
        md.append(f"| {c} | {sum(r['responses'] for r in mine):,} ({sum(r['tail_responses'] for r in mine):,}) | " +
                  " | ".join(cell(f"resp_{p}") for p in RESPONSE_PARTS) + " | " +
                  " | ".join(cell(f"tail_{p}") for p in RESPONSE_PARTS) + " |")
    return ["## Where the responses' time went, mean over the pairs and seeds", "",
            "network: both crossings; queue: at the server until a worker was free; io: the worker's time "
            "with one of the request's I/Os in flight; compute: the rest (compute, waiting for the core). "
            "Tail: the responses at or above each run's p99.", "", *md, ""]


def _online_io_share(s: dict) -> float:
    ws = [j for j in _jobs(s, "online") if j["latency_us"]["read"]["count"]]
    n = sum(j["latency_us"]["read"]["count"] for j in ws)
    return sum(j["latency_us"]["read"]["mean"] * j["latency_us"]["read"]["count"] for j in ws) / n if n else math.nan


def _fs_grids(quick: bool) -> dict:
    pairs = [("ap", "PR")] if quick else [(o, f) for o in FS_ONLINE for f in FS_OFFLINE]
    runtime = "3s" if quick else "6s"
    base = {"set": {"workload.online.runtime": runtime, "workload.offline.runtime": runtime}}
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


def _fs_extra(res: Results, out: Path, ctx: dict) -> list[str]:
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
    for k, (metric, label) in enumerate((("response_mean", "mean"), ("response_p99", "p99"))):
        for i, c in enumerate(("dedcore", "xler")):
            m, h = mean_interval([x for v in pairs for x in _ratio(res, c, v, metric)])
            ax.bar(k * 3 + i, m, yerr=0 if math.isnan(h) else h, capsize=3, color=f"C{i}",
                   label=c if k == 0 else None)
    ax.set_xticks([0.5, 3.5], ["mean", "p99"])
    ax.set_ylabel("response time / Vanilla")
    _finish(fig, ax, out / "fig13", "Fig 13: XLER against DedCore (paper: XLER -12% mean, -15% p99 vs DedCore)", 8)
    # Figure 15b: where a latency-critical read's time goes, per system (pooled over pairs and seeds).
    fig, ax = plt.subplots(figsize=(6, 3.5))
    bottom = [0.0] * len(FS_CONFIGS)
    rows15 = ["| system | " + " | ".join(f"{p} us" for p in FS_PARTS) + " |", "| --- |" + " --- |" * len(FS_PARTS)]
    cells = {c: [] for c in FS_CONFIGS}
    for part in FS_PARTS:
        vals = [statistics_mean({i: r[f"read_{part}"] for i, r in enumerate(res.rows)
                                 if r["config"] == c and r["variant"] in pairs}) for c in FS_CONFIGS]
        ax.bar(range(len(FS_CONFIGS)), vals, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, vals)]
        for c, v in zip(FS_CONFIGS, vals):
            cells[c].append(f"{v:.1f}")
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
              ", ".join(f"{c} {100 * (m - 1):+.2f}%" for c, (m, _) in zip(FS_CONFIGS, ms)) + ".", ""]
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
        for i, ((org, metric), name) in enumerate(zip(cols, names)):
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


def _stage_times(df):
    """Each stage's time per row of a requests.csv frame (ps; NaN where the
    stage did not occur): a stage lasts from the previous mark to its own."""
    import numpy as np
    import pandas as pd

    cols = [c for c in df.columns if c.endswith("_end_ps")]
    ends = df[cols].to_numpy(dtype=float)
    order = np.argsort(np.where(np.isnan(ends), np.inf, ends), axis=1, kind="stable")
    ordered = np.take_along_axis(ends, order, axis=1)
    prev = np.concatenate([df[["issue_ps"]].to_numpy(dtype=float), ordered[:, :-1]], axis=1)
    times = np.empty_like(ends)
    np.put_along_axis(times, order, ordered - prev, axis=1)
    return pd.DataFrame(times, columns=[c[: -len("_end_ps")] for c in cols], index=df.index)


def _binned(t_ps, values, how: str = "mean"):
    """`values` grouped into FS_BIN_S bins of `t_ps`: (bin start s, their `how`: mean, max, sum, count)."""
    import pandas as pd

    b = (pd.Series(t_ps, dtype=float) / 1e12 // FS_BIN_S) * FS_BIN_S
    g = pd.Series(list(values), dtype=float).groupby(b.to_numpy())
    r = getattr(g, how)()
    return r.index.to_numpy(), r.to_numpy()


def _panel(ax, ylabel: str, title: str) -> None:
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def _ctx(res: Results, config: str) -> float:
    return statistics_mean(res.values(f"{config} {FS_TRACED}", "ap+index", "context_switches_per_s"))


def _traced(res: Results, config: str, pair: str) -> Path | None:
    return res.summaries.get((f"{config} {FS_TRACED}", pair, 1))


def _read_requests(folder: Path):
    import pandas as pd

    df = pd.read_csv(folder / "requests.csv")
    return df, _stage_times(df)


def _fs_dynamics(res: Results, out: Path) -> list[str]:
    """Figs 16 and 19 from the traced runs (seed 1), as the paper plots one run."""
    import matplotlib.pyplot as plt
    import pandas as pd

    lines = []
    if _traced(res, "vanilla", "ap+index"):
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
    if _traced(res, "cacheopt", "ap+PR"):
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


def _ratio(res: Results, c: str, v: str, metric: str) -> list[float]:
    mine, base = res.values(c, v, metric), res.values("vanilla", v, metric)
    return [mine[s] / base[s] for s in mine if s in base and base[s]]


def statistics_mean(d: dict) -> float:
    v = list(d.values())
    return sum(v) / len(v) if v else math.nan


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


# ----------------------------------------------------------------------------
# DeepFlash (FAST'19)

DF_CONFIGS = ["layered", "manylayered", "basedeepflash", "deepflash"]
DF_PATTERNS = {"seqrd": "read", "rndrd": "randread", "seqwr": "write", "rndwr": "randwrite"}
DF_CORES = [1, 2, 4, 8, 12, 16, 19]
DF_SIZES = ["4k", "8k", "16k", "32k"]
DF_SKEW = ["random", "zipf:1.2", "pareto:0.2", "normal:10", "zoned:60/10:40/90"]


# Figs 15 and 16 (sec. 6.3): queue allocation against the host's queues,
# the lock variants, the CACHE stage. The queue sweep runs on an ideal host
# (no software costs), so the drive, not the host's cores, is what it measures.
DF_QUEUES = [1, 2, 4, 8, 16]
DF_FEW_QUEUES = (1, 2, 4)  # "only a few queues" (the paper gives no count: our choice)
DF_IDEAL_HOST = {k: "0ns" for k in ("host.core.submit_cost", "host.core.isr_cost", "host.core.complete_cost",
                                    "host.core.ctx_switch_cost", "host.sched.cache_penalty",
                                    "host.blkmq.insert_cost", "host.blkmq.merge_search_cost")}
DF_LOCKS = {"page-lock": {"ssd.fw.ilock.range": "4KiB", "ssd.fw.ilock.forwarding": "false"},
            "ilock-base": {"ssd.fw.ilock.forwarding": "false"},
            "ilock-forwd": {},
            "ilock-1mb": {"ssd.fw.ilock.range": "1MiB", "ssd.fw.ilock.forwarding": "false"}}
DF_CACHE = {"no-cache": {"ssd.fw.threads.cache": 0, "ssd.cache.organisation": "none"},
            **{f"cache-{n}": {"ssd.fw.threads.cache": n, "ssd.fw.cache_bypass": "false"} for n in (1, 2, 4)},
            "2-bypass": {}}


def _df_drive_iops(s: dict) -> float:
    """The drive's throughput: every job's I/Os over the longest job's runtime
    (the jobs start together). Not the sum of the jobs' own IOPS: that counts
    each job at its own rate, and where the jobs' rates differ (ManyLayered's
    static queues: up to 64% apart) it reads above what the drive did."""
    longest = max((j["runtime_s"] for j in s["jobs"]), default=0.0)
    return sum(j["ios"] for j in s["jobs"]) / longest if longest > 0 else 0.0


def _df_figures(s: dict) -> dict:
    c, ps = s["counters"], s["sim_time_s"] * 1e12
    nvmq = [k[len("ssd.fw.thread."):-len(".items")] for k in c
            if k.startswith("ssd.fw.thread.nvmq") and k.endswith(".items")]
    items = [c[f"ssd.fw.thread.{t}.items"] for t in nvmq]
    working = [n for n in items if n]
    iops = _df_drive_iops(s)
    return {"iops": iops,
            # Fig 16a: NVMQ threads busy on average (not waiting for a lock or for work)
            "active_nvmq": sum(c[f"ssd.fw.thread.{t}.busy_ps"] for t in nvmq) / ps if nvmq else math.nan,
            # Fig 15b: IOPS per NVMQ thread that took work, and their spread (max - min) / max
            "nvmq_iops": iops / len(working) if working else math.nan,
            "nvmq_spread": (max(working) - min(working)) / max(working) if working else math.nan}


def _df_grids(quick: bool) -> dict:
    # Time-based runs: every job issues for the same time, as the paper's 16
    # host workers "keep issuing I/O requests, so that the NVMe queues are not
    # depleted" (sec. 6) and its figures are the device's throughput. With a
    # fixed number of I/Os per job the fast jobs finish first and the drive
    # runs its last stretch on the slow jobs' queues alone. The lengths are
    # about the time DeepFlash took for 2,000 / 10,000 random reads per job.
    base = {"set": {"workload.*.number_ios": "0", "workload.*.time_based": "1",
                    "workload.*.runtime": "30ms" if quick else "150ms"}}
    runs = [Run(c, f"deepflash/{c}", p, {"workload.*.rw": rw}) for p, rw in DF_PATTERNS.items() for c in DF_CONFIGS]
    grids = {"patterns": (base, runs)}
    if not quick:
        cores = [Run("deepflash", "deepflash/deepflash", f"{p}-cores={n}", {"workload.*.rw": DF_PATTERNS[p],
                                                                              "ssd.fw.cores": n})
                 for p in ("rndrd", "rndwr") for n in DF_CORES]
        skew = [Run(c, f"deepflash/{c}", f"rndrd-{d}", {"workload.*.random_distribution": d})
                for d in DF_SKEW for c in ("manylayered", "deepflash")]
        # The paper's microbenchmarks run 4-32 KB requests (sec. 6): random reads by size.
        sizes = [Run(c, f"deepflash/{c}", f"rndrd-bs={b}", {"workload.*.rw": "randread", "workload.*.bs": b})
                 for b in DF_SIZES for c in DF_CONFIGS[1:]]
        grids["cores"] = (base, cores)
        grids["skew"] = (base, skew)
        grids["sizes"] = (base, sizes)
    queues = DF_QUEUES if not quick else [1, 16]
    grids["queues"] = (base, [Run(c, "deepflash/deepflash", f"rndrd-queues={q}",
                                  {**DF_IDEAL_HOST, "host.cores": q, "ssd.fw.dispatch": d})
                              for q in queues for c, d in (("deepflash", "dios"), ("deepflash-static-queues", "per_sq"))])
    locks = DF_LOCKS if not quick else {k: DF_LOCKS[k] for k in ("page-lock", "ilock-1mb")}
    cache = DF_CACHE if not quick else {k: DF_CACHE[k] for k in ("no-cache", "cache-1")}
    grids["ilock"] = (base, [Run(c, "deepflash/deepflash", p, {"workload.*.rw": DF_PATTERNS[p], **sets})
                             for p in ("rndrd", "rndwr") for c, sets in locks.items()])
    grids["cache"] = (base, [Run(c, "deepflash/deepflash", p, {"workload.*.rw": DF_PATTERNS[p], **sets})
                             for p in ("rndrd", "rndwr") for c, sets in cache.items()])
    return grids


def _df_effects() -> list[Effect]:
    e = [Effect(f"deepflash_1miops_{p}", "iops", "deepflash", None, variants=(p,), threshold=1e6)
         for p in DF_PATTERNS]
    e += [Effect(f"{c}_below_{p}", "iops", c, "deepflash", variants=(p,))
          for c in ("manylayered", "basedeepflash") for p in ("rndrd", "rndwr")]
    e += [Effect("dios_vs_static_few_queues", "iops", "deepflash", "deepflash-static-queues",
                 variants=tuple(f"rndrd-queues={q}" for q in DF_FEW_QUEUES if q in DF_QUEUES)),
          Effect("dios_per_thread_iops_16q", "nvmq_iops", "deepflash", "deepflash-static-queues",
                 variants=("rndrd-queues=16",)),
          Effect("pagelock_vs_ilock1mb_active_nvmq", "active_nvmq", "page-lock", "ilock-1mb",
                 variants=("rndrd", "rndwr")),
          Effect("one_cache_thread_write", "iops", "cache-1", "no-cache", variants=("rndwr",)),
          Effect("one_cache_thread_read", "iops", "cache-1", "no-cache", variants=("rndrd",))]
    return e


def _df_extra(res: Results, out: Path, ctx: dict) -> list[str]:
    import matplotlib.pyplot as plt


    fig, ax = plt.subplots(figsize=(7, 3.8))
    width = 0.8 / len(DF_CONFIGS)
    rows = ["| pattern | " + " | ".join(DF_CONFIGS) + " |", "| --- |" + " --- |" * len(DF_CONFIGS)]
    for i, c in enumerate(DF_CONFIGS):
        ms = [mean_interval(list(res.values(c, p, "iops").values())) for p in DF_PATTERNS]
        ax.bar([k + i * width for k in range(len(DF_PATTERNS))], [m / 1e3 for m, _ in ms], width,
               yerr=[0 if math.isnan(h) else h / 1e3 for _, h in ms], capsize=2, label=c)
    for p in DF_PATTERNS:
        rows.append(f"| {p} | " + " | ".join(f"{statistics_mean(res.values(c, p, 'iops')) / 1e3:,.0f}K"
                                             for c in DF_CONFIGS) + " |")
    ax.axhline(1000, color="black", linestyle="--", linewidth=0.8, label="paper: DeepFlash above 1 MIOPS")
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(DF_PATTERNS))], list(DF_PATTERNS))
    ax.set_ylabel("KIOPS")
    _finish(fig, ax, out / "fig11", "Fig 11: 4 KiB IOPS per pattern (ours: 3 seeds, 95% interval)", 9)
    lines = ["## IOPS per pattern (Fig 11), mean over seeds", "", *rows, ""]
    cores = sorted({int(v.split("=")[1]) for v in res.variants("deepflash") if "-cores=" in v})
    if cores:
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for p in ("rndrd", "rndwr"):
            ax.plot(cores, [statistics_mean(res.values("deepflash", f"{p}-cores={n}", "iops")) / 1e3 for n in cores],
                    marker="o", label=p)
        ax.axvline(12, color="grey", linestyle="--", linewidth=0.8, label="paper: saturates from 12 cores")
        ax.set_xlabel("firmware cores")
        ax.set_ylabel("KIOPS")
        _finish(fig, ax, out / "cores", "Fig 14a: DeepFlash against its core count", 9)
        rows = ["| firmware cores | " + " | ".join(str(n) for n in cores) + " |", "| --- |" + " --- |" * len(cores)]
        for p in ("rndrd", "rndwr"):
            kiops = [statistics_mean(res.values("deepflash", f"{p}-cores={n}", "iops")) / 1e3 for n in cores]
            rows.append(f"| {p} | " + " | ".join(f"{k:,.0f}" for k in kiops) + " |")
        lines += ["## DeepFlash against its core count (Fig 14a), KIOPS", "", *rows, ""]
    sized = [b for b in DF_SIZES if res.values("deepflash", f"rndrd-bs={b}", "iops")]
    if sized:
        rows = ["| request size | " + " | ".join(f"{c} KIOPS" for c in DF_CONFIGS[1:]) +
                " | ManyLayered / DeepFlash | BaseDeepFlash / DeepFlash |",
                "| --- |" + " --- |" * (len(DF_CONFIGS) + 1)]
        for b in sized:
            v = {c: statistics_mean(res.values(c, f"rndrd-bs={b}", "iops")) for c in DF_CONFIGS[1:]}
            rows.append(f"| {b} | " + " | ".join(f"{v[c] / 1e3:,.0f}" for c in DF_CONFIGS[1:]) +
                        f" | {v['manylayered'] / v['deepflash']:.2f} | {v['basedeepflash'] / v['deepflash']:.2f} |")
        lines += ["## Random reads by request size (the paper's 4-32 KB microbenchmarks)", "", *rows, ""]
    skew = [d for d in DF_SKEW if res.values("deepflash", f"rndrd-{d}", "iops")]
    if skew:
        rows = ["| random_distribution | ManyLayered KIOPS | DeepFlash KIOPS | ManyLayered / DeepFlash |",
                "| --- | --- | --- | --- |"]
        for d in skew:
            m = statistics_mean(res.values("manylayered", f"rndrd-{d}", "iops"))
            f = statistics_mean(res.values("deepflash", f"rndrd-{d}", "iops"))
            rows.append(f"| {d} | {m / 1e3:,.0f} | {f / 1e3:,.0f} | {m / f:.2f} |")
        lines += ["## Skew: random reads under fio's random_distribution", "",
                  "The paper attributes ManyLayered's loss on random patterns to imbalance across its static "
                  "per-channel partitions (sec. 6.1) and gives no number; ours:", "", *rows, ""]
    return lines + _df_queues(res, out) + _df_stage_variants(res, out)


def _df_queues(res: Results, out: Path) -> list[str]:
    """Fig 15: static queue allocation against DIOS, by the host's queue count."""
    import matplotlib.pyplot as plt

    queues = [q for q in DF_QUEUES if res.values("deepflash", f"rndrd-queues={q}", "iops")]
    if not queues:
        return []
    systems = {"deepflash-static-queues": "Static (per_sq)", "deepflash": "Dynamic (DIOS)"}
    m = {(c, q, f): statistics_mean(res.values(c, f"rndrd-queues={q}", f))
         for c in systems for q in queues for f in ("iops", "nvmq_iops", "nvmq_spread")}
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for c, label in systems.items():
        ax.plot(queues, [m[c, q, "iops"] / 1e3 for q in queues], marker="o", label=label)
    ax.axhline(1000, color="black", linestyle="--", linewidth=0.8,
               label="paper: Dynamic at 1 MIOPS at any count, Static above 16 queues")
    ax.set_xscale("log", base=2)
    ax.set_xticks(queues, [str(q) for q in queues])
    ax.set_xlabel("host NVMe queues (one per host core)")
    ax.set_ylabel("KIOPS, 4 KiB random reads")
    _finish(fig, ax, out / "fig15", "Fig 15a: queue allocation against the host's queues (ideal host)", 9)
    rows = ["| host queues | Static KIOPS | Dynamic KIOPS | Static per NVMQ thread | Dynamic per NVMQ thread "
            "| Static spread | Dynamic spread |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for q in queues:
        s, d = "deepflash-static-queues", "deepflash"
        rows.append(f"| {q} | {m[s, q, 'iops'] / 1e3:,.0f} | {m[d, q, 'iops'] / 1e3:,.0f} "
                    f"| {m[s, q, 'nvmq_iops'] / 1e3:,.0f}K | {m[d, q, 'nvmq_iops'] / 1e3:,.0f}K "
                    f"| {100 * m[s, q, 'nvmq_spread']:.0f}% | {100 * m[d, q, 'nvmq_spread']:.0f}% |")
    return ["## Queue allocation (Fig 15): 4 KiB random reads, one NVMe queue per host core, an ideal host", "",
            "Per NVMQ thread: IOPS over the NVMQ threads that took commands; spread: (max - min) / max of their "
            "commands (the paper: 12% Dynamic, 48% Static at 16 queues).", "", *rows, ""]


def _df_stage_variants(res: Results, out: Path) -> list[str]:
    """Fig 16a (lock variants, active NVMQ threads) and Fig 16b (the CACHE stage, IOPS)."""
    import matplotlib.pyplot as plt

    lines = []
    for fig_id, variants, metric, unit, title in (
            ("fig16a", DF_LOCKS, "active_nvmq", "active NVMQ threads (of 8)", "Fig 16a: lock variants"),
            ("fig16b", DF_CACHE, "iops", "KIOPS", "Fig 16b: CACHE threads, bypass")):
        have = [c for c in variants if res.values(c, "rndrd", metric)]
        if not have:
            continue
        scale = 1e3 if metric == "iops" else 1
        fig, ax = plt.subplots(figsize=(5.5, 3.5))
        width = 0.4
        for i, p in enumerate(("rndrd", "rndwr")):
            ms = [mean_interval(list(res.values(c, p, metric).values())) for c in have]
            ax.bar([k + i * width for k in range(len(have))], [v / scale for v, _ in ms], width,
                   yerr=[0 if math.isnan(h) else h / scale for _, h in ms], capsize=2, label=p)
        if fig_id == "fig16b":
            ax.axhline(650, color="grey", linestyle=":", linewidth=0.8, label="paper: no-cache writes ~650K")
            ax.axhline(1000, color="black", linestyle="--", linewidth=0.8, label="1 MIOPS")
        ax.set_xticks([k + width / 2 for k in range(len(have))], have, fontsize=8)
        ax.set_ylabel(unit)
        _finish(fig, ax, out / fig_id, f"{title} (ours: 3 seeds, 95% interval)", 9)
        rows = ["| | " + " | ".join(have) + " |", "| --- |" + " --- |" * len(have)]
        for p in ("rndrd", "rndwr"):
            for f, name in (("iops", "KIOPS"), ("active_nvmq", "active NVMQ")):
                v = [statistics_mean(res.values(c, p, f)) / (1e3 if f == "iops" else 1) for c in have]
                rows.append(f"| {p} {name} | " + " | ".join(f"{x:,.0f}" if f == "iops" else f"{x:.2f}"
                                                             for x in v) + " |")
        lines += [f"## {title}", "", *rows, ""]
    return lines


# ----------------------------------------------------------------------------
# FastDrain (CAL'20)

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


def _fd_figures(s: dict) -> dict:
    f = _online(s)
    f["latency_p99"], f["latency_mean"], f["latency_max"] = (f.get("response_p99"), f.get("response_mean"),
                                                             f.get("response_max"))
    ftl = s.get("ftl", {})
    f["pages_written"], f["pages_skipped"] = ftl.get("host_page_writes"), ftl.get("wasted_pages")
    return f


def _fd_grids(quick: bool) -> dict:
    apps = ["apache-u"] if quick else list(FD_APPS)
    base = {"set": {}}
    if quick:  # an eighth of the paper's scale: time, buffer and page cache, so the buffer fills as often
        base["set"] = {"workload.online.runtime": "3750ms", "workload.ungzip.runtime": "3750ms",
                       "ssd.cache.size": "64MiB", "host.pagecache.size": "320MiB",
                       "host.pagecache.dirtyable": str(908002 // 8 * 4096)}

    def sets(c: str, a: str) -> dict:
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


def _fd_extra(res: Results, out: Path, ctx: dict) -> list[str]:
    import json

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
        wb = json.loads((folder / "summary.json").read_text()).get("write_buffer", {})
        series = wb.get("series", [])
        if series:
            fig, ax = plt.subplots(figsize=(7, 3))
            ax.plot([t / 1e6 for t, _, _ in series], [100 * m / wb["capacity_pages"] for _, m, _ in series],
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

    runs = {c: res.summaries.get((f"{c} {FD_TRACED}", "apache-u", 1)) for c in FD_CONFIGS}
    runs = {c: f for c, f in runs.items() if f and (f / "responses.csv").exists()}
    if not runs:
        return []
    fig, axes = plt.subplots(len(runs), 1, figsize=(7, 1.6 * len(runs)), sharex=True, squeeze=False)
    rows = ["| system | responses | mean ms | p99 ms | max ms | responses above 10 ms |", "| --- | --- | --- | --- | --- | --- |"]
    for ax, (c, folder) in zip(axes[:, 0], runs.items()):
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


# ----------------------------------------------------------------------------
# Read/write queue isolation (IMCOM'17)

RW_MIX = {"3to1": (6, 2), "1to1": (4, 4), "1to3": (2, 6)}


def _rw_figures(s: dict) -> dict:
    t = s["sim_time_s"]
    readers, writers = _jobs(s, "reader"), _jobs(s, "writer")
    per = [j["reads"] / t for j in readers]
    f = {"read_iops": sum(per), "write_iops": sum(j["writes"] for j in writers) / t,
         "read_iops_stddev": statistics.pstdev(per) if per else math.nan}
    f.update({f"reader{k}_iops": x for k, x in enumerate(per)})
    return f


def _mix(r: int, w: int) -> dict:
    return {"workload.reader.numjobs": r, "workload.writer.numjobs": w}


def _rw_grids(quick: bool) -> dict:
    runtime = "1s" if quick else "2s"
    base = {"set": {"workload.*.runtime": runtime}}
    runs = [Run("baseline", "rwiso/baseline", "3to1"), Run("fqueue", "rwiso/fqueue", "3to1"),
            Run("rwiso-3to1", "rwiso/rwiso-3to1", "3to1"),
            Run("rwiso-1to1", "rwiso/rwiso-1to1", "1to1"), Run("baseline", "rwiso/baseline", "1to1", _mix(4, 4)),
            Run("rwiso-1to3", "rwiso/rwiso-1to3", "1to3"), Run("baseline", "rwiso/baseline", "1to3", _mix(2, 6)),
            Run("baseline", "rwiso/throttled", "throttled"), Run("fqueue", "rwiso/throttled-fqueue", "throttled")]
    if not quick:
        runs += [Run("baseline", "rwiso/sync", "sync"),
                 Run("rwiso-3to1", "rwiso/sync", "sync", {"host.blkmq.rw_isolation": "on"})]
    return {"configs": (base, runs)}


def _rw_effects() -> list[Effect]:
    return [Effect("rwiso_3to1_read_iops", "read_iops", "rwiso-3to1", "baseline", variants=("3to1",)),
            Effect("rwiso_1to1_read_iops", "read_iops", "rwiso-1to1", "baseline", variants=("1to1",)),
            Effect("rwiso_1to3_read_iops", "read_iops", "rwiso-1to3", "baseline", variants=("1to3",)),
            Effect("fqueue_read_iops", "read_iops", "fqueue", "baseline", variants=("3to1",)),
            Effect("throttled_fqueue_read_iops", "read_iops", "fqueue", "baseline", variants=("throttled",),
                   within=0.05)]


def _rw_extra(res: Results, out: Path, ctx: dict) -> list[str]:
    import matplotlib.pyplot as plt


    cells = [(c, v) for v in ("3to1", "1to1", "1to3", "throttled", "sync") for c in
             ("baseline", "fqueue", "rwiso-3to1", "rwiso-1to1", "rwiso-1to3") if res.values(c, v, "read_iops")]
    fig, ax = plt.subplots(figsize=(8, 3.8))
    ms = [mean_interval(list(res.values(c, v, "read_iops").values())) for c, v in cells]
    ax.bar(range(len(cells)), [m / 1e3 for m, _ in ms], yerr=[0 if math.isnan(h) else h / 1e3 for _, h in ms],
           capsize=3)
    ax.set_xticks(range(len(cells)), [f"{c}\n{v}" for c, v in cells], fontsize=7)
    ax.set_ylabel("read KIOPS (all readers)")
    _finish(fig, ax, out / "fig3-5",
            "Figs 3-5: readers' IOPS (ours, 3 seeds, 95% interval; the paper's gains are in report.md)", 8,
            legend=False)
    rows = ["| configuration | mix | read IOPS | write IOPS |", "| --- | --- | --- | --- |"]
    for c, v in cells:
        rows.append(f"| {c} | {v} | {statistics_mean(res.values(c, v, 'read_iops')):,.0f} | "
                    f"{statistics_mean(res.values(c, v, 'write_iops')):,.0f} |")
    lines = ["## IOPS per configuration, mean over seeds", "", *rows, ""]
    # Fig 4b: each reader's IOPS in the 3:1 mix; Fig 4c and the readers' spread as the paper states them.
    configs = [c for c in ("baseline", "fqueue", "rwiso-3to1") if res.values(c, "3to1", "read_iops")]
    n = sum(1 for k in range(64) if res.values("baseline", "3to1", f"reader{k}_iops"))
    if configs and n:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        width = 0.8 / len(configs)
        for i, c in enumerate(configs):
            ax.bar([k + i * width for k in range(n)],
                   [statistics_mean(res.values(c, "3to1", f"reader{k}_iops")) / 1e3 for k in range(n)], width, label=c)
        ax.set_xticks([k + 0.4 - width / 2 for k in range(n)], [f"reader {k}" for k in range(n)], fontsize=8)
        ax.set_ylabel("KIOPS")
        _finish(fig, ax, out / "fig4b", "Fig 4b: each reader's IOPS, 3:1 (mean over seeds)", 9)
        data = {e["id"]: e for e in papers()["rwiso"]["effects"]}
        rows = ["| effect | paper | source | ours | direction | within a third |", "| --- | --- | --- | --- | --- | --- |"]
        for eid, metric in (("rwiso_3to1_reader_stddev", "read_iops_stddev"),
                            ("rwiso_3to1_write_iops_vs_fqueue", "write_iops")):
            e = Effect(eid, metric, "rwiso-3to1", "fqueue", variants=("3to1",))
            samples = effect_samples(res, e)
            m, h = mean_interval(samples)
            d, close = judge(e, data[eid]["change"], m, h)
            rows.append(f"| {eid} | {100 * data[eid]['change']:+.0f}% | {data[eid]['source']} | "
                        f"{format_ours(m, h, len(samples), deterministic(samples))} | {d} | {close} |")
        lines += ["## The paper's secondary effects (Figs 4b, 4c), 3:1 mix", "",
                  "The readers' spread (standard deviation of their IOPS) and the writers' IOPS, RQ:WQ 3:1 "
                  "against FQueue. The paper's FQueue readers differ because its two sockets' cores are "
                  "unequal; FlashVP's cores are all alike.", "", *rows, ""]
    return lines


# doc_sections: the report's tables a study page's generated block repeats
# beside the effects (those the pages quote).
STUDIES = {
    "flashshare": Study("flashshare", "FlashShare (OSDI'18)", _fs_grids, _fs_figures, _fs_effects(),
                        extra=_fs_extra, doc_sections=("Apache with Index over time", "A latency-critical read's time",
                                                       "Mean / p99 response time per pair", "SSD cache read hit rates",
                                                       "Apache with PageRank over time", "The latency-load curve")),
    "deepflash": Study("deepflash", "DeepFlash (FAST'19)", _df_grids, _df_figures, _df_effects(), extra=_df_extra,
                       doc_sections=("IOPS per pattern", "DeepFlash against", "Random reads by request size", "Skew",
                                     "Queue allocation", "Fig 16a", "Fig 16b")),
    "fastdrain": Study("fastdrain", "FastDrain (CAL'20)", _fd_grids, _fd_figures, _fd_effects(), extra=_fd_extra,
                       doc_sections=("p99 response time per app", "Apache-U's responses over time",
                                     "Flash pages skipped")),
    "rwiso": Study("rwiso", "Read/write queue isolation (IMCOM'17)", _rw_grids, _rw_figures, _rw_effects(),
                   extra=_rw_extra, doc_sections=("IOPS per configuration", "The paper's secondary effects")),
}
