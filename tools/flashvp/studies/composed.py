# SPDX-License-Identifier: BSD-3-Clause
"""Composed (FlashVP's own study, no paper): FlashShare, FastDrain, DeepFlash
and read/write queue isolation on one server with all their pressures at
once; an ablation (none, each alone, the pairs most likely to interact,
each off in turn, all) with each technique's effect alone and inside the
others, and the interaction of each pair (docs/study-composed.md)."""
from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

from flashvp.studies.base import Effect, Grids, Results, Run, Study, deterministic, format_ours, mean_interval
from flashvp.studies.common import _finish, _online
from flashvp.summary import Summary

# Each technique: its name, the fragment that turns it on, and the one its
# paper's Vanilla takes when it is off (None: nothing to put in its place).
CP_TECHNIQUES: dict[str, tuple[str, str, str | None]] = {
    "fs": ("FlashShare (all of it: XLER)", "flashshare/parts/xler", "composed/parts/vanilla-cache"),
    "fd": ("FastDrain (buffer and host)", "composed/parts/fastdrain", None),
    "df": ("DeepFlash's firmware", "deepflash/parts/firmware", "composed/parts/manylayered"),
    "rw": ("read/write queue isolation 3:1", "composed/parts/rwiso", None),
}
CP_ORDER = tuple(CP_TECHNIQUES)
# The pairs the issue names as likely to interact: FastDrain's foreground drain
# against FlashShare's latency-critical reads, DeepFlash's DIOS against dual
# SQs, isolation queues against KernelOpt's bypass.
CP_PAIRS = [("fs", "fd"), ("fs", "df"), ("fs", "rw")]
CP_VANILLA = "vanilla"
CP_ALL = "+".join(CP_ORDER)
# A latency-critical read's stages (the online workers' reads), in path order.
CP_STAGES = ("host_submit", "blk_mq", "accel", "driver_queue", "sq_wait", "fetch", "firmware", "flash", "data_dma",
             "cq_post", "interrupt", "wakeup")
CP_MIN_P99 = 1000  # no p99 from fewer responses
VARIANT = "server"  # the Z-SSD runs; the sensitivity runs' variants are drive=<name>

# The sensitivity check (full scale only): the composed Vanilla and all four
# on the drive each other paper used, as --set over the Z-SSD's keys. The
# readers' and writer's regions move below 170 GiB so that every drive holds
# them (DeepFlash's array at the paper's 1k blocks a die has 187 GiB).
CP_RELOCATE = {"workload.reader.offset": "130g", "workload.writer.offset": "160g"}
CP_DRIVES: dict[str, tuple[str, dict[str, Any]]] = {
    "tlc": ("FastDrain's TLC drive with its 512 MB buffer (fastdrain/base)",
            {"ssd.flash.packages_per_channel": 4, "ssd.flash.dies_per_package": 2, "ssd.flash.planes_per_die": 2,
             "ssd.flash.page_size": "8KiB", "ssd.flash.block_size": "1536KiB", "ssd.flash.cell": "tlc-fastdrain",
             "ssd.flash.scheduler": "fifo", "ssd.ftl.map_unit": "4KiB", "ssd.ftl.gc.migration": "read_program",
             "ssd.dram.size": "2GiB", "ssd.cache.size": "512MiB"}),
    "mlc": ("the isolation study's Intel 750-like MLC drive, in-order SQ fetch (rwiso/base)",
            {"ssd.flash.channels": 18, "ssd.flash.packages_per_channel": 1, "ssd.flash.dies_per_package": 2,
             "ssd.flash.planes_per_die": 2, "ssd.flash.page_size": "4KiB", "ssd.flash.block_size": "1MiB",
             "ssd.flash.blocks_per_plane": 12288, "ssd.flash.cell": "mlc", "ssd.flash.bus_rate": "400MT/s",
             "ssd.cache.size": "256MiB", "ssd.nvme.in_order_fetch": "true"}),
    "deepflash": ("DeepFlash's 16 x 16 quad-die MLC array at the paper's 1k blocks a die (deepflash/base)",
                  {"ssd.flash.packages_per_channel": 16, "ssd.flash.dies_per_package": 4,
                   "ssd.flash.planes_per_die": 2, "ssd.flash.blocks_per_plane": 512, "ssd.flash.page_size": "4KiB",
                   "ssd.flash.block_size": "256KiB", "ssd.flash.cell": "mlc", "ssd.flash.bus_rate": "333MT/s",
                   "ssd.dram.bus_width": 64, "ssd.dram.banks": 16, "ssd.cache.size": "512MiB", "pcie.gen": 4}),
}


