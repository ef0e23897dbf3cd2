# SPDX-License-Identifier: BSD-3-Clause
"""DeepFlash (FAST'20): many-core flash firmware against layered designs:
IOPS per pattern, core count, request size and skew, queue allocation, the
lock variants and the CACHE stage (docs/study-deepflash.md)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from flashvp.studies.base import Effect, Grids, Results, Run, Study, mean_interval
from flashvp.studies.common import _finish, statistics_mean
from flashvp.summary import Summary

DF_CONFIGS = ["layered", "manylayered", "basedeepflash", "deepflash"]
# DeepFlash itself is the top-level preset (deepflash/base with
# deepflash/parts/firmware); the other configurations live in deepflash/.
DF_PRESET = "deepflash"


def _preset(config: str) -> str:
    return DF_PRESET if config == "deepflash" else f"deepflash/{config}"
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
DF_LOCKS: dict[str, dict[str, Any]] = {"page-lock": {"ssd.fw.ilock.range": "4KiB", "ssd.fw.ilock.forwarding": "false"},
            "ilock-base": {"ssd.fw.ilock.forwarding": "false"},
            "ilock-forwd": {},
            "ilock-1mb": {"ssd.fw.ilock.range": "1MiB", "ssd.fw.ilock.forwarding": "false"}}
DF_CACHE: dict[str, dict[str, Any]] = {"no-cache": {"ssd.fw.threads.cache": 0, "ssd.cache.organisation": "none"},
            **{f"cache-{n}": {"ssd.fw.threads.cache": n, "ssd.fw.cache_bypass": "false"} for n in (1, 2, 4)},
            "2-bypass": {}}


def _df_drive_iops(s: Summary) -> float:
    """The drive's throughput: every job's I/Os over the longest job's runtime
    (the jobs start together). Not the sum of the jobs' own IOPS: that counts
    each job at its own rate, and where the jobs' rates differ (ManyLayered's
    static queues: up to 64% apart) it reads above what the drive did."""
    jobs = s.jobs
    longest = max((j.runtime_s for j in jobs), default=0.0)
    return sum(j.ios for j in jobs) / longest if longest > 0 else 0.0


def _df_figures(s: Summary) -> dict[str, Any]:
    ps = s.sim_time_s * 1e12
    nvmq = s.fw_threads("nvmq")
    working = [t.items for t in nvmq if t.items]
    iops = _df_drive_iops(s)
    return {"iops": iops,
            # Fig 16a: NVMQ threads busy on average (not waiting for a lock or for work)
            "active_nvmq": sum(t.busy_ps for t in nvmq) / ps if nvmq else math.nan,
            # Fig 15b: IOPS per NVMQ thread that took work, and their spread (max - min) / max
            "nvmq_iops": iops / len(working) if working else math.nan,
            "nvmq_spread": (max(working) - min(working)) / max(working) if working else math.nan}


def _df_grids(quick: bool) -> Grids:
    # Time-based runs: every job issues for the same time, as the paper's 16
    # host workers "keep issuing I/O requests, so that the NVMe queues are not
    # depleted" (sec. 6) and its figures are the device's throughput. With a
    # fixed number of I/Os per job the fast jobs finish first and the drive
    # runs its last stretch on the slow jobs' queues alone. The lengths are
    # about the time DeepFlash took for 2,000 / 10,000 random reads per job.
    base = {"set": {"workload.*.number_ios": "0", "workload.*.time_based": "1",
                    "workload.*.runtime": "30ms" if quick else "150ms"}}
    runs = [Run(c, _preset(c), p, {"workload.*.rw": rw}) for p, rw in DF_PATTERNS.items() for c in DF_CONFIGS]
    grids = {"patterns": (base, runs)}
    if not quick:
        cores = [Run("deepflash", DF_PRESET, f"{p}-cores={n}", {"workload.*.rw": DF_PATTERNS[p],
                                                                              "ssd.fw.cores": n})
                 for p in ("rndrd", "rndwr") for n in DF_CORES]
        skew = [Run(c, _preset(c), f"rndrd-{d}", {"workload.*.random_distribution": d})
                for d in DF_SKEW for c in ("manylayered", "deepflash")]
        # The paper's microbenchmarks run 4-32 KB requests (sec. 6): random reads by size.
        sizes = [Run(c, _preset(c), f"rndrd-bs={b}", {"workload.*.rw": "randread", "workload.*.bs": b})
                 for b in DF_SIZES for c in DF_CONFIGS[1:]]
        grids["cores"] = (base, cores)
        grids["skew"] = (base, skew)
        grids["sizes"] = (base, sizes)
    queues = DF_QUEUES if not quick else [1, 16]
    grids["queues"] = (base, [Run(c, DF_PRESET, f"rndrd-queues={q}",
                                  {**DF_IDEAL_HOST, "host.cores": q, "ssd.fw.dispatch": d})
                              for q in queues
                              for c, d in (("deepflash", "dios"), ("deepflash-static-queues", "per_sq"))])
    locks = DF_LOCKS if not quick else {k: DF_LOCKS[k] for k in ("page-lock", "ilock-1mb")}
    cache = DF_CACHE if not quick else {k: DF_CACHE[k] for k in ("no-cache", "cache-1")}
    grids["ilock"] = (base, [Run(c, DF_PRESET, p, {"workload.*.rw": DF_PATTERNS[p], **sets})
                             for p in ("rndrd", "rndwr") for c, sets in locks.items()])
    grids["cache"] = (base, [Run(c, DF_PRESET, p, {"workload.*.rw": DF_PATTERNS[p], **sets})
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


def _df_extra(res: Results, out: Path, ctx: dict[str, Any]) -> list[str]:
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


STUDY = Study("deepflash", "DeepFlash (FAST'20)", _df_grids, _df_figures, _df_effects(), extra=_df_extra,
              doc_sections=("IOPS per pattern", "DeepFlash against", "Random reads by request size", "Skew",
                            "Queue allocation", "Fig 16a", "Fig 16b"))
