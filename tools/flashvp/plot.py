# SPDX-License-Identifier: BSD-3-Clause
"""flashvp plot: a results table as lines, bars, CDFs or boxes, written as
PNG and SVG. Lines and bars are means over the rows of each (hue, x) --
the seeds of a point -- with a 95% Student t interval (scipy.stats.t); the
note under the plot carries the number of runs per mean and, for a
latency percentile, the fewest samples any run's percentile came from.

An axis whose column is one of vp-server's parameters is labelled with the
parameter's description (``--list-params --json``) and the values' unit;
series and categories are in natural order (3us before 20us); log axes
have their ticks at powers of two (queue depths, sizes) or at decades."""
from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.axis import Axis  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402
from natsort import natsorted  # noqa: E402

from flashvp.units import BUILTIN, UnitError, UnitTable, parse_quantity  # noqa: E402

if TYPE_CHECKING:
    from flashvp.server import Param

KINDS = ("line", "bar", "cdf", "box")


class PlotError(ValueError):
    """A plot that cannot be drawn from the table; names the column."""


def t95(n: int) -> float:
    """The two-sided 95% quantile of Student's t for `n` values (n - 1 degrees of freedom)."""
    from scipy import stats  # here: scipy.stats takes a while to import, and only plots need it

    return float(stats.t.ppf(0.975, n - 1))


def interval(values: pd.Series[Any]) -> tuple[float, float, int]:
    """Mean, half-width of its 95% interval (0 for one value), count."""
    v = values.dropna().astype(float)
    n = len(v)
    if n == 0:
        return math.nan, 0.0, 0
    if n == 1:
        return float(v.iloc[0]), 0.0, 1
    return float(v.mean()), t95(n) * float(v.std(ddof=1)) / math.sqrt(n), n


def numeric_axis(col: pd.Series[Any], units: UnitTable = BUILTIN) -> tuple[pd.Series[Any], str]:
    """A column of numbers, or of values with one kind of unit (3us,
    4KiB) in the first value's unit; the unit for the axis label."""
    if pd.api.types.is_numeric_dtype(col):
        return col.astype(float), ""
    try:
        qs = [parse_quantity(v, units) for v in col]
    except UnitError:
        return col, ""
    if len({q.dimension for q in qs}) != 1:
        return col, ""
    unit = qs[0].unit
    return pd.Series([float(q.in_unit(unit).value) for q in qs], index=col.index), unit


def natural(values: Iterable[Any], units: UnitTable = BUILTIN) -> list[Any]:
    """The distinct values (NaN left out) in natural order: by quantity
    when all are numbers or values of one kind of unit (500ns before 3us),
    else natsort's (host2 before host10)."""
    vals = list(dict.fromkeys(v for v in values if not (isinstance(v, float) and math.isnan(v)) and v is not None))
    try:
        qs = [parse_quantity(v, units) for v in vals]
        if len({q.dimension for q in qs}) <= 1:
            return [v for _, _, v in sorted(((q.base, i, v) for i, (q, v) in enumerate(zip(qs, vals, strict=True))))]
    except UnitError:
        pass
    return list(natsorted(vals, key=str))


def _groups(df: pd.DataFrame, col: str | None, units: UnitTable = BUILTIN) -> list[tuple[Any, pd.DataFrame]]:
    """The rows by value of `col`, in natural order; [(None, df)] without a column."""
    if not col:
        return [(None, df)]
    return [(v, df[df[col] == v]) for v in natural(df[col], units)]


def column_label(col: str, unit: str = "", params: Mapping[str, Param] | None = None) -> str:
    """An axis label: a parameter's description (its first clause, without
    remarks in parentheses) and the unit, over the column's name; else the
    column's name and unit."""
    unit_text = f" ({unit})" if unit else ""
    p = params.get(col) if params else None
    if p is None or not p.description:
        return f"{col}{unit_text}"
    text = re.sub(r"\s*\([^)]*\)", "", p.description.split(";")[0]).strip() or p.description
    return f"{textwrap.shorten(text, width=60, placeholder='...')}{unit_text}\n{col}"


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


def _runs(runs: list[int], what: str = "runs") -> str:
    """"3 runs", or "2-3 runs" when the counts differ."""
    lo, hi = min(runs), max(runs)
    return f"{lo} {what}" if lo == hi else f"{lo}-{hi} {what}"


