# SPDX-License-Identifier: BSD-3-Clause
"""flashvp repro STUDY: one of the four papers' evaluations, run through the
sweep tool and compared with the paper's own numbers.

Each study (flashvp/studies.py) gives its runs as sweep grids over the
presets in platforms/server/presets/<study>/, a function from one run's
summary.json to its figures of merit, and the headline effects the paper
states (flashvp/data/papers.yaml, each with its figure, section and page).
repro writes DIR/<study>/: the grids and their runs (sweeps/<grid>/, reused
by a later repro into the same folder), results.csv (one row per run:
configuration, variant, seed, figures), effects.csv, report.md and the
figures (PNG and SVG) with the paper's values drawn beside ours.

An effect is a relative change of a figure, configuration against
reference, computed per seed (and per variant, such as an application
pair, then averaged over the variants), then averaged over the seeds with
a 95% Student t interval. It is in the paper's direction when its sign is
the paper's and its interval excludes zero ("unclear" when it holds zero),
and close when it is within a third of the paper's size.
"""
from __future__ import annotations

import json
import math
import statistics
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable

import pandas as pd
import yaml

from flashvp.plot import interval


class ReproError(RuntimeError):
    """The study cannot run or be reported; says why."""


@dataclass
class Run:
    """One configuration of a study in one variant: a preset plus sets."""

    config: str  # the paper's name of the studied system (vanilla, xler, ...)
    preset: str
    variant: str = ""  # application pair, access pattern, ...
    sets: dict[str, str] = field(default_factory=dict)


@dataclass
class Effect:
    """A headline effect: the paper's figure and how ours is computed."""

    id: str  # the id in papers.yaml
    metric: str  # a key of Study.figures()' result
    config: str
    reference: str | None = None  # a config; None for a threshold
    variants: tuple[str, ...] | None = None  # restrict to these variants (None: every variant both have)
    reference_variant: Callable[[str], str] | None = None  # the reference's variant for a variant of config
    threshold: float | None = None  # "above" effects
    within: float | None = None  # "no change" effects: |ours| <= within


@dataclass
class Study:
    name: str
    title: str
    grids: Callable[[bool], dict[str, tuple[dict, list[Run]]]]  # quick -> {grid: (base, runs)}
    figures: Callable[[dict], dict[str, float]]  # summary.json -> figures of merit
    effects: list[Effect]
    seeds: int = 3
    extra: Callable[["Results", Path, dict], list[str]] | None = None  # more figures and report lines


def papers() -> dict:
    return yaml.safe_load(resources.files("flashvp").joinpath("data/papers.yaml").read_text())


# ----------------------------------------------------------------------------
# Running


def grid_document(base: dict, runs: list[Run], seeds: int) -> dict:
    """A sweep grid with one point per run (preset and sets) and `seeds` seeds."""
    return {"description": "written by flashvp repro", "base": base, "axes": {"points": grid_points(runs)},
            "seeds": seeds}


@dataclass
class Results:
    """Each run's figures: rows of config, variant, seed, figures."""

    rows: list[dict]
    summaries: dict[tuple[str, str, int], Path]  # (config, variant, seed) -> run folder

    def values(self, config: str, variant: str, metric: str) -> dict[int, float]:
        return {r["seed"]: r[metric] for r in self.rows
                if r["config"] == config and r["variant"] == variant and metric in r and r[metric] is not None}

    def variants(self, config: str) -> list[str]:
        seen = []
        for r in self.rows:
            if r["config"] == config and r["variant"] not in seen:
                seen.append(r["variant"])
        return seen


