# SPDX-License-Identifier: BSD-3-Clause
"""What flashvp repro and the studies share: a study's runs, headline
effects and the Study itself, the results table of its runs, the papers'
numbers (flashvp/data/papers.yaml) and the effect arithmetic (what an
effect is and how it is judged: flashvp/repro.py's docstring)."""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from flashvp.plot import interval
from flashvp.summary import Summary


@dataclass
class Run:
    """One configuration of a study in one variant: a preset plus sets."""

    config: str  # the paper's name of the studied system (vanilla, xler, ...)
    preset: str
    variant: str = ""  # application pair, access pattern, ...
    sets: dict[str, Any] = field(default_factory=dict)  # --set values (str() of each)


# A study's sweep grids: name -> (the grid's base, its runs).
Grids = dict[str, tuple[dict[str, Any], list[Run]]]


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
    grids: Callable[[bool], Grids]  # quick -> {grid: (base, runs)}
    figures: Callable[[Summary], dict[str, float]]  # one run's summary.json -> figures of merit
    effects: list[Effect]
    seeds: int = 3
    extra: Callable[[Results, Path, dict[str, Any]], list[str]] | None = None  # more figures and report lines
    doc_sections: tuple[str, ...] = ()  # the report sections (heading starts) a study page's block carries too


def papers() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(resources.files("flashvp").joinpath("data/papers.yaml").read_text())
    return data


@dataclass
class Results:
    """Each run's figures: rows of config, variant, seed, figures."""

    rows: list[dict[str, Any]]
    summaries: dict[tuple[str, str, int], Path]  # (config, variant, seed) -> run folder
    revisions: set[str] = field(default_factory=set)  # the vp-server builds' git revisions (summary.json)

    def values(self, config: str, variant: str, metric: str) -> dict[int, float]:
        return {r["seed"]: r[metric] for r in self.rows
                if r["config"] == config and r["variant"] == variant and metric in r and r[metric] is not None}

    def variants(self, config: str) -> list[str]:
        seen = []
        for r in self.rows:
            if r["config"] == config and r["variant"] not in seen:
                seen.append(r["variant"])
        return seen


# ----------------------------------------------------------------------------
# Effects


def mean_interval(v: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval (nan for fewer than two values)."""
    m, h, n = interval(pd.Series(v, dtype=float))
    return m, h if n > 1 else math.nan


def deterministic(samples: list[float]) -> bool:
    """Every seed gave the same value: the figure does not depend on the
    seed, so a "95% interval" of zero width would misstate it."""
    return len(samples) > 1 and all(x == samples[0] for x in samples)


def format_ours(m: float, h: float, seeds: int, det: bool, absolute: bool = False) -> str:
    """Ours as the report prints it: a relative change in % (an absolute
    figure when `absolute`) with its 95% interval, or marked deterministic."""
    if math.isnan(m):
        return "n/a"
    scale, digits = (1, 0) if absolute else (100, 1)
    if not det and not math.isnan(h) and 0 < scale * h < 0.5 * 10 ** -digits:
        # An interval that is small but not zero keeps one significant digit rather than print as "± 0".
        digits = -math.floor(math.log10(scale * h))
    value = f"{m:,.{digits}f}" if absolute else f"{100 * m:+.{digits}f}%"
    if det:
        return f"{value} (deterministic: identical over {seeds} seeds)"
    if math.isnan(h):
        return value
    return f"{value} ± {scale * h:,.{digits}f}"


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
    def yes(b: bool) -> str:
        return "yes" if b else "no"

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
