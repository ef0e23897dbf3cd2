# SPDX-License-Identifier: BSD-3-Clause
"""The vp-server binary: where it is, what it knows, and one run of it."""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from flashvp.grid import Point
from flashvp.units import BUILTIN, UnitError, UnitTable


class ServerError(RuntimeError):
    """vp-server is missing or answered something unexpected."""


def find_server(given: str | None = None) -> str:
    """--server, else $FLASHVP_SERVER, else the repository's build, else PATH."""
    candidates = [given, os.environ.get("FLASHVP_SERVER")]
    repo_build = Path(__file__).resolve().parents[2] / "build" / "bin" / "vp-server"
    candidates += [str(repo_build), shutil.which("vp-server")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
        if c and c is given:
            raise ServerError(f"--server {c}: not an executable file")
    raise ServerError("vp-server not found: build it (make build), or give --server PATH or FLASHVP_SERVER")


@dataclass(frozen=True)
class Param:
    """One parameter as ``vp-server --list-params --json`` gives it."""

    key: str
    type: str  # int, real, bool, enum, string, time, size, frequency, transfer rate, bandwidth
    default: str
    description: str
    allowed: str  # in prose: "a time such as 3us, 100ns, 1ms >= 0ns"
    choices: tuple[str, ...] = ()
    units: tuple[tuple[str, int], ...] = ()  # (suffix, factor to the base unit), when the binary lists them

    def record(self) -> dict[str, Any]:
        return {"key": self.key, "type": self.type, "units": dict(self.units)}


def _ask(server: str, *args: str) -> subprocess.CompletedProcess[str]:
    """vp-server `args`' answer; ServerError when it cannot be started or does not answer."""
    try:
        return subprocess.run([server, *args], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ServerError(f"{server} {' '.join(args)}: {getattr(e, 'strerror', None) or e}") from None


def _binary_id(server: str) -> tuple[str, int, int]:
    """The binary by path, mtime and size: what the caches below are keyed
    on, so a rebuilt vp-server is asked again."""
    path = os.path.abspath(server)
    try:
        st = os.stat(path)
    except OSError as e:
        raise ServerError(f"{server}: {e.strerror}") from None
    return path, st.st_mtime_ns, st.st_size


def list_params(server: str) -> Mapping[str, Param]:
    """Every parameter vp-server declares, by key (``--list-params
    --json``), asked once per binary (path and mtime) in this process."""
    return _list_params(*_binary_id(server))


@functools.lru_cache(maxsize=16)
def _list_params(server: str, mtime_ns: int, size: int) -> Mapping[str, Param]:
    r = _ask(server, "--list-params", "--json")
    if r.returncode != 0:
        raise ServerError(f"{server} --list-params --json failed: {r.stderr.strip()[-500:]}")
    try:
        out = {}
        for p in json.loads(r.stdout):
            units = p.get("units") or {}
            out[p["key"]] = Param(key=p["key"], type=str(p.get("type", "")), default=str(p.get("default", "")),
                                  description=str(p.get("description", "")), allowed=str(p.get("allowed", "")),
                                  choices=tuple(str(c) for c in p.get("choices", ())),
                                  units=tuple((str(k), int(v)) for k, v in units.items()))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise ServerError(f"{server} --list-params --json: unexpected output ({e})") from None
    return MappingProxyType(out)


def known_params(server: str) -> set[str]:
    """Every parameter key vp-server declares (--list-params --json)."""
    return set(list_params(server))


def unit_table(server: str) -> UnitTable:
    """The units vp-server reads, from its parameters' ``units`` fields;
    units.BUILTIN for a binary that does not list them."""
    try:
        table = UnitTable.from_params((p.record() for p in list_params(server).values()), source=server)
    except UnitError as e:
        raise ServerError(str(e)) from None
    return table or BUILTIN


def preset_digest(server: str, name: str) -> str:
    """A digest of the preset's effective configuration (base chain and
    defaults included); an unknown preset gives a digest of vp-server's
    message, and the point's own check reports it. The presets are built
    into the binary: asked once per binary (path and mtime) and preset in
    this process."""
    return _preset_digest(*_binary_id(server), name)


@functools.lru_cache(maxsize=256)
def _preset_digest(server: str, mtime_ns: int, size: int, name: str) -> str:
    r = _ask(server, "--preset", name, "--print-config")
    return hashlib.sha256((r.stdout if r.returncode == 0 else r.stderr).encode()).hexdigest()[:16]


def validate(server: str, point: Point) -> str | None:
    """None when vp-server accepts the point's configuration, else its message."""
    r = subprocess.run([server, *point.args(), "--print-config"], capture_output=True, text=True, timeout=120)
    if r.returncode == 0:
        return None
    return (r.stderr.strip() or r.stdout.strip() or f"exit status {r.returncode}").splitlines()[-1]


@dataclass
class RunResult:
    key: str
    ok: bool
    status: str  # ok, failed, timeout
    exit_code: int | None
    wall_s: float
    stderr_tail: str
    skipped: bool = False  # finished by an earlier sweep
    busy: bool = False  # its folder locked by another flashvp running it: not run here


def result_of(key: str, r: dict[str, Any]) -> RunResult:
    """A worker's answer (flashvp.worker.run_point) as a RunResult."""
    return RunResult(key, r["status"] == "ok", r["status"], r["exit_code"], r["wall_s"], r["stderr_tail"],
                     skipped=r.get("skipped", False), busy=r.get("busy", False))