def run_study(study: Study, out: Path, server: str, quick: bool, jobs: int | None, scheduler: str | None,
              cluster: str | None, stream=None, only: list[str] | None = None) -> Results:
    from flashvp.sweep import print_failures, sweep

    stream = stream or sys.stderr
    rows, where = [], {}
    for gname, (base, runs) in study.grids(quick).items():
        if only:
            runs = [r for r in runs if r.variant in only]
            if not runs:
                continue
        gdir = out / "sweeps" / gname
        gdir.mkdir(parents=True, exist_ok=True)
        gfile = gdir / "grid.yaml"
        gfile.write_text(yaml.safe_dump(grid_document(base, runs, study.seeds), sort_keys=False))
        stream.write(f"{study.name}: {gname} ({len(runs)} configurations x {study.seeds} seeds)\n")
        report = sweep(str(gfile), str(gdir), server, jobs=jobs, scheduler=scheduler, cluster=cluster, stream=stream)
        if report.failed:
            print_failures(report, stream)
            raise ReproError(f"{len(report.failed)} runs of {study.name}/{gname} failed (see above); "
                             f"their folders are under {gdir}/points/")
        index = {_canon(q): r for q, r in zip(grid_points(runs), runs)}
        for p in report.points:
            r = index[_canon(_point_params(p))]
            folder = gdir / "points" / p.key
            summary = json.loads((folder / "summary.json").read_text())
            figs = study.figures(summary)
            rows.append({"grid": gname, "config": r.config, "variant": r.variant, "seed": p.seed, **figs})
            where[(r.config, r.variant, p.seed)] = folder
    return Results(rows, where)


def grid_points(runs: list[Run]) -> list[dict]:
    return [{"preset": r.preset, **{k: str(v) for k, v in r.sets.items()}} for r in runs]


def _point_params(p) -> dict:
    return {k: str(v) for k, v in p.params}


def _canon(d: dict) -> str:
    return json.dumps({k: str(v) for k, v in d.items()}, sort_keys=True)


# ----------------------------------------------------------------------------
# Effects