def drive_sets(drive: str, on: tuple[str, ...] | set[str]) -> dict[str, Any]:
    """A sensitivity run's sets: the drive, the moved regions, and what a technique needs of that drive:
    FD-FTL's LSB-first allocation on the TLC drive with FastDrain on, ManyLayered's one instance a channel."""
    sets = {**CP_RELOCATE, **CP_DRIVES[drive][1]}
    if drive == "tlc" and "fd" in on:
        sets["ssd.ftl.page_alloc"] = "lsb_group"
    if "df" not in on:
        sets["ssd.ftl.shards"] = sets.get("ssd.flash.channels", 16)
    return sets


def config_name(on: tuple[str, ...] | set[str]) -> str:
    return "+".join(t for t in CP_ORDER if t in on) or CP_VANILLA


def preset(on: tuple[str, ...] | set[str]) -> str:
    """The stacked presets of a configuration: the base, each technique's fragment or its Vanilla's."""
    parts = ["composed/base"]
    for t, (_, frag, vanilla) in CP_TECHNIQUES.items():
        if t in on:
            parts.append(frag)
        elif vanilla:
            parts.append(vanilla)
    return ",".join(parts)


def configs() -> list[tuple[str, ...]]:
    """None, each alone, the pairs, each off in turn, all."""
    alone = [(t,) for t in CP_ORDER]
    off = [tuple(u for u in CP_ORDER if u != t) for t in CP_ORDER]
    return [(), *alone, *CP_PAIRS, *off, CP_ORDER]


def _rate(jobs: list[Any], t: float, what: str = "ios") -> float:
    return sum(getattr(j, what) for j in jobs) / t if t else math.nan


def _cp_figures(s: Summary) -> dict[str, Any]:
    f = _online(s)
    if f.get("responses", 0) < CP_MIN_P99:
        f["response_p99"] = math.nan
    t = s.sim_time_s
    f["offline_iops"] = _rate(s.jobs_named("offline"), t)
    f["victim_iops"] = _rate(s.jobs_named("ungzip"), t)
    f["read_iops"] = _rate(s.jobs_named("reader"), t, "reads")
    f["write_iops"] = _rate(s.jobs_named("writer"), t, "writes")
    cpu = s.host.get("cpu", [])
    f["cpu_busy"] = statistics.mean(1 - c["idle_pct"] / 100 for c in cpu) if cpu else math.nan
    # Where a read's time goes, every stage: the online workers' (latency-critical) and the random readers'.
    for key, job in (("lc", "online"), ("rd", "reader")):
        ws = [(j, j.latency("read").count) for j in s.jobs_named(job)]
        n = sum(c for _, c in ws)
        f[f"{key}_reads"] = n
        for st in CP_STAGES:
            f[f"{key}_{st}"] = sum(j.breakdown("read").get(st, 0.0) * c for j, c in ws) / n if n else math.nan
    return f


def _cp_grids(quick: bool) -> Grids:
    runtime = "2s" if quick else "6s"
    base: dict[str, Any] = {"set": {"workload.*.runtime": runtime}}
    runs = [Run(config_name(on), preset(on), VARIANT) for on in configs()]
    grids = {"ablation": (base, runs)}
    if not quick:
        grids["drives"] = (base, [Run(config_name(on), preset(on), f"drive={d}", drive_sets(d, on))
                                  for d in CP_DRIVES for on in ((), CP_ORDER)])
    return grids


