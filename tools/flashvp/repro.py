# SPDX-License-Identifier: BSD-3-Clause
"""flashvp repro STUDY: one of the four papers' evaluations, run through the
sweep tool and compared with the paper's own numbers.

Each study (a module of flashvp/studies/) gives its runs as sweep grids
over the presets in platforms/presets/<study>/, a function from one
run's summary.json (flashvp.summary) to its figures of merit, and the
headline effects the paper states (flashvp/data/papers.yaml, each with
its figure, section and page). repro writes DIR/<study>/: the grids and
their runs (sweeps/<grid>/, reused by a later repro into the same
folder), results.csv (one row per run: configuration, variant, seed,
figures), effects.csv, report.md and the figures (PNG and SVG) with the
paper's values drawn beside ours.

An effect is a relative change of a figure, configuration against
reference, computed per seed (and per variant, such as an application
pair, then averaged over the variants), then averaged over the seeds with
a 95% Student t interval. It is in the paper's direction when its sign is
the paper's and its interval excludes zero ("unclear" when it holds zero),
and close when it is within a third of the paper's size. A figure that
every seed gives alike is reported as deterministic, not as an interval
of zero.

With --update-docs PAGE, the report's figures also replace the block of
PAGE between <!-- quick:begin --> and <!-- quick:end --> (full scale:
full:begin / full:end), so a study page quotes the build's own numbers.
"""
from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import pandas as pd
import yaml

from flashvp.grid import Point
from flashvp.studies import STUDIES
# The study types and effect arithmetic, importable from here as before.
from flashvp.studies.base import (Effect, Results, Run, Study, deterministic, effect_samples, format_ours, judge,
                                  mean_interval, papers)
from flashvp.summary import Summary


class ReproError(RuntimeError):
    """The study cannot run or be reported; says why."""


# ----------------------------------------------------------------------------
# Running


def grid_document(base: dict[str, Any], runs: list[Run], seeds: int) -> dict[str, Any]:
    """A sweep grid with one point per run (preset and sets) and `seeds` seeds."""
    return {"description": "written by flashvp repro", "base": base, "axes": {"points": grid_points(runs)},
            "seeds": seeds}


def run_study(study: Study, out: Path, server: str, quick: bool, jobs: int | None, scheduler: str | None,
              cluster: str | None, stream: TextIO | None = None, only: list[str] | None = None) -> Results:
    from flashvp.sweep import print_failures, sweep

    stream = stream or sys.stderr
    rows, where, revisions = [], {}, set()
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
        report = sweep(str(gfile), str(gdir), server, jobs=jobs, scheduler=scheduler, cluster=cluster, stream=stream,
                       desc=f"{study.name}/{gname}")
        if report.failed:
            print_failures(report, stream)
            raise ReproError(f"{len(report.failed)} runs of {study.name}/{gname} failed (see above); "
                             f"their folders are under {gdir}/points/")
        if report.busy:  # another repro or sweep into this folder runs them: no summary to read yet
            print_failures(report, stream)
            raise ReproError(f"{len(report.busy)} runs of {study.name}/{gname} are running in another flashvp; "
                             "run repro again once it ends")
        index = {_canon(q): r for q, r in zip(grid_points(runs), runs, strict=True)}
        for p in report.points:
            r = index[_canon(_point_params(p))]
            folder = gdir / "points" / p.key
            summary = Summary.load(folder / "summary.json")
            revisions.add(summary.git_revision)
            figs = study.figures(summary)
            rows.append({"grid": gname, "config": r.config, "variant": r.variant, "seed": p.seed, **figs})
            where[(r.config, r.variant, p.seed)] = folder
    return Results(rows, where, revisions)


def grid_points(runs: list[Run]) -> list[dict[str, Any]]:
    return [{"preset": r.preset, **{k: str(v) for k, v in r.sets.items()}} for r in runs]


def _point_params(p: Point) -> dict[str, Any]:
    return {k: str(v) for k, v in p.params}


def _canon(d: dict[str, Any]) -> str:
    return json.dumps({k: str(v) for k, v in d.items()}, sort_keys=True)


# ----------------------------------------------------------------------------
# Effects


