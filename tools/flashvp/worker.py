# SPDX-License-Identifier: BSD-3-Clause
"""What a Dask worker runs for one point: vp-server into the point's folder.

Standard library only, and sent to remote workers by value (the sweep
registers it with cloudpickle), so a cluster's workers need Python with
dask.distributed and the vp-server binary on a shared path, not this
package.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

# vp-server children of this process, so an interrupted sweep can end them
# (each runs in its own session, out of reach of the terminal's Ctrl-C).
# No lock: set.add, set.discard and list(set) are atomic under the GIL, and
# a lock could not travel with the task to a remote worker.
_live: set[subprocess.Popen] = set()


def kill_all() -> None:
    for p in list(_live):
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


def run_point(server: str, args: list[str], folder: str, timeout: float | None, record: dict) -> dict:
    """Runs vp-server `args` into `folder` (--out), unless a finished run is
    there. Writes point.json (`record`) first and status.json last, so a
    folder without status ok is rerun by the next sweep. Returns
    status.json's fields."""
    out = Path(folder)
    if finished(out):
        st = json.loads((out / STATUS).read_text())
        return {**st, "skipped": True}
    out.mkdir(parents=True, exist_ok=True)
    (out / STATUS).unlink(missing_ok=True)
    _write_json(out / POINT, record)
    start = time.monotonic()
    cmd = [server, *args, "--out", str(out), "--overwrite"]
    with open(out / "stdout.txt", "w") as so, open(out / "stderr.txt", "w+") as se:
        # Its own process group, so a timeout or an interrupted sweep ends it and nothing it started.
        p = subprocess.Popen(cmd, stdout=so, stderr=se, stdin=subprocess.DEVNULL, start_new_session=True)
        _live.add(p)
        try:
            code = p.wait(timeout=timeout)
            status = "ok" if code == 0 else "failed"
        except subprocess.TimeoutExpired:
            _kill(p)
            code, status = None, "timeout"
        except BaseException:
            _kill(p)
            raise
        finally:
            _live.discard(p)
        se.seek(0)
        tail = se.read()[-2000:]
    wall = time.monotonic() - start
    if status == "timeout":
        tail = (tail + f"\nflashvp: timeout after {timeout:g} s (base.timeout): stopped").strip()
    elif status == "ok" and not (out / "summary.json").is_file():
        status, tail = "failed", (tail + "\nflashvp: exit 0 but no summary.json").strip()
    st = {"status": status, "exit_code": code, "wall_s": round(wall, 3), "stderr_tail": tail, "command": cmd}
    _write_json(out / STATUS, st)
    return st


def _kill(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