def _without(t: str) -> str:
    return config_name(tuple(u for u in CP_ORDER if u != t))


def _cp_effects() -> list[Effect]:
    """Each technique's headline effect as its paper states it, alone (against
    the composed Vanilla) and inside all the others (all against all but it).
    DeepFlash's is ManyLayered below it on random reads: the config is the one
    without DeepFlash."""
    e = []
    for eid, metric in (("fs_mean", "response_mean"), ("fs_p99", "response_p99"), ("fd_p99", "response_p99"),
                        ("rw_read_iops", "read_iops")):
        t = eid[:2]
        e += [Effect(f"{eid}_alone", metric, t, CP_VANILLA, variants=(VARIANT,)),
              Effect(f"{eid}_in_all", metric, CP_ALL, _without(t), variants=(VARIANT,))]
    e += [Effect("df_read_iops_alone", "read_iops", CP_VANILLA, "df", variants=(VARIANT,)),
          Effect("df_read_iops_in_all", "read_iops", _without("df"), CP_ALL, variants=(VARIANT,))]
    return e


# The figures of the ablation and interaction tables: (key, label, unit scale, format).
CP_METRICS = [("response_mean", "online mean response, us", 1, ",.0f"),
              ("response_p99", "online p99 response, us", 1, ",.0f"),
              ("offline_iops", "offline (PageRank) I/Os per s", 1, ",.0f"),
              ("victim_iops", "victimizer (Ungzip) I/Os per s", 1, ",.1f"),
              ("read_iops", "readers' IOPS", 1, ",.0f"),
              ("write_iops", "writer's IOPS", 1, ",.0f"),
              ("cpu_busy", "host CPU busy, %", 100, ".1f")]


def _cell(res: Results, c: str, metric: str, scale: float, fmt: str, variant: str = VARIANT) -> str:
    v = list(res.values(c, variant, metric).values())
    v = [x for x in v if not math.isnan(x)]
    if not v:
        return "n/a"
    m, h = mean_interval([scale * x for x in v])
    if deterministic(v):
        return f"{m:{fmt}} (deterministic)"
    return f"{m:{fmt}}" + ("" if math.isnan(h) else f" ± {h:{fmt}}")


def _changes(res: Results, c: str, ref: str, metric: str, variant: str = VARIANT) -> dict[int, float]:
    mine, base = res.values(c, variant, metric), res.values(ref, variant, metric)
    return {s: mine[s] / base[s] - 1 for s in mine
            if s in base and base[s] and not math.isnan(mine[s]) and not math.isnan(base[s])}


def _pct(v: list[float]) -> str:
    if not v:
        return "n/a"
    m, h = mean_interval(v)
    return format_ours(m, h, len(v), deterministic(v))


def interaction(res: Results, a: str, b: str, metric: str) -> tuple[list[float], list[float], list[float],
                                                                       list[float]]:
    """Per seed: A's and B's effects alone, both together's (each against Vanilla), and the interaction
    e(A+B) - e(A) - e(B): zero when the two add up, negative when together they do better than the sum."""
    ea, eb = _changes(res, a, CP_VANILLA, metric), _changes(res, b, CP_VANILLA, metric)
    eab = _changes(res, config_name((a, b)), CP_VANILLA, metric)
    seeds = sorted(set(ea) & set(eb) & set(eab))
    return ([ea[s] for s in seeds], [eb[s] for s in seeds], [eab[s] for s in seeds],
            [eab[s] - ea[s] - eb[s] for s in seeds])