def _plain(v: float, _pos: int | None = None) -> str:
    """A tick label as a plain number: 0.01, 4, 256, 10,000."""
    if v >= 1 and v == int(v):
        return f"{int(v):,}"
    return f"{v:g}"


def _compact(v: float) -> str:
    """A point's label: 55.6k, 1.2M, 36."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:.3g}{suffix}"
    return f"{v:.3g}"


def _powers_of_two(values: Iterable[float]) -> bool:
    vs = [v for v in values if not math.isnan(v)]
    return bool(vs) and all(v > 0 and math.log2(v) == round(math.log2(v)) for v in vs)


def log_axis(ax: Axes, which: str, base: int) -> None:
    """The `which` ("x" or "y") axis on a log scale whose major ticks are
    the powers of `base` in the data (every power of two; decades, with
    ticks at 2-9 between them), labelled as plain numbers; when the data
    span under two decades, the 2 and 5 between them are labelled too."""
    axis: Axis
    if which == "x":
        ax.set_xscale("log", base=base)
        axis = ax.xaxis
    else:
        ax.set_yscale("log", base=base)
        axis = ax.yaxis
    axis.set_major_locator(LogLocator(base=base))
    axis.set_major_formatter(FuncFormatter(_plain))
    if base != 10:
        axis.set_minor_locator(NullLocator())
        return
    axis.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10))))
    lo, hi = sorted(axis.get_view_interval())
    if lo > 0 and hi / lo < 100:
        axis.set_minor_formatter(FuncFormatter(
            lambda v, pos: _plain(v) if round(v / 10 ** math.floor(math.log10(v) + 1e-9)) in (2, 5) else ""))
    else:
        axis.set_minor_formatter(NullFormatter())


def _annotate(ax: Axes, pts: list[tuple[float, float, str]]) -> None:
    """Each point's text above it; consecutive points that fall on one
    spot of the drawn axes (within 1% of its width and height, log scales
    included) get one label, first-last ("8-256")."""
    if not pts:
        return
    where = ax.transAxes.inverted().transform(ax.transData.transform([(p[0], p[1]) for p in pts]))
    runs: list[list[int]] = []
    for i, (px, py) in enumerate(where):
        if runs:
            qx, qy = where[runs[-1][-1]]
            if abs(px - qx) <= 0.01 and abs(py - qy) <= 0.01:
                runs[-1].append(i)
                continue
        runs.append([i])
    for run in runs:
        first, end = pts[run[0]][2], pts[run[-1]][2]
        text = first if first == end else f"{first}-{end}"
        ax.annotate(text, (pts[run[0]][0], pts[run[0]][1]), textcoords="offset points", xytext=(-5, 5),
                    ha="right", va="bottom", fontsize="x-small",
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})


def _text(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def plot_table(df: pd.DataFrame, x: str | None, y: str, hue: str | None = None, kind: str = "line",
               job: str | None = None, title: str | None = None, logx: bool = False, logy: bool = False,
               by: str | None = None, xlabel: str | None = None, ylabel: str | None = None,
               label: str | None = None, params: Mapping[str, Param] | None = None,
               units: UnitTable = BUILTIN) -> Figure:
    """The figure of `y` against `x` (one series per `hue`); rows of other
    jobs are dropped when `job` is given. With `by` (line plots), the rows
    of each value of `by` -- a swept parameter -- make one point at the
    mean of `x` and the mean of `y`, each with its interval, labelled with
    that value: a latency-load curve is ``x=iops,
    y=latency_us.read.mean, by=<qd>``. `label` (line plots): each point
    labelled with the mean of that column instead. `params` (vp-server's,
    flashvp.server.list_params) label the axes of parameters; `xlabel`
    and `ylabel` replace the labels."""
    if kind not in KINDS:
        raise PlotError(f"--kind {kind!r}: expected one of {', '.join(KINDS)}")
    if job is not None:
        _need(df, "job")
        df = df[df["job"] == job]
        if df.empty:
            raise PlotError(f"--job {job!r}: no rows of that job")
    if "status" in df.columns:
        df = df[df["status"] == "ok"]
    _need(df, y, hue, by, label, x if kind != "cdf" else None)
    if by and kind != "line":
        raise PlotError("--by goes with --kind line")
    if label and kind != "line":
        raise PlotError("--label goes with --kind line")
    if kind != "cdf" and not x:
        raise PlotError(f"--kind {kind} needs --x")
    df = df.dropna(subset=[y])
    if df.empty:
        raise PlotError(f"no rows with a value of {y!r}")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    note = ""
    log_x_base = 10
    labels: list[tuple[float, float, str]] = []
    ylab = column_label(y, "", params)
    if by:
        assert x is not None
        runs = []
        for h, g in _groups(df, hue, units):
            pts = []
            for v, b in _groups(g, by, units):
                (mx, ex, _), (my, ey, n) = interval(b[x]), interval(b[y])
                text = _compact(interval(b[label])[0]) if label else _text(v)
                pts.append((mx, my, ex, ey, text))
                runs.append(n)
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], xerr=[p[2] for p in pts],
                        yerr=[p[3] for p in pts], marker="o", capsize=3, label=f"{hue}={h}" if hue else y)
            labels += [(p[0], p[1], p[4]) for p in pts]
        xlab = f"{column_label(x, '', params)} (mean per {by})"
        note = f"mean of {_runs(runs)} per {by}, 95% intervals" if max(runs) > 1 else "one run each"
        note += f"; points labelled with the mean of {label}" if label else f"; points labelled with {by}"
    elif kind in ("line", "bar"):
        assert x is not None
        xs, unit = numeric_axis(df[x], units)
        df = df.assign(_x=xs)
        groups = _groups(df, hue, units)
        cats = natural(df["_x"], units)
        width = 0.8 / max(1, len(groups))
        runs = []
        for i, (h, g) in enumerate(groups):
            stats = [interval(g[g["_x"] == v][y]) for v in cats]
            keep = [(c, s) for c, s in zip(cats, stats, strict=True) if s[2]]
            cx = [c for c, _ in keep]
            means = [s[0] for _, s in keep]
            errs = [s[1] for _, s in keep]
            runs += [s[2] for _, s in keep]
            series_label = f"{hue}={h}" if hue else y
            if kind == "line":
                ax.errorbar(cx, means, yerr=errs, marker="o", capsize=3, label=series_label)
                if label:
                    labels += [(c, m, _compact(interval(g[g["_x"] == c][label])[0])) for c, m in zip(cx, means,
                                                                                                        strict=True)]
            else:
                pos = [cats.index(c) + (i - (len(groups) - 1) / 2) * width for c in cx]
                ax.bar(pos, means, width=width, yerr=errs, capsize=3, label=series_label)
        if kind == "bar":
            ax.set_xticks(range(len(cats)), [_text(c) for c in cats])
        if pd.api.types.is_numeric_dtype(df["_x"]) and _powers_of_two(df["_x"]):
            log_x_base = 2
        xlab = column_label(x, unit, params)
        note = f"mean of {_runs(runs)}, 95% interval" if runs and max(runs) > 1 else "one run each"
        if label:
            note += f"; points labelled with the mean of {label}"
    elif kind == "cdf":
        for h, g in _groups(df, hue, units):
            v = g[y].astype(float).sort_values().to_numpy()
            ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post",
                    label=f"{hue}={h} (n={len(v)})" if hue else f"n={len(v)}")
        xlab, ylab = column_label(y, "", params), "fraction of rows"
        note = "CDF over rows"
    else:
        assert x is not None
        xs, unit = numeric_axis(df[x], units)
        df = df.assign(_x=xs)
        cats = natural(df["_x"], units)
        data = [df[df["_x"] == c][y].astype(float).to_numpy() for c in cats]
        ax.boxplot(data, tick_labels=[_text(c) for c in cats])
        xlab = column_label(x, unit, params)
        note = f"{_runs([len(d) for d in data])} per box"
    if labels:
        ax.margins(x=0.06, y=0.12)  # room for the labels of the points at the edges
    if kind != "box" and (hue or kind == "cdf"):
        ax.legend(fontsize="small")
    ax.set_xlabel(xlabel if xlabel is not None else xlab)
    ax.set_ylabel(ylabel if ylabel is not None else ylab)
    ax.autoscale_view()
    if logx and kind in ("line", "cdf"):
        log_axis(ax, "x", log_x_base if kind == "line" and not by else 10)
    if logy:
        log_axis(ax, "y", 10)
    _annotate(ax, labels)
    ax.grid(True, alpha=0.3)
    ax.set_title(title or f"{y}" + (f" ({job})" if job else ""), fontsize="medium")
    fig.text(0.01, 0.01, note + _samples_note(df, y), fontsize="x-small", color="0.35")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def save(fig: Figure, base: Path) -> list[Path]:
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

