# SPDX-License-Identifier: BSD-3-Clause
"""flashvp plot: a results table as lines, bars, CDFs or boxes, written as
PNG and SVG. Lines and bars are means over the rows of each (hue, x) --
the seeds of a point -- with a 95% Student t interval; the title carries
the number of runs per mean and, for a latency percentile, the fewest
samples any run's percentile came from."""
from __future__ import annotations

import math
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from flashvp.units import UnitError, parse_quantity  # noqa: E402

KINDS = ("line", "bar", "cdf", "box")

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


class PlotError(ValueError):
    """A plot that cannot be drawn from the table; names the column."""


def t95(n: int) -> float:
    return _T95[n - 2] if 2 <= n <= 31 else 1.96


def interval(values: pd.Series) -> tuple[float, float, int]:
    """Mean, half-width of its 95% interval (0 for one value), count."""
    v = values.dropna().astype(float)
    n = len(v)
    if n == 0:
        return math.nan, 0.0, 0
    if n == 1:
        return float(v.iloc[0]), 0.0, 1
    return float(v.mean()), t95(n) * float(v.std(ddof=1)) / math.sqrt(n), n


def numeric_axis(col: pd.Series) -> tuple[pd.Series, str]:
    """A column of numbers, or of values with one kind of unit (3us,
    4KiB) in the first value's unit; the unit for the axis label."""
    if pd.api.types.is_numeric_dtype(col):
        return col.astype(float), ""
    try:
        qs = [parse_quantity(v) for v in col]
    except UnitError:
        return col, ""
    if len({q.dimension for q in qs}) != 1:
        return col, ""
    unit = qs[0].unit
    return pd.Series([float(q.in_unit(unit).value) for q in qs], index=col.index), unit


def _need(df: pd.DataFrame, *cols: str | None) -> None:
    for c in cols:
        if c and c not in df.columns:
            near = [k for k in df.columns if c.split(".")[0] in k][:10]
            raise PlotError(f"no column {c!r} in the table" + (f" (similar: {', '.join(near)})" if near else ""))


def _samples_note(df: pd.DataFrame, y: str) -> str:
    m = re.match(r"^(.*latency_us\.(?:read|write))\.p\d+$", y) or re.match(r"^(.*response_us)\.p\d+$", y)
    if not m:
        return ""
    count = m.group(1) + ".count"
    if count not in df.columns:
        count = re.sub(r"response_us$", "requests", m.group(1))
    if count not in df.columns or df[count].dropna().empty:
        return ""
    return f"; fewest samples per run {int(df[count].min()):,}"


