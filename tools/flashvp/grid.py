# SPDX-License-Identifier: BSD-3-Clause
"""Grid files: a base configuration and the axes swept over it.

.. code-block:: yaml

    base:
      preset: quick              # or config: my.yaml (paths relative to this file)
      jobs: [reader.fio]         # fio job files, optional
      set: {host.cores: 2}       # fixed overrides, optional
      seed: 1                    # the first seed (default 1)
      trace: [requests]          # vp-server --trace, optional
      timeout: 10min             # per point (default: none)
    axes:
      product:                   # every combination
        workload.reader.iodepth: [1, 2, 4, ..., 256]
        ssd.flash.t_read: 3us..9us step 1us
      zip:                       # taken together, position by position
        ssd.fw.cores: [1, 4]
        ssd.fw.organisation: [layered, deepflash]
      points:                    # explicit combinations
        - {host.cores: 1}
        - {host.cores: 4, host.nvme.completion: poll}
    seeds: 3                     # repetitions: seeds 1, 2, 3

The blocks present are combined as a product (product x zip x points x
seeds). An axis key is a parameter (``--set`` key, including
``workload.<job>.<option>``) or ``preset``. A grid of more than
MAX_POINTS runs is refused, counted from the axes' lengths before any
expansion. Every error names the file, the line and the key.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import product as cartesian
from typing import Any

import yaml

from flashvp.units import BUILTIN, ELLIPSIS, UnitError, UnitTable, expand_list, expand_range, is_range, parse_quantity


class GridError(ValueError):
    """A grid that cannot be used; the message names file, line and key."""


# Where in the YAML document: keys and list indices from the top.
Where = tuple[str | int, ...]
# One point's values of a block's axes: (key, value) pairs.
Assign = tuple[tuple[str, Any], ...]


# Runs (points x seeds) a grid may have unless the caller raises it
# (flashvp sweep --max-points): a mistyped axis or seeds count would
# otherwise fill the memory listing points before anything runs.
MAX_POINTS = 100_000


_TOP = ("base", "axes", "seeds", "description")
_BASE = ("preset", "config", "jobs", "set", "seed", "trace", "timeout")
_AXES = ("product", "zip", "points")
_SPECIAL_AXES = ("preset",)


@dataclass(frozen=True)
class Point:
    """One vp-server run of a sweep."""

    preset: str | None
    config: str | None  # absolute path
    jobs: tuple[str, ...]  # absolute paths
    sets: tuple[tuple[str, str], ...]  # --set key=value, base first, then the axes'
    params: tuple[tuple[str, Any], ...]  # the swept values as the grid gives them (table columns)
    seed: int
    trace: tuple[str, ...] = ()
    timeout: float | None = None  # seconds
    preset_digest: str | None = None  # of the preset's effective configuration, so an edited preset reruns

    def identity(self) -> dict[str, Any]:
        """What the point's results depend on, files by content: equal
        identities give equal results (vp-server is deterministic)."""
        return {
            "preset": self.preset,
            "preset_digest": self.preset_digest,
            "config": _file_digest(self.config) if self.config else None,
            "jobs": [_file_digest(j) for j in self.jobs],
            "sets": [list(s) for s in self.sets],
            "seed": self.seed,
            "trace": list(self.trace),
        }

    @functools.cached_property
    def key(self) -> str:
        """A stable name of the point's folder: a hash of its identity
        (worked out once per Point: it reads the config and job files)."""
        text = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def args(self) -> list[str]:
        """vp-server's arguments, without --out."""
        a: list[str] = []
        if self.config:
            a += ["--config", self.config]
        elif self.preset:
            a += ["--preset", self.preset]
        for j in self.jobs:
            a += ["--job", j]
        for k, v in self.sets:
            a += ["--set", f"{k}={v}"]
        a += ["--seed", str(self.seed)]
        if self.trace:
            a += ["--trace", ",".join(self.trace)]
        return a

    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.params) + f" seed={self.seed}"

    def record(self) -> dict[str, Any]:
        """What point.json holds."""
        return {"key": self.key, "params": dict(self.params), "seed": self.seed, "args": self.args(),
                "identity": self.identity()}


def _file_digest(path: str) -> dict[str, str]:
    with open(path, "rb") as f:
        return {"name": os.path.basename(path), "sha256": hashlib.sha256(f.read()).hexdigest()}


