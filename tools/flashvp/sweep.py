# SPDX-License-Identifier: BSD-3-Clause
"""flashvp sweep: every point of a grid as one vp-server process, on Dask.

Local by default (a LocalCluster of --jobs single-threaded workers in this
process: each worker only waits for its vp-server child); --scheduler
tcp://HOST:PORT submits to a running Dask cluster, --cluster slurm|pbs
starts one through dask-jobqueue. Each point runs in OUT/points/<key>/,
<key> a hash of what the point's results depend on, so a second sweep
skips finished points and runs only new or failed ones. A point counts as
finished from its folder's files alone (status.json ok with the point's
key, and summary.json): resuming a finished sweep starts no vp-server but
the two questions asked once per binary (its parameters, each preset's
digest).
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from flashvp.grid import MAX_POINTS, Grid, Point
from flashvp.progress import Progress
from flashvp import worker
from flashvp.server import RunResult, known_params, preset_digest, result_of, unit_table, validate
from flashvp.worker import finished, kill_all, run_point

if TYPE_CHECKING:
    from distributed import Client
    from distributed.deploy.cluster import Cluster


class SweepError(RuntimeError):
    """The sweep cannot start (bad points, no cluster); says why."""


@dataclass
class SweepReport:
    points: list[Point]
    results: dict[str, RunResult] = field(default_factory=dict)

    @property
    def ran(self) -> list[RunResult]:
        return [r for r in self.results.values() if not r.skipped]

    @property
    def failed(self) -> list[RunResult]:
        return [r for r in self.results.values() if not r.ok and not r.busy]

    @property
    def busy(self) -> list[RunResult]:
        """Points another flashvp was running (their folders locked): not run here."""
        return [r for r in self.results.values() if r.busy]


def plan(grid: Grid, out: Path) -> list[tuple[Point, Path]]:
    pts = grid.points()
    seen: dict[str, Point] = {}
    for p in pts:
        if p.key in seen:
            raise SweepError(f"{grid.path}: two points are the same run ({seen[p.key].label()} and {p.label()})")
        seen[p.key] = p
    return [(p, out / "points" / p.key) for p in pts]


def writable_folder(folder: Path, sub: str = "points", option: str = "--out") -> None:
    """Creates `folder` and `folder/sub` and checks a file can be made
    there, so a read-only or misplaced --out is one line before anything
    runs, not a traceback or a failure per point."""
    try:
        (folder / sub).mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder / sub, prefix=".flashvp-probe-"):
            pass
    except OSError as e:
        raise SweepError(f"{option} {folder}: cannot write there ({e.strerror or e})") from None


def check_points(server: str, todo: list[Point], jobs: int) -> None:
    """vp-server --print-config on every point before anything runs."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        problems = [(p, m) for p, m in zip(todo, ex.map(lambda p: validate(server, p), todo), strict=True) if m]
    if problems:
        lines = [f"  {p.label()}: {m}" for p, m in problems[:20]]
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise SweepError(f"{len(problems)} of {len(todo)} points are refused by vp-server; nothing ran:\n"
                         + "\n".join(lines) + more)


def _client(scheduler: str | None, cluster: str | None, jobs: int, connect_timeout: float = 20,
            scratch: str | None = None) -> tuple[Client, Cluster | None]:
    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout=f"{connect_timeout}s"), None
        except (OSError, TimeoutError) as e:
            raise SweepError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({e})") from None
    if cluster in ("slurm", "pbs"):
        try:
            from dask_jobqueue.core import JobQueueCluster
            from dask_jobqueue.pbs import PBSCluster
            from dask_jobqueue.slurm import SLURMCluster
        except ImportError:
            raise SweepError("--cluster needs dask-jobqueue (pip install dask-jobqueue)") from None
        cls: type[JobQueueCluster] = SLURMCluster if cluster == "slurm" else PBSCluster
        try:
            # Each job is one single-threaded worker; the queue and sizes come
            # from dask-jobqueue's configuration (~/.config/dask/jobqueue.yaml).
            c = cls(cores=1, processes=1, memory=os.environ.get("FLASHVP_WORKER_MEMORY", "4GiB"))
            c.scale(jobs=jobs)
        except Exception as e:  # noqa: BLE001 - jobqueue raises plain errors for a missing sbatch/qsub
            raise SweepError(f"--cluster {cluster}: cannot start the cluster ({e})") from None
        return Client(c), c
    # A dashboard on a free port (no clash between sweeps running at once);
    # the workers' scratch space in the caller's folder (sweep() removes it).
    local = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=False, dashboard_address=":0",
                         local_directory=scratch)
    return Client(local), local


_CALL = "__import__('cloudpickle').loads(blob)(*args)"


def _task(remote: bool, *args: Any) -> tuple[Any, ...]:
    """The function and arguments of one point's task. Local workers call
    run_point; a cluster's workers get its code by value, so they need
    Python with dask.distributed and vp-server, not this package:
    distributed pickles an importable function by name, so the function
    goes as a cloudpickle blob that builtins.eval unpacks and calls."""
    if not remote:
        return (run_point, *args)
    import cloudpickle

    cloudpickle.register_pickle_by_value(worker)
    try:
        blob = cloudpickle.dumps(run_point)
    finally:
        cloudpickle.unregister_pickle_by_value(worker)
    return (eval, _CALL, {"blob": blob, "args": args})


