# SPDX-License-Identifier: BSD-3-Clause
"""The vp-server binary: where it is, what it knows, and one run of it."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from flashvp.grid import Point


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


def known_params(server: str) -> set[str]:
    """Every parameter key vp-server declares (--list-params --json)."""
    r = subprocess.run([server, "--list-params", "--json"], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise ServerError(f"{server} --list-params --json failed: {r.stderr.strip()[-500:]}")
    try:
        return {p["key"] for p in json.loads(r.stdout)}
    except (ValueError, KeyError, TypeError) as e:
        raise ServerError(f"{server} --list-params --json: unexpected output ({e})") from None


def preset_digest(server: str, name: str) -> str:
    """A digest of the preset's effective configuration (base chain and
    defaults included); an unknown preset gives a digest of vp-server's
    message, and the point's own check reports it."""
    r = subprocess.run([server, "--preset", name, "--print-config"], capture_output=True, text=True, timeout=120)
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


def result_of(key: str, r: dict) -> RunResult:
    """A worker's answer (flashvp.worker.run_point) as a RunResult."""
    return RunResult(key, r["status"] == "ok", r["status"], r["exit_code"], r["wall_s"], r["stderr_tail"],
                     skipped=r.get("skipped", False), busy=r.get("busy", False))