@dataclass
class _Doc:
    """A YAML document with the line of every key and list item."""

    path: str
    data: Any
    lines: dict[Where, int] = field(default_factory=dict)

    def line(self, where: Where) -> int:
        while where and where not in self.lines:
            where = where[:-1]
        return self.lines.get(where, 1)

    def fail(self, where: Where, why: str) -> GridError:
        key = ".".join(str(w) for w in where if not isinstance(w, int))
        # A parameter key holds dots itself: name it whole, after its block.
        return GridError(f"{self.path}:{self.line(where)}: {key + ': ' if key else ''}{why}")


def _load(path: str) -> _Doc:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GridError(f"{path}: cannot read the grid file: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise GridError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _no_duplicate_keys(path, node)  # before construction: YAML would keep the last silently
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise GridError(f"{path}:{mark.line + 1 if mark else 1}: not valid YAML: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise GridError(f"{path}: not valid YAML: {e}") from None
    except RecursionError:
        raise GridError(f"{path}: not a grid: nested too deeply") from None
    finally:
        loader.dispose()
    doc = _Doc(path, data)

    def walk(n: yaml.Node, where: Where) -> None:
        doc.lines[where] = n.start_mark.line + 1
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                kw = where + (k.value,)
                doc.lines[kw] = k.start_mark.line + 1
                walk(v, kw)
                doc.lines[kw] = k.start_mark.line + 1
        elif isinstance(n, yaml.SequenceNode):
            for i, v in enumerate(n.value):
                walk(v, where + (i,))

    if node is not None:
        walk(node, ())
    return doc


def _no_duplicate_keys(path: str, root: yaml.Node) -> None:
    """A key given twice in one mapping is refused, naming both lines. Run
    on the composed nodes: construction merges `<<: *anchor` keys into the
    mapping, and a key that overrides a merged one is no duplicate."""
    todo: list[tuple[yaml.Node, Where]] = [(root, ())]
    seen_nodes: set[int] = set()
    while todo:
        n, where = todo.pop()
        if id(n) in seen_nodes:  # an alias: its node was checked where the anchor is
            continue
        seen_nodes.add(id(n))
        if isinstance(n, yaml.MappingNode):
            first: dict[tuple[str, Any], int] = {}
            for k, v in n.value:
                if isinstance(k, yaml.ScalarNode):
                    name = (k.tag, k.value)
                    if name in first:
                        key = ".".join(str(w) for w in where + (k.value,))
                        raise GridError(f"{path}:{k.start_mark.line + 1}: {key}: given twice (lines "
                                        f"{first[name]} and {k.start_mark.line + 1}); YAML would keep only the last")
                    first[name] = k.start_mark.line + 1
                todo.append((v, where + (k.value if isinstance(k, yaml.ScalarNode) else "?",)))
        elif isinstance(n, yaml.SequenceNode):
            todo.extend((v, where) for v in n.value)


def _mapping(doc: _Doc, value: Any, where: Where, allowed: Iterable[str] | None = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise doc.fail(where, f"must be a mapping (key: value), not {_kind(value)}")
    for k in value:
        if not isinstance(k, str):
            raise doc.fail(where, f"key {k!r} is not text")
        if allowed is not None and k not in allowed:
            raise doc.fail(where + (k,), f"unknown key (expected one of {', '.join(allowed)})")
    return value


def _kind(v: Any) -> str:
    return {dict: "a mapping", list: "a list", type(None): "nothing"}.get(type(v), f"{type(v).__name__} {v!r}")


# inf, -Infinity, .nan: YAML's .inf and .nan are floats, the bare words text.
_NOT_FINITE = re.compile(r"^\s*[-+]?\.?(inf|infinity|nan)\s*$", re.IGNORECASE)


def set_text(doc: _Doc, where: Where, v: Any) -> str:
    """A YAML scalar as vp-server's --set reads it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and not math.isfinite(v) or isinstance(v, str) and _NOT_FINITE.match(v):
        # No parameter takes one, and a range or a timeout cannot use it.
        raise doc.fail(where, f"{v!r} is not a finite number")
    if isinstance(v, (int, str)):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    raise doc.fail(where, f"a value must be a number or text, not {_kind(v)}")


def _values(doc: _Doc, where: Where, v: Any, units: UnitTable = BUILTIN) -> list[Any]:
    """An axis's values: a list (with ... continued), a range, or one value."""
    try:
        if isinstance(v, list):
            if not v:
                raise doc.fail(where, "an axis needs at least one value")
            out = expand_list(v, units)
        elif is_range(v):
            out = expand_range(v, units)
        else:
            out = [v]
    except UnitError as e:
        raise doc.fail(where, str(e)) from None
    for i, x in enumerate(v if isinstance(v, list) else []):
        if x != ELLIPSIS:
            set_text(doc, where + (i,), x)  # on the item's own line
    for x in out:
        set_text(doc, where, x)
    return out


def _product(lists: list[list[tuple[str, Any]]]) -> list[Assign]:
    return [tuple(c) for c in cartesian(*lists)]


def _zipped(lists: list[list[tuple[str, Any]]]) -> list[Assign]:
    return [tuple(c) for c in zip(*lists, strict=True)]


class Grid:
    """A parsed grid file; ``points()`` lists its runs in a stable order."""

    def __init__(self, path: str, known_params: set[str] | None = None,
                 preset_digest: Callable[[str], str] | None = None, max_points: int = MAX_POINTS,
                 units: UnitTable = BUILTIN):
        """`preset_digest(name)`: a digest of what the preset configures
        (vp-server's --print-config of it), part of each point's identity
        so that a preset edited under the same name reruns its points.
        A grid of more than `max_points` runs (points x seeds) is refused.
        `units`: the units values and ranges may use (vp-server's,
        flashvp.server.unit_table)."""
        self.path = os.path.abspath(path)
        self.units = units
        self._preset_digest = preset_digest
        self._digests: dict[str, str] = {}
        doc = _load(path)
        self._doc = doc
        top = _mapping(doc, doc.data if doc.data is not None else {}, (), _TOP)
        here = os.path.dirname(self.path)
        base = _mapping(doc, top.get("base") or {}, ("base",), _BASE)
        self.preset = base.get("preset")
        if self.preset is not None and not isinstance(self.preset, str):
            raise doc.fail(("base", "preset"), "must be a preset's name")
        self.config = None
        if "config" in base:
            if self.preset is not None:
                raise doc.fail(("base", "config"), "give preset or config, not both")
            self.config = self._file(here, base["config"], ("base", "config"))
        jobs = base.get("jobs", [])
        jobs = [jobs] if isinstance(jobs, str) else jobs
        if not isinstance(jobs, list):
            raise doc.fail(("base", "jobs"), "must be a fio job file or a list of them")
        self.jobs = tuple(self._file(here, j, ("base", "jobs", i)) for i, j in enumerate(jobs))
        sets = _mapping(doc, base.get("set") or {}, ("base", "set"))
        self.sets = tuple((k, set_text(doc, ("base", "set", k), v)) for k, v in sets.items())
        self.seed = base.get("seed", 1)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise doc.fail(("base", "seed"), f"must be a whole number >= 0, not {self.seed!r}")
        trace = base.get("trace", [])
        trace = [t.strip() for t in trace.split(",")] if isinstance(trace, str) else trace
        if not isinstance(trace, list) or not all(isinstance(t, str) for t in trace):
            raise doc.fail(("base", "trace"), "must be a list of vcd, requests, cache")
        self.trace = tuple(trace)
        self.timeout = None
        if "timeout" in base:
            t = base["timeout"]
            try:
                q = parse_quantity(t, self.units)
                seconds = float(q.base) / 1e12 if q.unit else float(q.value)
                if q.unit and q.dimension != "time":
                    raise UnitError("not a time")
            except (UnitError, OverflowError):  # overflow: 1e400 is a number, not a float
                raise doc.fail(("base", "timeout"), f"{t!r} is not a time (seconds, or 600s, 1500ms)") from None
            if seconds <= 0:
                raise doc.fail(("base", "timeout"), "must be above 0")
            self.timeout = seconds
        seeds = top.get("seeds", 1)
        if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
            raise doc.fail(("seeds",), f"must be a whole number >= 1, not {seeds!r}")
        self.seeds = seeds
        self.axes = self._axes(_mapping(doc, top.get("axes") or {}, ("axes",), _AXES), known_params, max_points)
        for k, _ in self.sets:
            self._check_key(("base", "set", k), k, known_params, special=False)

    def _file(self, here: str, name: Any, where: Where) -> str:
        if not isinstance(name, str) or not name:
            raise self._doc.fail(where, "must be a file name")
        p = os.path.normpath(os.path.join(here, name))
        if not os.path.isfile(p):
            raise self._doc.fail(where, f"no such file: {p}")
        return p

    def _check_key(self, where: Where, key: str, known: set[str] | None, special: bool = True) -> None:
        if special and key in _SPECIAL_AXES:
            return
        if key == "sim.seed":
            raise self._doc.fail(where, "sweep seeds with seeds: N (and base.seed), not sim.seed")
        if known is None or key in known:
            return
        if key.startswith("workload.") and key != "workload.fio" and key.count(".") >= 2:
            return  # workload.<job>.<option>: vp-server checks it against the jobs
        near = sorted(k for k in known if k.rsplit(".", 1)[0] == key.rsplit(".", 1)[0])[:8]
        raise self._doc.fail(where, "unknown parameter" + (f" (in that scope: {', '.join(near)})" if near else ""))

    def _axes(self, axes: dict[str, Any], known: set[str] | None, max_points: int) -> list[list[Assign]]:
        """Each block as a list of assignments (tuples of key, value), once
        the grid's size, counted from the axes' lengths, is within
        `max_points`: a product is expanded only when it may run."""
        doc = self._doc
        specs: list[tuple[Where, int, Callable[[], list[Assign]]]] = []
        seen: dict[str, int] = {}

        def claim(where: Where, key: str) -> None:
            if key in seen:
                raise doc.fail(where, f"swept twice (also at line {seen[key]})")
            seen[key] = doc.line(where)
            self._check_key(where, key, known)

        for name in _AXES:
            if name not in axes:
                continue
            where: Where = ("axes", name)
            if name in ("product", "zip"):
                block = _mapping(doc, axes[name], where)
                if not block:
                    raise doc.fail(where, "names no axis")
                lists: list[list[tuple[str, Any]]] = []
                for k, v in block.items():
                    claim(where + (k,), k)
                    lists.append([(k, x) for x in _values(doc, where + (k,), v, self.units)])
                if name == "product":
                    specs.append((where, math.prod(len(lst) for lst in lists), functools.partial(_product, lists)))
                else:
                    lens = {len(lst) for lst in lists}
                    if len(lens) > 1:
                        sizes = ", ".join(f"{k}: {len(lst)}" for k, lst in zip(block, lists, strict=True))
                        raise doc.fail(where, f"zip needs lists of one length (got {sizes})")
                    specs.append((where, lens.pop(), functools.partial(_zipped, lists)))
            else:
                pts = axes[name]
                if not isinstance(pts, list) or not pts:
                    raise doc.fail(where, "must be a list of mappings ({key: value, ...})")
                rows: list[Assign] = []
                keys: set[str] = set()
                for i, item in enumerate(pts):
                    point = _mapping(doc, item, where + (i,))
                    if not point:
                        raise doc.fail(where + (i,), "an empty point")
                    for k, v in point.items():
                        if k not in keys:
                            claim(where + (i, k), k)
                            keys.add(k)
                        set_text(doc, where + (i, k), v)
                    rows.append(tuple(point.items()))
                if len(set(rows)) != len(rows):
                    raise doc.fail(where, "the same point is given twice")
                specs.append((where, len(rows), rows.copy))
        # The blocks multiply, and the seeds with them.
        factors: list[tuple[Where, int]] = [(w, n) for w, n, _ in specs] + [(("seeds",), self.seeds)]
        self.size = math.prod(n for _, n in factors)
        if self.size > max_points:
            biggest = max(factors, key=lambda f: f[1])[0]
            terms = " x ".join(f"{'.'.join(map(str, w))} {n:,}" for w, n in factors)
            raise doc.fail(biggest,
                           f"the grid is {self.size:,} runs ({terms}), above the bound of {max_points:,} runs; "
                           f"--max-points N raises it")
        return [build() for _, _, build in specs]

    def points(self) -> list[Point]:
        out = []
        for combo in cartesian(*self.axes) if self.axes else [()]:
            assign = [kv for block in combo for kv in block]
            preset = self.preset
            sets = list(self.sets)
            for k, v in assign:
                if k == "preset":
                    if self.config:
                        raise self._doc.fail(("axes",), "preset is swept but the base gives a config")
                    preset = str(v)
                else:
                    sets.append((k, set_text(self._doc, ("axes",), v)))
            digest = None
            if preset is not None and self._preset_digest is not None:
                if preset not in self._digests:
                    self._digests[preset] = self._preset_digest(preset)
                digest = self._digests[preset]
            for s in range(self.seeds):
                out.append(Point(preset=preset, config=self.config, jobs=self.jobs, sets=tuple(sets),
                                 params=tuple(assign), seed=self.seed + s, trace=self.trace, timeout=self.timeout,
                                 preset_digest=digest))
        return out

    def axis_keys(self) -> list[str]:
        keys = []
        for block in self.axes:
            for assign in block:
                for k, _ in assign:
                    if k not in keys:
                        keys.append(k)
        return keys
