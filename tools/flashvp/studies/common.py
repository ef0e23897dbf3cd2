# SPDX-License-Identifier: BSD-3-Clause
"""What the study modules share: the online server's figures of merit, the
ratio to Vanilla, the mean over seeds and how a figure is finished."""
from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashvp.studies.base import Results
from flashvp.summary import Summary

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _online(s: Summary) -> dict[str, Any]:
    """The online server's response times (worker 0's job carries them) and
    where they went, over all responses and over the p99 tail."""
    o = s.online
    if o is None:
        return {}
    r = o.response
    f = {"response_mean": r.mean, "response_p99": r.p99, "response_max": r.max, "responses": r.count}
    for key, parts in (("resp", o.parts_all), ("tail", o.parts_tail)):
        f.update({f"{key}_{part}": x for part, x in parts.times().items()})
    f["tail_responses"] = o.parts_tail.count
    return f


def _finish(fig: Figure, ax: Axes, path: Path, title: str, fontsize: int, legend: bool = True, ncol: int = 1) -> None:
    """Titles the figure, adds its legend and writes it as PNG and SVG."""
    from flashvp.plot import save

    ax.set_title(title, fontsize=fontsize)
    if legend:
        ax.legend(fontsize=7, ncol=ncol)
    fig.tight_layout()
    save(fig, path)


def _ratio(res: Results, c: str, v: str, metric: str) -> list[float]:
    mine, base = res.values(c, v, metric), res.values("vanilla", v, metric)
    return [mine[s] / base[s] for s in mine if s in base and base[s]]


def statistics_mean(d: Mapping[Any, float]) -> float:
    v = list(d.values())
    return sum(v) / len(v) if v else math.nan