def sweep(grid_path: str, out: str, server: str, jobs: int | None = None, scheduler: str | None = None,
          cluster: str | None = None, stream: TextIO | None = None, connect_timeout: float = 20,
          max_points: int = MAX_POINTS, desc: str = "sweep") -> SweepReport:
    jobs = jobs or os.cpu_count() or 1
    grid = Grid(grid_path, known_params(server), preset_digest=lambda name: preset_digest(server, name),
                max_points=max_points, units=unit_table(server))
    out_dir = Path(out).resolve()
    planned = plan(grid, out_dir)
    report = SweepReport([p for p, _ in planned])
    todo = []
    for p, f in planned:
        if finished(f, p.key):  # its folder's files only: no vp-server per point
            report.results[p.key] = RunResult(p.key, True, "ok", 0, 0.0, "", skipped=True)
        else:
            todo.append((p, f))
    writable_folder(out_dir)
    # Whole or not at all, for a collect or another sweep into the same folder reading it.
    tmp = out_dir / f".grid.json.{os.getpid()}"
    tmp.write_text(json.dumps(
        {"grid": grid.path, "axes": grid.axis_keys(), "points": [p.key for p in report.points]}, indent=1) + "\n")
    os.replace(tmp, out_dir / "grid.json")
    progress = Progress(len(todo), jobs, skipped=len(planned) - len(todo), stream=stream, desc=desc)
    if not todo:
        progress.begin()
        progress.end()
        return report
    check_points(server, [p for p, _ in todo], jobs)
    import dask

    scratch = tempfile.mkdtemp(prefix="flashvp-dask-")
    # Dask's lock files and spill space go there, not to /tmp/dask-scratch-space.
    with dask.config.set({"temporary-directory": scratch}):
        try:
            return _run(report, todo, progress, server, jobs, scheduler, cluster, connect_timeout, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _run(report: SweepReport, todo: list[tuple[Point, Path]], progress: Progress, server: str, jobs: int,
         scheduler: str | None, cluster: str | None, connect_timeout: float, scratch: str) -> SweepReport:
    from dask.distributed import as_completed

    client, cl = _client(scheduler, cluster, jobs, connect_timeout, scratch)
    try:
        slots = sum(client.nthreads().values()) or jobs
        progress.slots = slots
        progress.begin()
        remote = cl is None or cluster is not None
        futures = {client.submit(*_task(remote, server, p.args(), str(f), p.timeout, p.record()),
                                 key=f"flashvp-{p.key}", pure=False): p for p, f in todo}
        try:
            for fut in as_completed(futures):
                p = futures[fut]
                try:
                    r = result_of(p.key, fut.result())
                except Exception as e:  # noqa: BLE001 - a worker lost, say, is one failed point
                    r = RunResult(p.key, False, "failed", None, 0.0, f"flashvp: the worker failed: {e!r}")
                report.results[p.key] = r
                progress.finished(r.ok, p.label(), r.wall_s, busy=r.busy)
        except KeyboardInterrupt:
            client.cancel(list(futures))
            kill_all()  # local workers' children; the folders they leave are rerun next time
            raise
        progress.end()
        futures.clear()  # released while the client still runs, not from __del__ after it closed
    finally:
        _close(client, cl)
    return report


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's loggers muted: what they say while a finished sweep's cluster
    goes down (a comm closed under a heartbeat or a report loop, logged with
    a CommClosedError traceback) is no news to the user."""
    # logging.disable, not the "distributed" logger's level: its children
    # (distributed.client, .core, ...) carry levels of their own.
    before = logging.root.manager.disable
    logging.disable(logging.ERROR)
    try:
        yield
    finally:
        logging.disable(before)


def _close(client: Client, cl: Cluster | None) -> None:
    """The client first, then the cluster (scheduler and workers): a
    scheduler closed under a live client breaks the client's comm. Each
    step is tried even if the one before failed; a close that times out on
    a loaded machine is no failure of the sweep, whose results are written."""
    with _quiet_dask():
        for step in (client.close, cl.close if cl is not None else None):
            if step is None:
                continue
            try:
                step()
            except Exception:  # noqa: BLE001 - see above; a KeyboardInterrupt still goes through
                pass


def print_failures(report: SweepReport, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    by_key = {p.key: p for p in report.points}
    for r in report.failed:
        tail = "\n    ".join(r.stderr_tail.strip().splitlines()[-5:])
        stream.write(f"FAILED ({r.status}, exit {r.exit_code}) {by_key[r.key].label()} [points/{r.key}]\n    {tail}\n")
    for r in report.busy:
        stream.write(f"RUNNING ELSEWHERE {by_key[r.key].label()} [points/{r.key}]: another flashvp holds its "
                     f"lock; not run here (run the sweep again once that one ends)\n")