def mean_interval(v: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval (nan for fewer than two values)."""
    m, h, n = interval(pd.Series(v, dtype=float))
    return m, h if n > 1 else math.nan


def effect_samples(res: Results, e: Effect) -> list[float]:
    """Per seed: the change of the metric (config against reference), averaged over the variants; for a
    threshold effect, the config's value averaged over its variants."""
    per_seed: dict[int, list[float]] = {}
    variants = e.variants or tuple(res.variants(e.config))
    for v in variants:
        mine = res.values(e.config, v, e.metric)
        if e.reference is None:
            for s, x in mine.items():
                per_seed.setdefault(s, []).append(x)
            continue
        ref = res.values(e.reference, e.reference_variant(v) if e.reference_variant else v, e.metric)
        for s, x in mine.items():
            if s in ref and ref[s]:
                per_seed.setdefault(s, []).append(x / ref[s] - 1)
    return [statistics.mean(x) for _, x in sorted(per_seed.items())]


def judge(e: Effect, paper_change: float | None, ours: float, half: float = math.nan) -> tuple[str, str]:
    """(in the paper's direction?, within a third of its size?): yes / no,
    and "unclear" for a direction whose 95% interval (half-width `half`)
    holds zero."""
    if math.isnan(ours):
        return "-", "-"
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    if e.threshold is not None:
        return yes(ours > e.threshold), "-"
    if e.within is not None:
        return yes(abs(ours) <= e.within), yes(abs(ours) <= e.within)
    want_negative = paper_change is None or paper_change < 0  # None: "below", no number
    if ours == 0 or (not math.isnan(half) and abs(ours) <= half):
        direction = "unclear"
    else:
        direction = yes((ours < 0) == want_negative)
    if paper_change is None:
        return direction, "-"
    return direction, yes(abs(ours - paper_change) <= abs(paper_change) / 3)


def evaluate(study: Study, res: Results) -> list[dict]:
    data = {e["id"]: e for e in papers()[study.name]["effects"]}
    out = []
    for e in study.effects:
        p = data.get(e.id)
        if p is None:
            raise ReproError(f"{study.name}: effect {e.id} is not in flashvp/data/papers.yaml")
        samples = effect_samples(res, e)
        m, h = mean_interval(samples)
        paper = p.get("change")
        if e.threshold is not None:
            paper = None
        direction, close = judge(e, paper, m, h)
        out.append({"id": e.id, "metric": e.metric, "config": e.config, "reference": e.reference or "",
                    "paper": paper, "paper_text": _paper_text(p, e), "source": p.get("source", ""),
                    "ours": m, "interval": h, "seeds": len(samples),
                    "ratio": (m / paper) if paper not in (None, 0) and not math.isnan(m) else math.nan,
                    "direction": direction, "within_third": close})
    return out


def _paper_text(p: dict, e: Effect) -> str:
    if e.threshold is not None:
        return f"above {e.threshold:,.0f}"
    if e.within is not None:
        return f"within ±{100 * e.within:.0f}%"
    if p.get("change") is None:
        return "below"
    return f"{100 * p['change']:+.1f}%"


# ----------------------------------------------------------------------------
# Report and figures


def _fmt(e: dict) -> str:
    m, h = e["ours"], e["interval"]
    if math.isnan(m):
        return "n/a"
    if e["paper_text"].startswith("above"):
        return f"{m:,.0f} ± {h:,.0f}" if not math.isnan(h) else f"{m:,.0f}"
    return f"{100 * m:+.1f}% ± {100 * h:.1f}" if not math.isnan(h) else f"{100 * m:+.1f}%"


def write_report(study: Study, res: Results, effects: list[dict], out: Path, quick: bool, lines: list[str],
                 only: list[str] | None = None) -> Path:
    paper = papers()[study.name]
    only_text = f" --only {','.join(only)}" if only else ""
    md = [f"# {study.title}: reproduction", "",
          f"Paper: {paper['paper']}.", "",
          f"Written by `flashvp repro {study.name}{' --quick' if quick else ''}{only_text}`: {len(res.rows)} runs "
          f"({study.seeds} seeds each). Ours is the mean over the seeds of the per-seed change, with a 95% "
          "Student t interval; \"direction\" says whether its sign is the paper's (\"unclear\": its interval "
          "holds zero), \"within a third\" whether it is within a third of the paper's size of it."
          + (" **Quick scale**: shorter runs, fewer variants; directions only." if quick else ""), "",
          "| effect | paper | source | ours | seeds | ours / paper | direction | within a third |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for e in effects:
        ratio = "" if math.isnan(e["ratio"]) else f"{e['ratio']:.2f}"
        md.append(f"| {e['id']} | {e['paper_text']} | {e['source']} | {_fmt(e)} | {e['seeds']} | {ratio} | "
                  f"{e['direction']} | {e['within_third']} |")
    md += ["", *lines, ""]
    path = out / "report.md"
    path.write_text("\n".join(md))
    return path


def effects_figure(study: Study, effects: list[dict], out: Path) -> list[Path]:
    """The relative effects, the paper's bars beside ours (with their intervals)."""
    import matplotlib.pyplot as plt

    from flashvp.plot import save

    rel = [e for e in effects if e["paper"] is not None and not e["paper_text"].startswith("above")]
    if not rel:
        return []
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rel) + 2), 4))
    xs = range(len(rel))
    ax.bar([x - 0.2 for x in xs], [100 * e["paper"] for e in rel], 0.4, label="paper", color="#bbbbbb")
    ax.bar([x + 0.2 for x in xs], [100 * e["ours"] for e in rel], 0.4, label="FlashVP",
           yerr=[0 if math.isnan(e["interval"]) else 100 * e["interval"] for e in rel], capsize=3, color="#1f77b4")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(list(xs), [e["id"] for e in rel], rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("change against the reference, %")
    n = min((e["seeds"] for e in rel), default=0)
    ax.set_title(f"{study.title}: headline effects (ours: mean of {n} seeds, 95% interval)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out / "effects")


def repro(study_name: str, out: str, server: str, quick: bool = False, jobs: int | None = None,
          scheduler: str | None = None, cluster: str | None = None, stream=None,
          only: list[str] | None = None) -> Path:
    """Runs the study (only the runs of the variants in `only`, when given) and writes its outputs."""
    from flashvp.studies import STUDIES

    if study_name not in STUDIES:
        raise ReproError(f"no study {study_name!r} (known: {', '.join(STUDIES)})")
    study = STUDIES[study_name]
    folder = Path(out) / study.name
    folder.mkdir(parents=True, exist_ok=True)
    if only:
        known = {r.variant for _, runs in study.grids(quick).values() for r in runs}
        unknown = [v for v in only if v not in known]
        if unknown:
            raise ReproError(f"--only {','.join(unknown)}: no such variant of {study.name} "
                             f"(known: {', '.join(sorted(known))})")
    res = run_study(study, folder, server, quick, jobs, scheduler, cluster, stream, only)
    pd.DataFrame(res.rows).to_csv(folder / "results.csv", index=False)
    effects = evaluate(study, res)
    pd.DataFrame(effects).to_csv(folder / "effects.csv", index=False)
    effects_figure(study, effects, folder)
    lines = study.extra(res, folder, {"quick": quick, "effects": effects}) if study.extra else []
    return write_report(study, res, effects, folder, quick, lines, only)