def plot_table(df: pd.DataFrame, x: str | None, y: str, hue: str | None = None, kind: str = "line",
               job: str | None = None, title: str | None = None, logx: bool = False, logy: bool = False,
               by: str | None = None):
    """The figure of `y` against `x` (one series per `hue`); rows of other
    jobs are dropped when `job` is given. With `by` (line and bar plots),
    the rows of each value of `by` -- a swept parameter -- make one point
    at the mean of `x` and the mean of `y`, each with its interval: a
    latency-load curve is ``x=iops, y=latency_us.read.mean, by=<qd>``."""
    if kind not in KINDS:
        raise PlotError(f"--kind {kind!r}: expected one of {', '.join(KINDS)}")
    if job is not None:
        _need(df, "job")
        df = df[df["job"] == job]
        if df.empty:
            raise PlotError(f"--job {job!r}: no rows of that job")
    if "status" in df.columns:
        df = df[df["status"] == "ok"]
    _need(df, y, hue, by, x if kind != "cdf" else None)
    if by and kind != "line":
        raise PlotError("--by goes with --kind line")
    if kind != "cdf" and not x:
        raise PlotError(f"--kind {kind} needs --x")
    df = df.dropna(subset=[y])
    if df.empty:
        raise PlotError(f"no rows with a value of {y!r}")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    groups = [(None, df)] if not hue else list(df.groupby(hue, sort=True))
    note = ""
    if by:
        runs = []
        for h, g in groups:
            pts = []
            for _, b in g.groupby(by, sort=True):
                (mx, ex, _), (my, ey, n) = interval(b[x]), interval(b[y])
                pts.append((mx, my, ex, ey))
                runs.append(n)
            pts.sort()
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], xerr=[p[2] for p in pts],
                        yerr=[p[3] for p in pts], marker="o", capsize=3, label=f"{hue}={h}" if hue else y)
        ax.set_xlabel(f"{x} (mean per {by})")
        ax.set_ylabel(y)
        note = f"mean of {min(runs)}-{max(runs)} runs per {by}, 95% intervals" if max(runs) > 1 else "one run each"
    elif kind in ("line", "bar"):
        xs, unit = numeric_axis(df[x])
        df = df.assign(_x=xs)
        groups = [(None, df)] if not hue else list(df.groupby(hue, sort=True))
        cats = sorted(df["_x"].unique())
        width = 0.8 / max(1, len(groups))
        runs = []
        for i, (h, g) in enumerate(groups):
            stats = [interval(g[g["_x"] == v][y]) for v in cats]
            keep = [(c, s) for c, s in zip(cats, stats) if s[2]]
            cx = [c for c, _ in keep]
            means = [s[0] for _, s in keep]
            errs = [s[1] for _, s in keep]
            runs += [s[2] for _, s in keep]
            label = f"{hue}={h}" if hue else y
            if kind == "line":
                ax.errorbar(cx, means, yerr=errs, marker="o", capsize=3, label=label)
            else:
                pos = [cats.index(c) + (i - (len(groups) - 1) / 2) * width for c in cx]
                ax.bar(pos, means, width=width, yerr=errs, capsize=3, label=label)
        if kind == "bar":
            ax.set_xticks(range(len(cats)), [f"{c:g}" if isinstance(c, float) else str(c) for c in cats])
        ax.set_xlabel(f"{x} ({unit})" if unit else x)
        ax.set_ylabel(y)
        note = f"mean of {min(runs)}-{max(runs)} runs, 95% interval" if runs and max(runs) > 1 else "one run each"
    elif kind == "cdf":
        for h, g in groups:
            v = g[y].astype(float).sort_values().to_numpy()
            ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post",
                    label=f"{hue}={h} (n={len(v)})" if hue else f"n={len(v)}")
        ax.set_xlabel(y)
        ax.set_ylabel("fraction of rows")
        note = "CDF over rows"
    else:
        xs, unit = numeric_axis(df[x])
        df = df.assign(_x=xs)
        cats = sorted(df["_x"].unique())
        data = [df[df["_x"] == c][y].astype(float).to_numpy() for c in cats]
        ax.boxplot(data, tick_labels=[f"{c:g}" if isinstance(c, float) else str(c) for c in cats])
        ax.set_xlabel(f"{x} ({unit})" if unit else x)
        ax.set_ylabel(y)
        note = f"{min(len(d) for d in data)}-{max(len(d) for d in data)} runs per box"
    if kind != "box" and (hue or kind == "cdf"):
        ax.legend(fontsize="small")
    if logx and kind in ("line", "cdf"):
        ax.set_xscale("log", base=2 if kind == "line" else 10)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.set_title(title or f"{y}" + (f" ({job})" if job else ""), fontsize="medium")
    fig.text(0.01, 0.01, note + _samples_note(df, y), fontsize="x-small", color="0.35")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def save(fig, base: Path) -> list[Path]:
    """`base`.png and `base`.svg."""
    base = Path(base)
    if base.suffix in (".png", ".svg"):
        base = base.with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    # Column names hold dots: add the suffix, do not replace what follows the last dot.
    paths = [base.with_name(base.name + ".png"), base.with_name(base.name + ".svg")]
    for p in paths:
        fig.savefig(p, dpi=120)
    plt.close(fig)
    return paths
