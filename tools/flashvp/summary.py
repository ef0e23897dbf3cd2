# SPDX-License-Identifier: BSD-3-Clause
"""summary.json (docs/outputs.md) as typed values: the one module that names
its keys and counters.

load_summary checks the layout's schema_version. Summary wraps the loaded
dict and reads it on access, so a hand-written summary needs only the keys
its reader uses: a key the layout always has raises KeyError when missing,
an optional one reads as its field's default (nan, 0 or None).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Generic, NamedTuple, TypeVar

from flashvp import SUMMARY_SCHEMA_VERSIONS


class SchemaError(ValueError):
    """A summary.json this package cannot read."""


def load_summary(path: Path) -> dict:
    try:
        s = json.loads(Path(path).read_text())
    except OSError as e:
        raise SchemaError(f"{path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise SchemaError(f"{path}: not JSON ({e})") from None
    v = s.get("schema_version") if isinstance(s, dict) else None
    if v not in SUMMARY_SCHEMA_VERSIONS:
        raise SchemaError(f"{path}: schema_version {v!r}; this flashvp reads "
                          f"{', '.join(map(str, SUMMARY_SCHEMA_VERSIONS))} (docs/outputs.md)")
    return s


def _record(cls, d: dict):
    """A `cls` dataclass from the keys of `d` that its fields name (other keys ignored)."""
    return cls(**{f.name: d[f.name] for f in fields(cls) if f.name in d})


@dataclass(frozen=True)
class Latency:
    """A job's latency_us.read|write, or an online server's response_us: microseconds, exact percentiles."""

    count: int
    mean: float
    p99: float
    min: float = math.nan
    p50: float = math.nan
    p90: float = math.nan
    p95: float = math.nan
    p999: float = math.nan
    max: float = math.nan


@dataclass(frozen=True)
class ResponseParts:
    """One scope of response_parts_us: the responses in it and the mean us of each part (they add up)."""

    count: int = 0
    network: float = math.nan
    queue: float = math.nan
    io: float = math.nan
    compute: float = math.nan

    def times(self) -> dict[str, float]:
        return {p: getattr(self, p) for p in RESPONSE_PARTS}


RESPONSE_PARTS = tuple(f.name for f in fields(ResponseParts))[1:]  # after count


@dataclass(frozen=True)
class Online:
    """An online server's responses (jobs[].online, carried by worker 0's job)."""

    response: Latency
    parts_all: ResponseParts  # over every response
    parts_tail: ResponseParts  # over the responses at or above the p99

    @classmethod
    def of(cls, d: dict) -> Online:
        parts = d.get("response_parts_us", {})
        return cls(_record(Latency, d["response_us"]), _record(ResponseParts, parts.get("all", {})),
                   _record(ResponseParts, parts.get("p99_and_above", {})))


T = TypeVar("T")


class _Key(Generic[T]):
    """A key of the wrapped dict, read as the attribute of its name (KeyError when the run did not write it)."""

    def __set_name__(self, owner, name: str) -> None:
        self.key = name

    def __get__(self, obj, owner=None) -> T:
        return self if obj is None else obj._d[self.key]


class _View:
    """Typed reads of one dict of the summary, on access."""

    def __init__(self, d: dict):
        self._d = d


class Job(_View):
    """One entry of jobs[]."""

    name = _Key[str]()
    ios = _Key[int]()
    reads = _Key[int]()
    writes = _Key[int]()
    runtime_s = _Key[float]()

    def latency(self, op: str) -> Latency:
        return _record(Latency, self._d["latency_us"][op])

    def breakdown(self, op: str) -> dict[str, float]:
        """The mean us per I/O of `op` in each stage (docs/outputs.md's table)."""
        return self._d["breakdown_us"][op]

    @property
    def online(self) -> Online | None:
        d = self._d.get("online")
        return None if d is None else Online.of(d)


@dataclass(frozen=True)
class Device:
    """The I/O commands as the controller decoded them."""

    read_commands: int
    write_commands: int


@dataclass(frozen=True)
class Ftl:
    """The FTL's page counts (None: the run's FTL does not report it)."""

    host_page_writes: int | None = None
    wasted_pages: int | None = None  # skipped unprogrammed by LSB-first allocation


class Level(NamedTuple):
    """One step of the write buffer's level series."""

    time_us: float
    max_pages: int
    end_pages: int


@dataclass(frozen=True)
class WriteBuffer:
    """FastDrain's write buffer level (empty when the drive has none)."""

    capacity_pages: int | None = None
    series: list[Level] = field(default_factory=list)


class CacheReads(NamedTuple):
    hits: int
    misses: int


@dataclass(frozen=True)
class FwThread:
    """A firmware thread's counters."""

    name: str  # nvmq0, trans1, ...
    items: int  # work items it took
    busy_ps: int  # its time busy (not waiting for a lock or for work)


_FW_THREAD, _ITEMS, _BUSY = "ssd.fw.thread.", ".items", ".busy_ps"


class Summary(_View):
    """One run's summary.json."""

    sim_time_s = _Key[float]()

    @classmethod
    def load(cls, path: Path) -> Summary:
        return cls(load_summary(path))

    @property
    def git_revision(self) -> str:
        return self._d.get("git_revision", "unknown")

    @property
    def jobs(self) -> list[Job]:
        return [Job(j) for j in self._d["jobs"]]

    def jobs_named(self, prefix: str) -> list[Job]:
        """The job called `prefix` and its clones (prefix.0, prefix.1, ...)."""
        return [j for j in self.jobs if j.name == prefix or j.name.startswith(prefix + ".")]

    @property
    def online(self) -> Online | None:
        """The first online server's responses, if a job is one."""
        return next((o for o in (j.online for j in self.jobs) if o is not None), None)

    @property
    def device(self) -> Device:
        return _record(Device, self._d["device"])

    @property
    def ftl(self) -> Ftl:
        return _record(Ftl, self._d.get("ftl", {}))

    @property
    def write_buffer(self) -> WriteBuffer:
        wb = _record(WriteBuffer, self._d.get("write_buffer", {}))
        return replace(wb, series=[Level(*step) for step in wb.series])

    # Counters, by their full names (docs/reference/statistics.md)

    @property
    def _counters(self) -> dict:
        return self._d["counters"]

    def cache_reads(self, cls: str) -> CacheReads:
        """The SSD cache's read hits and misses of one class (lat, thr), 0 without that class."""
        c = self._counters
        return CacheReads(c.get(f"ssd.cache.{cls}.read_hits", 0), c.get(f"ssd.cache.{cls}.read_misses", 0))

    @property
    def context_switches(self) -> int:
        return self._counters.get("host.context_switches", 0)

    def fw_threads(self, kind: str) -> list[FwThread]:
        """The firmware threads whose names start with `kind` (nvmq, trans, ...), in the counters' order."""
        c = self._counters
        names = [k[len(_FW_THREAD):-len(_ITEMS)] for k in c if k.startswith(_FW_THREAD + kind) and k.endswith(_ITEMS)]
        return [FwThread(t, c[_FW_THREAD + t + _ITEMS], c[_FW_THREAD + t + _BUSY]) for t in names]
