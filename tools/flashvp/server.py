# SPDX-License-Identifier: BSD-3-Clause
"""The vp-server binary: where it is, what it knows, and one run of it."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
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


# vp-server children of this process, so an interrupted sweep can end them
# (each runs in its own session, out of reach of the terminal's Ctrl-C).
_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()


def kill_all() -> None:
    with _live_lock:
        procs = list(_live)
    for p in procs:
        _kill(p)


STATUS = "status.json"
POINT = "point.json"


def finished(folder: Path) -> bool:
    """A point's folder holds a successful run."""
    try:
        return json.loads((folder / STATUS).read_text()).get("status") == "ok" and (folder / "summary.json").is_file()
    except (OSError, ValueError):
        return False


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def run_point(server: str, point: Point, folder: str) -> RunResult:
    """Runs one point into `folder` (vp-server --out), unless a finished run
    is there. Writes point.json first and status.json last, so a folder
    without status ok is rerun by the next sweep. Runs on a Dask worker."""
    out = Path(folder)
    if finished(out):
        st = json.loads((out / STATUS).read_text())
        return RunResult(point.key, True, "ok", 0, st.get("wall_s", 0.0), "", skipped=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / STATUS).unlink(missing_ok=True)
    _write_json(out / POINT, point.record())
    start = time.monotonic()
    cmd = [server, *point.args(), "--out", str(out), "--overwrite"]
    with open(out / "stdout.txt", "w") as so, open(out / "stderr.txt", "w+") as se:
        # Its own process group, so a timeout or an interrupted sweep ends it and nothing it started.
        p = subprocess.Popen(cmd, stdout=so, stderr=se, stdin=subprocess.DEVNULL, start_new_session=True)
        with _live_lock:
            _live.add(p)
        try:
            code = p.wait(timeout=point.timeout)
            status = "ok" if code == 0 else "failed"
        except subprocess.TimeoutExpired:
            _kill(p)
            code, status = None, "timeout"
        except BaseException:
            _kill(p)
            raise
        finally:
            with _live_lock:
                _live.discard(p)
        se.seek(0)
        tail = se.read()[-2000:]
    wall = time.monotonic() - start
    if status == "timeout":
        tail = (tail + f"\nflashvp: timeout after {point.timeout:g} s (base.timeout): stopped").strip()
    elif status == "ok" and not (out / "summary.json").is_file():
        status, tail = "failed", (tail + "\nflashvp: exit 0 but no summary.json").strip()
    _write_json(out / STATUS, {"status": status, "exit_code": code, "wall_s": round(wall, 3), "stderr_tail": tail,
                               "command": cmd})
    return RunResult(point.key, status == "ok", status, code, wall, tail)


def _kill(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