def evaluate(study: Study, res: Results) -> list[dict[str, Any]]:
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
                    "compares": p.get("compares") or _compares(e),
                    "paper": paper, "paper_text": _paper_text(p, e), "source": p.get("source", ""),
                    "ours": m, "interval": h, "seeds": len(samples), "deterministic": deterministic(samples),
                    "ratio": (m / paper) if paper not in (None, 0) and not math.isnan(m) else math.nan,
                    "direction": direction, "within_third": close})
    return out


def _compares(e: Effect) -> str:
    return f"{e.config} / {e.reference}" if e.reference else e.config


def _paper_text(p: dict[str, Any], e: Effect) -> str:
    if e.threshold is not None:
        return f"above {e.threshold:,.0f}"
    if e.within is not None:
        return f"within ±{100 * e.within:.0f}%"
    if p.get("change") is None:
        return "below"
    return f"{100 * p['change']:+.1f}%"


# ----------------------------------------------------------------------------
# Report and figures


def _fmt(e: dict[str, Any]) -> str:
    return format_ours(e["ours"], e["interval"], e["seeds"], bool(e.get("deterministic")),
                       absolute=e["paper_text"].startswith("above"))


def _effects_table(effects: list[dict[str, Any]]) -> list[str]:
    md = ["| effect | compares | paper | source | ours | seeds | ours / paper | direction | within a third |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for e in effects:
        ratio = "" if math.isnan(e["ratio"]) else f"{e['ratio']:.2f}"
        md.append(f"| {e['id']} | {e['compares']} | {e['paper_text']} | {e['source']} | {_fmt(e)} | {e['seeds']} | "
                  f"{ratio} | {e['direction']} | {e['within_third']} |")
    return md


def write_report(study: Study, res: Results, effects: list[dict[str, Any]], out: Path, quick: bool, lines: list[str],
                 only: list[str] | None = None) -> Path:
    paper = papers()[study.name]
    only_text = f" --only {','.join(only)}" if only else ""
    md = [f"# {study.title}: reproduction", "",
          f"Paper: {paper['paper']}.", "",
          f"Written by `flashvp repro {study.name}{' --quick' if quick else ''}{only_text}`: {len(res.rows)} runs "
          f"({study.seeds} seeds each). Ours is the mean over the seeds of the per-seed change, with a 95% "
          "Student t interval, or \"deterministic\" when every seed gave the same value; \"compares\" names "
          "the configuration and its reference; \"direction\" says whether its sign is the paper's "
          "(\"unclear\": its interval holds zero), \"within a third\" whether it is within a third of the "
          "paper's size of it."
          + (" **Quick scale**: shorter runs, fewer variants; directions only." if quick else ""), "",
          *_effects_table(effects)]
    md += ["", *lines, ""]
    path = out / "report.md"
    path.write_text("\n".join(md))
    return path


# ----------------------------------------------------------------------------
# A study page's block of figures, written from the report


def doc_markers(quick: bool) -> tuple[str, str]:
    scale = "quick" if quick else "full"
    return f"<!-- {scale}:begin -->", f"<!-- {scale}:end -->"


def check_page(page: Path, quick: bool) -> str:
    """The page's text; ReproError unless it has the block's two markers, once each, in order."""
    begin, end = doc_markers(quick)
    try:
        text = page.read_text()
    except OSError as e:
        raise ReproError(f"--update-docs {page}: {e.strerror}") from None
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ReproError(f"--update-docs {page}: needs one line {begin} and, after it, one line {end} around "
                         f"the block to write")
    return text


def _verdicts(effects: list[dict[str, Any]]) -> list[str]:
    """Which effects went which way, named, so that no prose has to summarise them by hand."""
    def names(pred: Callable[[dict[str, Any]], Any]) -> str:
        return ", ".join(e["id"] for e in effects if pred(e)) or "none"

    out = [f"In the paper's direction: {names(lambda e: e['direction'] == 'yes')}.",
           f"Interval holds zero (unclear): {names(lambda e: e['direction'] == 'unclear')}.",
           f"Against the paper: {names(lambda e: e['direction'] == 'no')}."]
    if any(e["within_third"] == "yes" for e in effects):
        out.append(f"Within a third of the paper's size: {names(lambda e: e['within_third'] == 'yes')}.")
    if any(e.get("deterministic") for e in effects):
        out.append(f"Deterministic (every seed gave the same value): {names(lambda e: e.get('deterministic'))}.")
    return out


def _sections(lines: list[str], wanted: tuple[str, ...]) -> list[str]:
    """The report's sections whose heading starts with one of `wanted`, each up to the next heading, their
    headings as bold lines (the page has headings of its own)."""
    picked, keep = [], False
    for line in lines:
        if line.startswith("## "):
            keep = line[3:].startswith(wanted)
            if keep:
                picked += ["", f"**{line[3:]}**", ""]
            continue
        if keep:
            picked.append(line)
    out: list[str] = []
    for line in picked:  # one blank line between paragraphs, none at the ends
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


def doc_block(study: Study, res: Results, effects: list[dict[str, Any]], lines: list[str], quick: bool,
              page: str) -> list[str]:
    """The lines between a page's markers: how they were made, the effects table, which way each went, and
    the study's `doc_sections` of the report."""
    scale = " --quick" if quick else ""
    revs = ", ".join(sorted(res.revisions)) or "unknown"
    block = [f"<!-- Written by `flashvp repro {study.name}{scale} --update-docs {page}`: rerun it, do not edit "
             f"by hand. -->",
             f"`flashvp repro {study.name}{scale}` with vp-server {revs}: {len(res.rows)} runs ({study.seeds} "
             f"seeds each). Ours is the mean over the seeds of the per-seed change with its 95% Student t "
             f"interval, or \"deterministic\" when every seed gave the same value.", "",
             *_effects_table(effects), "", *_verdicts(effects)]
    more = _sections(lines, study.doc_sections) if study.doc_sections else []
    return block + ([""] + more if more else [])


def update_page(page: Path, block: list[str], quick: bool) -> None:
    """Replaces what lies between the page's markers with `block`; the rest of the page is kept as it is."""
    text = check_page(page, quick)
    begin, end = doc_markers(quick)
    head, rest = text.split(begin)
    tail = rest.split(end)[1]
    page.write_text(f"{head}{begin}\n" + "\n".join(block) + f"\n{end}{tail}")


def effects_figure(study: Study, effects: list[dict[str, Any]], out: Path) -> list[Path]:
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
    # A bar with no interval because no seed changes it says so, rather than look like an interval of zero.
    for x, e in zip(xs, rel, strict=True):
        if e.get("deterministic"):
            ax.annotate("det.", (x + 0.2, 100 * e["ours"]), ha="center", va="bottom" if e["ours"] >= 0 else "top",
                        fontsize=7)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(list(xs), [e["id"] for e in rel], rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("change against the reference, %")
    n = min((e["seeds"] for e in rel), default=0)
    det = "; det.: the same in every seed" if any(e.get("deterministic") for e in rel) else ""
    ax.set_title(f"{study.title}: headline effects\n(ours: mean of {n} seeds, 95% interval{det})", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out / "effects")


def repro(study_name: str, out: str, server: str, quick: bool = False, jobs: int | None = None,
          scheduler: str | None = None, cluster: str | None = None, stream: TextIO | None = None,
          only: list[str] | None = None, update_docs: str | None = None) -> Path:
    """Runs the study (only the runs of the variants in `only`, when given) and writes its outputs; with
    `update_docs`, the block of that study page for this scale too."""
    from flashvp.sweep import writable_folder

    if study_name not in STUDIES:
        raise ReproError(f"no study {study_name!r} (known: {', '.join(STUDIES)})")
    study = STUDIES[study_name]
    if update_docs:
        if only:  # a page's block covers the whole study at its scale
            raise ReproError("--update-docs writes the whole study's figures: not with --only")
        check_page(Path(update_docs), quick)  # before the runs, not minutes later
    folder = Path(out) / study.name
    writable_folder(folder, "sweeps")  # a read-only --out: one line, before anything runs
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
    report = write_report(study, res, effects, folder, quick, lines, only)
    if update_docs:
        page = Path(update_docs)
        shown = f"docs/{page.name}" if page.resolve().parent.name == "docs" else str(page)
        update_page(page, doc_block(study, res, effects, lines, quick, shown), quick)
    return report