def _cp_extra(res: Results, out: Path, ctx: dict[str, Any]) -> list[str]:
    import matplotlib.pyplot as plt

    names = [config_name(on) for on in configs()]
    names = [c for c in names if res.values(c, VARIANT, "response_mean")]
    seeds = max((len(res.values(c, VARIANT, "response_mean")) for c in names), default=0)
    fewest = min((min(res.values(c, VARIANT, "responses").values()) for c in names), default=0)
    lines = ["## The ablation, mean over the seeds with its 95% interval", "",
             f"{seeds} seeds a configuration; the fewest online responses in a run: {fewest:,.0f}"
             + (f" (under {CP_MIN_P99:,}: no p99)." if fewest < CP_MIN_P99 else "."), "",
             "| configuration | " + " | ".join(label for _, label, _, _ in CP_METRICS) + " |",
             "| --- |" + " --- |" * len(CP_METRICS)]
    for c in names:
        lines.append(f"| {c} | " + " | ".join(_cell(res, c, k, sc, f) for k, _, sc, f in CP_METRICS) + " |")
    lines.append("")
    # Each technique alone and inside the others, against the same reference without it.
    lines += ["## Each technique alone and inside the others", "",
              "Alone: the technique against the composed Vanilla. In all: all four against the other three. "
              "Per-seed relative change, mean over the seeds with its 95% interval.", "",
              "| technique | figure | alone | in all |", "| --- | --- | --- | --- |"]
    for t in CP_ORDER:
        for k, label, _, _ in CP_METRICS[:5]:
            lines.append(f"| {t} | {label} | {_pct(list(_changes(res, t, CP_VANILLA, k).values()))} | "
                         f"{_pct(list(_changes(res, CP_ALL, _without(t), k).values()))} |")
    lines.append("")
    # The interaction of each pair.
    lines += ["## Interactions of the pairs", "",
              "e(X): the relative change of the figure with X on against the composed Vanilla, per seed. "
              "Interaction = e(A+B) - e(A) - e(B), per seed, mean with its 95% interval: near zero, the two add "
              "up; for a figure where lower is better (response times), negative means they help each other, "
              "positive that they overlap or fight.", "",
              "| pair | figure | e(A) | e(B) | e(A+B) | interaction |", "| --- | --- | --- | --- | --- | --- |"]
    fig, ax = plt.subplots(figsize=(7, 3.6))
    keys = ["response_mean", "response_p99", "read_iops", "victim_iops", "offline_iops"]
    width = 0.8 / len(CP_PAIRS)
    for i, (a, b) in enumerate(CP_PAIRS):
        bars, errs = [], []
        for k in keys:
            label = next(lab for kk, lab, _, _ in CP_METRICS if kk == k)
            ea, eb, eab, inter = interaction(res, a, b, k)
            lines.append(f"| {a}+{b} | {label} | {_pct(ea)} | {_pct(eb)} | {_pct(eab)} | {_pct(inter)} |")
            m, h = mean_interval(inter) if inter else (math.nan, math.nan)
            bars.append(100 * m)
            errs.append(0 if math.isnan(h) else 100 * h)
        ax.bar([x + i * width for x in range(len(keys))], bars, width, yerr=errs, capsize=2, label=f"{a}+{b}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(keys))], [k.replace("_", " ") for k in keys], fontsize=8)
    ax.set_ylabel("e(A+B) - e(A) - e(B), points of %")
    _finish(fig, ax, out / "interactions", f"Interactions of the pairs ({seeds} seeds, 95% interval)", 9)
    lines.append("")
    # Each configuration's online response normalised to Vanilla.
    fig, ax = plt.subplots(figsize=(max(7, 0.55 * len(names)), 3.8))
    for j, k in enumerate(("response_mean", "response_p99")):
        ms = [mean_interval(list(_changes(res, c, CP_VANILLA, k).values())) for c in names]
        ax.bar([x + 0.4 * j for x in range(len(names))], [1 + m for m, _ in ms], 0.4,
               yerr=[0 if math.isnan(h) else h for _, h in ms], capsize=2, label=k.replace("response_", ""))
    ax.set_xticks([x + 0.2 for x in range(len(names))], names, rotation=50, ha="right", fontsize=7)
    ax.set_ylabel("online response / Vanilla")
    _finish(fig, ax, out / "ablation", f"Online response per configuration ({seeds} seeds, 95% interval; "
            f"fewest responses {fewest:,.0f})", 8)
    lines += _drives(res)
    lines += _stages(res, names, out, "lc", "lc-read-stages", "a latency-critical read",
                     "The online workers' reads")
    lines += _stages(res, names, out, "rd", "reader-read-stages", "a random read",
                     "The isolation study's readers' reads")
    return lines


def _drives(res: Results) -> list[str]:
    """The sensitivity check: the composed Vanilla and all four on each other paper's drive."""
    drives = [d for d in CP_DRIVES if res.values(CP_VANILLA, f"drive={d}", "response_mean")]
    if not drives:
        return []
    rows = ["| drive | figure | composed Vanilla | all four | change |", "| --- | --- | --- | --- | --- |"]
    for d in drives:
        v = f"drive={d}"
        n = min(min(res.values(c, v, "responses").values()) for c in (CP_VANILLA, CP_ALL))
        for k, label, sc, f in CP_METRICS:
            if k == "response_p99" and n < CP_MIN_P99:
                continue
            ends = " | ".join(_cell(res, c, k, sc, f, v) for c in (CP_VANILLA, CP_ALL))
            rows.append(f"| {d} | {label} | {ends} | {_pct(list(_changes(res, CP_ALL, CP_VANILLA, k, v).values()))} |")
    return ["## The papers' own drives (sensitivity)", "",
            "The two ends of the ablation on each other paper's drive, the readers' and writer's regions moved "
            "below 170 GiB; FD-FTL's LSB-first allocation is on with FastDrain on the TLC drive. Drives: " +
            "; ".join(f"{d}, {CP_DRIVES[d][0]}" for d in drives) + ".", "", *rows, ""]


def _stages(res: Results, names: list[str], out: Path, key: str, figure: str, what: str, whose: str) -> list[str]:
    """A table and a stacked bar of where `what`'s time goes per configuration (figures `key`_<stage>)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(7, 0.55 * len(names)), 3.8))
    bottom = [0.0] * len(names)
    rows = ["| configuration | reads | " + " | ".join(CP_STAGES) + " |", "| --- | --- |" + " --- |" * len(CP_STAGES)]
    table: dict[str, list[str]] = {c: [] for c in names}
    for st in CP_STAGES:
        vals = []
        for c in names:
            v = [x for x in res.values(c, VARIANT, f"{key}_{st}").values() if not math.isnan(x)]
            vals.append(statistics.mean(v) if v else 0.0)
            table[c].append(f"{vals[-1]:.1f}")
        ax.bar(range(len(names)), vals, bottom=bottom, label=st)
        bottom = [x + y for x, y in zip(bottom, vals, strict=True)]
    for c in names:
        n = sum(res.values(c, VARIANT, f"{key}_reads").values())
        rows.append(f"| {c} | {n:,.0f} | " + " | ".join(table[c]) + " |")
    ax.set_xticks(range(len(names)), names, rotation=50, ha="right", fontsize=7)
    ax.set_ylabel(f"us per read ({what})")
    _finish(fig, ax, out / figure, f"Where {what}'s time goes (mean over seeds)", 9, ncol=3)
    return [f"## Where {what}'s time goes, us, mean over the seeds", "",
            f"{whose}, every stage of the request record (docs/outputs.md); reads: over all seeds.", "", *rows, ""]


STUDY = Study("composed", "The four techniques on one server (FlashVP's own study)", _cp_grids, _cp_figures,
              _cp_effects(), extra=_cp_extra,
              doc_sections=("The ablation", "Each technique alone", "Interactions of the pairs",
                            "The papers' own drives", "Where a latency-critical read's time goes",
                            "Where a random read's time goes"))
