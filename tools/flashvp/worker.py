# SPDX-License-Identifier: BSD-3-Clause
"""What a Dask worker runs for one point: vp-server into the point's folder.

Standard library only, and sent to remote workers by value (the sweep
registers it with cloudpickle), so a cluster's workers need Python with
dask.distributed and the vp-server binary on a shared path, not this
package.
"""
from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# vp-server children of this process, so an interrupted sweep can end them
# (each runs in its own session, out of reach of the terminal's Ctrl-C).
# No lock: set.add, set.discard and list(set) are atomic under the GIL, and
# a lock could not travel with the task to a remote worker.
_live: set[subprocess.Popen[bytes]] = set()


def kill_all(wait: bool = True) -> None:
    """Kills the live vp-servers' process groups; `wait=False` from a signal
    handler, which must not block on a child another thread waits for."""
    for p in list(_live):
        _kill(p, wait)


def _die_with_parent() -> Callable[[], None] | None:
    """A preexec_fn that makes the child get SIGKILL when the thread that
    started it ends (PR_SET_PDEATHSIG), so even flashvp killed with -9
    takes its vp-servers down; None where prctl is not to be had. That
    thread is the worker's, which waits for the child: it ends with the
    process, not before the child."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        # Looked up before the fork: the child only calls it.
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent, args = os.getpid(), (ctypes.c_int(1), ctypes.c_ulong(int(signal.SIGKILL)),  # PR_SET_PDEATHSIG
                                 ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))

    def preexec() -> None:
        prctl(*args)
        if os.getppid() != parent:  # the parent died before prctl took: no signal will come
            os._exit(1)

    return preexec


STATUS = "status.json"
POINT = "point.json"
# flock'ed while the point runs, so two sweeps into one folder never run it
# twice at once. A dotfile, as vp-server's own .vp-server.lock: neither is
# an output, and nothing that judges a folder looks at either.
LOCK = ".flashvp.lock"
BUSY = "running elsewhere"


def finished(folder: Path, key: str | None = None) -> bool:
    """A point's folder holds a successful run (of the point `key`, when
    given). Files only, no vp-server: status.json says ok and names the
    key, the hash of the inputs that determined the run, written there
    when the run ended (a folder from before that record: point.json's
    key); and summary.json is there."""
    try:
        st = json.loads((folder / STATUS).read_text())
        if not isinstance(st, dict) or st.get("status") != "ok":
            return False
        if key is not None:
            done = st.get("key")
            if done is None:
                done = json.loads((folder / POINT).read_text()).get("key")
            if done != key:
                return False
        return (folder / "summary.json").is_file()
    except (OSError, ValueError, AttributeError):
        return False


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def run_point(server: str, args: list[str], folder: str, timeout: float | None,
              record: dict[str, Any]) -> dict[str, Any]:
    """Runs vp-server `args` into `folder` (--out), unless a finished run is
    there. Writes point.json (`record`) first and status.json last, so a
    folder without status ok is rerun by the next sweep. Returns
    status.json's fields."""
    out = Path(folder)
    key = record.get("key")
    if finished(out, key):
        st = json.loads((out / STATUS).read_text())
        return {**st, "skipped": True}
    out.mkdir(parents=True, exist_ok=True)
    lock = _lock(out / LOCK)
    if lock is None:  # another sweep runs it now: not started here, its folder left alone
        return {"status": BUSY, "exit_code": None, "wall_s": 0.0, "busy": True,
                "stderr_tail": f"flashvp: another flashvp holds {out / LOCK}: running elsewhere, not run here"}
    try:
        if finished(out, key):  # finished by that other sweep before the lock came free
            st = json.loads((out / STATUS).read_text())
            return {**st, "skipped": True}
        return _run(server, args, out, timeout, record, lock)
    finally:
        os.close(lock)


def _lock(path: Path) -> int | None:
    """An exclusive flock on `path` (made if missing), or None when another
    process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _run(server: str, args: list[str], out: Path, timeout: float | None, record: dict[str, Any],
         lock: int) -> dict[str, Any]:
    (out / STATUS).unlink(missing_ok=True)
    _write_json(out / POINT, record)
    start = time.monotonic()
    cmd = [server, *args, "--out", str(out), "--overwrite"]
    with open(out / "stdout.txt", "w") as so, open(out / "stderr.txt", "w+") as se:
        # Its own process group, so a timeout or an interrupted sweep ends it and nothing it started;
        # killed by the kernel if this process dies without the chance to. It holds the lock too, so a
        # vp-server that outlives this process (no PR_SET_PDEATHSIG) keeps its folder locked.
        try:
            p = subprocess.Popen(cmd, stdout=so, stderr=se, stdin=subprocess.DEVNULL, start_new_session=True,
                                 preexec_fn=_die_with_parent(), pass_fds=(lock,))
        except OSError as e:  # a binary gone or being rebuilt: this point failed, not the worker
            st = {"status": "failed", "exit_code": None, "wall_s": 0.0, "command": cmd,
                  "stderr_tail": f"flashvp: cannot start {server}: {e.strerror or e}"}
            _write_json(out / STATUS, st)
            return st
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
    st = {"status": status, "exit_code": code, "wall_s": round(wall, 3), "stderr_tail": tail, "command": cmd,
          "key": record.get("key")}
    _write_json(out / STATUS, st)
    return st


def _kill(p: subprocess.Popen[bytes], wait: bool = True) -> None:
    if p.returncode is None:  # not reaped yet: its pid is still its own
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if wait:
        p.wait()
