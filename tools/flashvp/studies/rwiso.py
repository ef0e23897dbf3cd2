# SPDX-License-Identifier: BSD-3-Clause
"""Read/write queue isolation (IMCOM'17): blk-mq's queues split into read
and write queues against stock Linux and FQueue, the readers' IOPS per
read:write mix (docs/study-rwiso.md)."""
from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

from flashvp.studies.base import (Effect, Grids, Results, Run, Study, deterministic, effect_samples, format_ours,
                                  judge, mean_interval, papers)
from flashvp.studies.common import _finish, statistics_mean
from flashvp.summary import Summary

RW_MIX = {"3to1": (6, 2), "1to1": (4, 4), "1to3": (2, 6)}


def _rw_figures(s: Summary) -> dict[str, Any]:
    t = s.sim_time_s
    per = [j.reads / t for j in s.jobs_named("reader")]
    f = {"read_iops": sum(per), "write_iops": sum(j.writes for j in s.jobs_named("writer")) / t,
         "read_iops_stddev": statistics.pstdev(per) if per else math.nan}
    f.update({f"reader{k}_iops": x for k, x in enumerate(per)})
    return f


def _mix(r: int, w: int) -> dict[str, Any]:
    return {"workload.reader.numjobs": r, "workload.writer.numjobs": w}


def _rw_grids(quick: bool) -> Grids:
    runtime = "1s" if quick else "2s"
    base = {"set": {"workload.*.runtime": runtime}}
    runs = [Run("baseline", "rwiso/base", "3to1"), Run("fqueue", "rwiso/fqueue", "3to1"),
            Run("rwiso-3to1", "rwiso/rwiso-3to1", "3to1"),
            Run("rwiso-1to1", "rwiso/rwiso-1to1", "1to1"), Run("baseline", "rwiso/base", "1to1", _mix(4, 4)),
            Run("rwiso-1to3", "rwiso/rwiso-1to3", "1to3"), Run("baseline", "rwiso/base", "1to3", _mix(2, 6)),
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


def _rw_extra(res: Results, out: Path, ctx: dict[str, Any]) -> list[str]:
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
        rows = ["| effect | paper | source | ours | direction | within a third |",
                "| --- | --- | --- | --- | --- | --- |"]
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


STUDY = Study("rwiso", "Read/write queue isolation (IMCOM'17)", _rw_grids, _rw_figures, _rw_effects(), extra=_rw_extra,
              doc_sections=("IOPS per configuration", "The paper's secondary effects"))
