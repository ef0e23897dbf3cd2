# SPDX-License-Identifier: BSD-3-Clause
"""summary.json (docs/outputs.md) as typed values: the one module that names
its keys and counters.

load_summary checks the layout's schema_version and gives every reader
schema_version 3: the run's sections grouped by the platform's parts
(``host``, ``drives[]``, ``accelerators[]``, ``switches[]``), and a job's
``breakdown_us`` only for the directions it did, stages in path order. A
version 1 file (flat sections: ``device``, ``ftl``, ``ssd1.ftl``, ``cpu``,
``accel``, ...) is regrouped by upgrade_v1, and a version 2 file's
breakdowns are trimmed by upgrade_v2, so points of a sweep run before the
changes read like new ones. Summary wraps the loaded dict and reads it on access, so
a hand-written summary needs only the keys its reader uses: a key the layout
always has raises KeyError when missing, an optional one reads as its
field's default (nan, 0 or None). The first drive's sections (``device``,
``ftl``, ``write_buffer``) read drives[0].

This module imports the standard library only (bench/same-results.py uses
upgrade_to_current without the package's dependencies).
"""
from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar, cast, overload

from flashvp import SUMMARY_SCHEMA_VERSIONS


class SchemaError(ValueError):
    """A summary.json this package cannot read."""


def load_summary(path: Path) -> dict[str, Any]:
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
    return upgrade_to_current(s)


def upgrade_to_current(d: dict[str, Any]) -> dict[str, Any]:
    """A summary of any version this package reads, in the current layout (3);
    `d` is left as it is."""
    if d.get("schema_version") == 1:
        d = upgrade_v1(d)
    return upgrade_v2(d) if d.get("schema_version") == 2 else d


# v1 -> v2 (docs/outputs.md). A drive's sections: their v2 key (also the v1
# key of the drive called ssd) -> the part of the v1 key "<drive>.<part>" of
# a drive called otherwise.
_DRIVE_SECTIONS = {"nvme": "nvme", "firmware": "fw", "write_buffer": "cache", "ftl": "ftl", "flash": "flash",
                   "dram": "dram"}
_HOST_SECTIONS = ("cpu", "sched", "pagecache", "verify")
_SSD = "ssd"  # the drive whose v1 sections have plain keys


