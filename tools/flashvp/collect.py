# SPDX-License-Identifier: BSD-3-Clause
"""flashvp collect: one table of a sweep's results.

One row per point and job: the point's key, status and seed, the swept
parameters as columns (as the grid gives them), the job's name and its
figures flattened (``latency_us.read.p99``, ``breakdown_us.read.flash``,
``iops``), the jobs' sums (``iops_all_jobs``, ``bandwidth_MBps_all_jobs``,
the same on each of the point's rows), then the run's figures, flattened
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

import pandas as pd

from flashvp.summary import SchemaError, load_summary  # noqa: F401 (SchemaError re-exported)

# Not figures: the units of counters, and identification already in columns.
_SKIP_TOP = {"jobs", "counter_units", "git_revision", "schema_version"}


def flatten(value, prefix: str = "", out: dict | None = None) -> dict:
    """Nested dicts (and lists of dicts, by index) as dotted keys; lists of
    numbers (time series) are left out."""
    out = {} if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            for i, v in enumerate(value):
                flatten(v, f"{prefix}.{i}", out)
    elif prefix:
        out[prefix] = value
    return out


def point_rows(folder: Path) -> list[dict]:
    rec = json.loads((folder / "point.json").read_text())
    try:
        status = json.loads((folder / "status.json").read_text())
    except (OSError, ValueError):
        status = {"status": "incomplete"}
    base = {"point": rec["key"], "status": status.get("status"), "seed": rec["seed"], **rec["params"]}
    if base["status"] != "ok":
        return [base]
    s = load_summary(folder / "summary.json")
    run = flatten({k: v for k, v in s.items() if k not in _SKIP_TOP})
    rows = []
    # fio's aggregate: the jobs' IOPS and bandwidth summed, on each of the point's rows.
    total = {"iops_all_jobs": sum(j.get("iops", 0.0) for j in s.get("jobs", [])),
             "bandwidth_MBps_all_jobs": sum(j.get("bandwidth_MBps", 0.0) for j in s.get("jobs", []))}
    for job in s.get("jobs", []):
        figures = flatten({k: v for k, v in job.items() if k != "name"})
        row = dict(base)
        row["job"] = job.get("name")
        row.update(total)
        for k, v in list(figures.items()) + list(run.items()):
            row[k if k not in row else f"summary.{k}"] = v
        rows.append(row)
    return rows or [base]


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
    rows = [r for f in folders for r in point_rows(f)]
    df = pd.DataFrame(rows)
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
