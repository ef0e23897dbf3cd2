# SPDX-License-Identifier: BSD-3-Clause
"""flashvp collect: one table of a sweep's results.

One row per point and job: the point's key, status and seed, the swept
parameters as columns (as the grid gives them), the job's name and its
figures flattened by pandas.json_normalize, lists of records by index
(``latency_us.read.p99``, ``breakdown_us.read.flash``, ``iops``), the
jobs' sums (``iops_all_jobs``, ``bandwidth_MBps_all_jobs``, the same on
each of the point's rows), then the run's figures, flattened
from summary.json's schema_version 2 layout (a version 1 file is read as
version 2): ``drives.0.device.read_commands``, ``drives.1.ftl.host_page_writes``,
``host.cpu.1.user_pct``, ``accelerators.0.accel.merges``,
``counters.host.polls``. A figure named like a swept parameter (the page
cache's ``host.pagecache.dirty_ratio``) is ``summary.<name>``: the
parameter's column keeps its name. A failed point has one row with its
status and no figures.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from flashvp.summary import SchemaError as SchemaError  # re-exported: collect's callers catch it
from flashvp.summary import load_summary as load_summary

# Not figures: the units of counters, and identification already in columns.
_SKIP_TOP = {"jobs", "counter_units", "git_revision", "schema_version"}


def _indexed(value: Any) -> Any:
    """What json_normalize does not do: a list of dicts (drives, cores) as
    a dict by index, so it flattens to ``drives.0.name``; any other list (a
    series of numbers, an empty list) left out."""
    if isinstance(value, dict):
        return {str(k): _indexed(v) for k, v in value.items()
                if not isinstance(v, list) or (v and all(isinstance(e, dict) for e in v))}
    if isinstance(value, list):
        return {str(i): _indexed(v) for i, v in enumerate(value)}
    return value


def flatten(value: dict[str, Any]) -> dict[str, Any]:
    """Nested dicts (and lists of dicts, by index) as dotted keys, by
    pandas.json_normalize; lists of numbers (time series) are left out."""
    return {str(k): v for k, v in pd.json_normalize(_indexed(value), sep=".").to_dict("records")[0].items()}


# The prefixes the job's and the run's figures are nested under until
# json_normalize has flattened them; then they go, or become "summary."
# where a figure is named like a column before it.
_JOB, _RUN = "\0job", "\0run"


def point_rows(folder: Path) -> list[dict[str, Any]]:
    """The point's rows, nested: its columns, then its job's figures under
    _JOB and the run's under _RUN (flattened by collect)."""
    rec = json.loads((folder / "point.json").read_text())
    try:
        status = json.loads((folder / "status.json").read_text())
    except (OSError, ValueError):
        status = {"status": "incomplete"}
    base = {"point": rec["key"], "status": status.get("status"), "seed": rec["seed"], **rec["params"]}
    if base["status"] != "ok":
        return [base]
    s = load_summary(folder / "summary.json")
    run = _indexed({k: v for k, v in s.items() if k not in _SKIP_TOP})
    jobs = s.get("jobs", [])
    # fio's aggregate: the jobs' IOPS and bandwidth summed, on each of the point's rows.
    total = {"iops_all_jobs": sum(j.get("iops", 0.0) for j in jobs),
             "bandwidth_MBps_all_jobs": sum(j.get("bandwidth_MBps", 0.0) for j in jobs)}
    return [{**base, "job": job.get("name"), **total, _JOB: _indexed({k: v for k, v in job.items() if k != "name"}),
             _RUN: run} for job in jobs] or [base]


def _flat_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The rows flattened by one json_normalize; the job's and the run's
    figures under their own names, or summary.<name> where a column before
    them (a swept parameter, say) has that name."""
    df = pd.json_normalize(rows, sep=".")
    names: dict[str, str] = {}
    taken = {c for c in df.columns if not c.startswith((_JOB + ".", _RUN + "."))}
    for prefix in (_JOB, _RUN):
        for c in df.columns:
            if c.startswith(prefix + "."):
                name = c[len(prefix) + 1:]
                names[c] = name if name not in taken else f"summary.{name}"
                taken.add(names[c])
    return df.rename(columns=names)


def collect(sweep_dir: str) -> pd.DataFrame:
    root = Path(sweep_dir)
    folders = sorted(p.parent for p in (root / "points").glob("*/point.json"))
    if not folders:
        raise FileNotFoundError(f"{root}: no points (expected {root}/points/<key>/point.json from flashvp sweep)")
    order = []  # the grid's order when the sweep left one
    try:
        order = json.loads((root / "grid.json").read_text())["points"]
    except (OSError, ValueError, KeyError):
        pass
    rank = {k: i for i, k in enumerate(order)}
    folders.sort(key=lambda f: (rank.get(f.name, len(rank)), f.name))
    df = _flat_table([r for f in folders for r in point_rows(f)])
    for c in df.columns:  # a column of mixed kinds (3us and 4) is text, for Parquet
        kinds = {type(v) for v in df[c].dropna()}
        if len(kinds) > 1 and not kinds <= {int, float}:
            df[c] = df[c].map(lambda v: v if pd.isna(v) else str(v))
    return df


def write_table(df: pd.DataFrame, base: Path) -> list[Path]:
    base.parent.mkdir(parents=True, exist_ok=True)
    pq, csv = base.with_suffix(".parquet"), base.with_suffix(".csv")
    df.to_parquet(pq, index=False)
    df.to_csv(csv, index=False)
    return [pq, csv]


def read_table(path: str) -> pd.DataFrame:
    p = Path(path)
    if p.is_dir():
        p = p / "results.parquet"
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such table (flashvp collect writes results.parquet and results.csv)")
    return pd.read_parquet(p) if p.suffix == ".parquet" else pd.read_csv(p)