def _v1_drive_names(d: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """The drives of a v1 summary in probe order, and its drives[] list ([]
    when it has none: it had one only with several drives)."""
    listed = d.get("drives")
    if not (isinstance(listed, list) and listed and all(isinstance(e, dict) and "name" in e for e in listed)):
        listed = []
    # The drives that have sections, by the X of "X.ftl" ("ssd" for plain keys), ftl first.
    owners = [k[:-len(part) - 1] for part in ("ftl", "nvme", "flash", "fw", "cache", "dram") for k in d
              if k.endswith("." + part) and len(k) > len(part) + 1]
    if any(k in d for k in _DRIVE_SECTIONS):
        owners.insert(0, _SSD)
    if listed:
        names = [e["name"] for e in listed]
    else:  # one drive, named by its sections (or its counters): ssd unless they say otherwise
        counters: dict[str, Any] = d["counters"] if isinstance(d.get("counters"), dict) else {}
        counted = [k[:-len(".nvme.io_commands")] for k in counters if k.endswith(".nvme.io_commands")]
        names = [(owners or counted or [_SSD])[0]]
    # A drive not in the list still gets its sections (v1 vp-qemu had no list
    # with several drives): after the others, by name.
    names += sorted(set(owners) - set(names))
    if not listed and len(names) > 1:
        # Drive 0's link is "pcie", drive k > 0's "X.pcie": the one drive without one of its own is drive 0.
        zero = [n for n in names if f"{n}.pcie" not in d]
        if len(zero) == 1:
            names.remove(zero[0])
            names.insert(0, zero[0])
    return names, listed


def upgrade_v1(d: dict[str, Any]) -> dict[str, Any]:
    """A schema_version 1 summary in the schema_version 2 layout (docs/outputs.md's
    v1 -> v2 table); `d` is left as it is. Section contents are unchanged, only
    their place: ``device`` and the first drive's ``nvme``, ``firmware``,
    ``write_buffer``, ``ftl``, ``flash``, ``dram``, ``pcie`` and ``image`` go to
    drives[0] (another drive's ``X.nvme``, ``X.fw``, ``X.cache``, ``X.ftl``, ...,
    ``X.pcie`` to its entry), ``cpu``, ``sched``, ``pagecache`` and ``verify`` to
    host, ``accel`` and ``accel.pcie`` to accelerators[0], ``pcie_switch`` to
    switches[0].switch. host, drives, accelerators and switches are always
    there. A drive's path is v1's drives[].path, or /dev/nvme<k>n1 in vp-server
    and None elsewhere. A key with no place (or whose place a v1 drives[]
    entry already fills differently) stays at the top level as it is."""
    if d.get("schema_version") != 1:
        raise ValueError(f"upgrade_v1: schema_version {d.get('schema_version')!r}, not 1")
    # v1 vp-qemu patched nvme.cc_ams in after the sections: with a first drive
    # not called ssd, a plain "nvme" of cc_ams alone is that drive's.
    nvme = d.get("nvme")
    cc_ams = d.get("platform") == "qemu" and isinstance(nvme, dict) and list(nvme) == ["cc_ams"] and \
        any(k.endswith(".nvme") for k in d)
    rest = copy.deepcopy({k: v for k, v in d.items() if not (cc_ams and k == "nvme")})  # the keys not placed yet
    names, listed = _v1_drive_names(rest)
    if listed:
        del rest["drives"]

    def move(key: str, to: dict[str, Any], as_key: str) -> None:
        if key in rest and (as_key not in to or to[as_key] == rest[key]):
            to[as_key] = rest.pop(key)

    server = d.get("platform") == "server"
    drives: list[dict[str, Any]] = []
    for k, name in enumerate(names):
        e: dict[str, Any] = {"name": name, "path": f"/dev/nvme{k}n1" if server else None}
        if k < len(listed):
            e.update(listed[k])  # rest's copy
        if k == 0:
            move("device", e, "device")  # v1 repeated the first drive's in drives[0]
        for v2, part in _DRIVE_SECTIONS.items():
            move(v2 if name == _SSD else f"{name}.{part}", e, v2)
        move("pcie" if k == 0 else f"{name}.pcie", e, "pcie")
        if k == 0:
            move("image", e, "image")
        drives.append(e)
    if cc_ams:
        assert isinstance(nvme, dict)
        drives[0].setdefault("nvme", {})["cc_ams"] = nvme["cc_ams"]
    host: dict[str, Any] = {}
    for key in _HOST_SECTIONS:
        move(key, host, key)
    accel: dict[str, Any] = {"name": "accel"}
    move("accel", accel, "accel")
    move("accel.pcie", accel, "pcie")
    switch: dict[str, Any] = {"name": "pcie_switch"}
    move("pcie_switch", switch, "switch")
    rest["schema_version"] = 2
    rest.update(host=host, drives=drives, accelerators=[accel] if len(accel) > 1 else [],
                switches=[switch] if len(switch) > 1 else [])
    return rest


# The stages in the order an I/O passes them, per direction (vp/core/StagePath.hpp):
# a read's flash before its data crosses PCIe, a write's after.
STAGE_PATH = {
    "read": ("host_submit", "cache_wait", "blk_mq", "driver_queue", "accel", "sq_wait", "fetch", "firmware", "flash",
             "data_dma", "cq_post", "interrupt", "wakeup"),
    "write": ("host_submit", "cache_wait", "blk_mq", "driver_queue", "accel", "sq_wait", "fetch", "firmware",
              "data_dma", "flash", "cq_post", "interrupt", "wakeup"),
}
_DIR_COUNT = {"read": "reads", "write": "writes"}


def upgrade_v2(d: dict[str, Any]) -> dict[str, Any]:
    """A schema_version 2 summary in the schema_version 3 layout (docs/outputs.md);
    `d` is left as it is. Per job, ``breakdown_us`` keeps only the directions
    the job did I/O in (version 2 wrote a direction without I/O as stages of
    0 us) and lists the stages in the direction's path order (STAGE_PATH; any
    other key after them). Stage ``cache_wait`` came with version 3: a direct
    job's is 0 us (it never waits in the page cache); a buffered job's
    (``"direct": 0``) stays absent, as version 2 counted that wait in its
    ``host_submit``. Everything else is unchanged."""
    if d.get("schema_version") != 2:
        raise ValueError(f"upgrade_v2: schema_version {d.get('schema_version')!r}, not 2")
    out = copy.deepcopy(d)
    out["schema_version"] = 3
    for job in out.get("jobs", []):
        if not isinstance(job, dict) or not isinstance(job.get("breakdown_us"), dict):
            continue
        b = job["breakdown_us"]
        for op in list(b):
            # The direction's I/Os: reads / writes, else its latency's count.
            count = job.get(_DIR_COUNT.get(op, ""), job.get("latency_us", {}).get(op, {}).get("count"))
            if count == 0:  # unknown (None): kept
                del b[op]
                continue
            stages = b[op]
            if op not in STAGE_PATH or not isinstance(stages, dict):
                continue
            if job.get("direct", 1) != 0:
                stages.setdefault("cache_wait", 0.0)
            b[op] = {**{s: stages[s] for s in STAGE_PATH[op] if s in stages},
                     **{s: v for s, v in stages.items() if s not in STAGE_PATH[op]}}
    return out


R = TypeVar("R")


def _record(cls: type[R], d: dict[str, Any]) -> R:
    """A `cls` dataclass from the keys of `d` that its fields name (other keys ignored)."""
    return cls(**{f.name: d[f.name] for f in fields(cast(Any, cls)) if f.name in d})


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
    def of(cls, d: dict[str, Any]) -> Online:
        parts = d.get("response_parts_us", {})
        return cls(_record(Latency, d["response_us"]), _record(ResponseParts, parts.get("all", {})),
                   _record(ResponseParts, parts.get("p99_and_above", {})))


T = TypeVar("T")


class _Key(Generic[T]):
    """A key of the wrapped dict, read as the attribute of its name (KeyError when the run did not write it)."""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.key = name

    @overload
    def __get__(self, obj: None, owner: type[Any] | None = None) -> _Key[T]: ...

    @overload
    def __get__(self, obj: _View, owner: type[Any] | None = None) -> T: ...

    def __get__(self, obj: _View | None, owner: type[Any] | None = None) -> T | _Key[T]:
        return self if obj is None else cast(T, obj._d[self.key])


class _View:
    """Typed reads of one dict of the summary, on access."""

    def __init__(self, d: dict[str, Any]):
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
        """The mean us per I/O of `op` in each stage (docs/outputs.md's table),
        in the direction's path order; empty for a direction without I/O."""
        out: dict[str, float] = self._d["breakdown_us"].get(op, {})
        return out

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


class Drive(_View):
    """One entry of drives[]: a drive's name, its block device and its sections."""

    name = _Key[str]()

    @property
    def path(self) -> str | None:
        """Its block device in vp-server (/dev/nvme0n1); None in vp-drive and vp-qemu."""
        return self._d.get("path")

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


class Summary(_View):
    """One run's summary.json."""

    sim_time_s = _Key[float]()

    @classmethod
    def load(cls, path: Path) -> Summary:
        return cls(load_summary(path))

    @property
    def git_revision(self) -> str:
        return str(self._d.get("git_revision", "unknown"))

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
    def drives(self) -> list[Drive]:
        """The drives in probe order (platform.drives; vp-server's drive k is /dev/nvme<k>n1)."""
        return [Drive(e) for e in self._d["drives"]]

    @property
    def host(self) -> dict[str, Any]:
        """The host-side sections as written: cpu, sched, pagecache, verify, md (those the run has)."""
        out: dict[str, Any] = self._d["host"]
        return out

    # The first drive's sections: drives[0] (none in a hand-written summary without drives).

    @property
    def _first_drive(self) -> Drive:
        return Drive((self._d.get("drives") or [{}])[0])

    @property
    def device(self) -> Device:
        return self._first_drive.device

    @property
    def ftl(self) -> Ftl:
        return self._first_drive.ftl

    @property
    def write_buffer(self) -> WriteBuffer:
        return self._first_drive.write_buffer

    # Counters, by their full names (docs/reference/statistics.md)

    @property
    def _counters(self) -> dict[str, Any]:
        out: dict[str, Any] = self._d["counters"]
        return out

    def cache_reads(self, cls: str) -> CacheReads:
        """The SSD cache's read hits and misses of one class (lat, thr), 0 without that class."""
        c = self._counters
        return CacheReads(c.get(f"ssd.cache.{cls}.read_hits", 0), c.get(f"ssd.cache.{cls}.read_misses", 0))

    @property
    def context_switches(self) -> int:
        return int(self._counters.get("host.context_switches", 0))

    def fw_threads(self, kind: str) -> list[FwThread]:
        """The firmware threads whose names start with `kind` (nvmq, trans, ...), in the counters' order."""
        c = self._counters
        names = [k[len(_FW_THREAD):-len(_ITEMS)] for k in c if k.startswith(_FW_THREAD + kind) and k.endswith(_ITEMS)]
        return [FwThread(t, c[_FW_THREAD + t + _ITEMS], c[_FW_THREAD + t + _BUSY]) for t in names]
