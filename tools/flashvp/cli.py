# SPDX-License-Identifier: BSD-3-Clause
"""The flashvp command: sweep, collect, plot, plot-run, repro (docs/tools.md, docs/study-*.md).

Exit status: 0 done; 1 some points failed or were running in another
flashvp (their folders locked); 2 bad input (grid, table,
column, option) or a sweep that could not start, with a message naming it;
128 + the signal when stopped by SIGINT (130), SIGHUP (129) or SIGTERM (143).
"""
from __future__ import annotations

import argparse
import atexit
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="flashvp", description="Sweeps of vp-server runs, results tables and plots.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("sweep", help="run every point of a grid file (resumable)")
    s.add_argument("grid", help="the grid file (YAML: base, axes, seeds)")
    s.add_argument("--out", default=None, help="the sweep's folder (default: sweeps/<grid name>)")
    where = s.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler (tcp://HOST:PORT)")
    where.add_argument("--cluster", choices=["local", "slurm", "pbs"], default="local",
                       help="where to run: local worker threads (default), or a cluster started by dask-jobqueue")
    s.add_argument("--jobs", type=int, default=None,
                   help="points at once (default: the CPU count; with --cluster, the batch jobs to start)")
    s.add_argument("--connect-timeout", type=float, default=20, metavar="SECONDS",
                   help="with --scheduler: how long to try to reach it (default 20)")
    s.add_argument("--server", default=None, help="vp-server binary (default: $FLASHVP_SERVER, build/bin, PATH)")
    s.add_argument("--no-collect", action="store_true", help="do not write the results table at the end")
    s.add_argument("--max-points", type=int, default=None, metavar="N",
                   help="allow a grid of up to N runs, points x seeds (default 100,000)")

    c = sub.add_parser("collect", help="gather a sweep's summaries into one table (Parquet and CSV)")
    c.add_argument("dir", help="the sweep's folder")
    c.add_argument("--out", default=None, help="the table's path without suffix (default: DIR/results)")

    pl = sub.add_parser("plot", help="plot a results table (PNG and SVG)")
    pl.add_argument("table", help="results.parquet or .csv (or the sweep folder)")
    pl.add_argument("--x", default=None, help="column on the x axis (not needed for --kind cdf)")
    pl.add_argument("--y", required=True, help="column on the y axis (e.g. latency_us.read.p99)")
    pl.add_argument("--hue", default=None, help="column whose values make separate series")
    pl.add_argument("--kind", default="line", choices=["line", "bar", "cdf", "box"])
    pl.add_argument("--job", default=None, help="only the rows of this job")
    pl.add_argument("--by", default=None,
                    help="line plots: one point per value of this column, at the means of x and y (x a figure, "
                         "e.g. --x iops --y latency_us.read.p99 --by <the swept queue depth>)")
    pl.add_argument("--label", default=None, metavar="COLUMN",
                    help="line plots: write the mean of this column beside each point (e.g. --label iops)")
    pl.add_argument("--title", default=None)
    pl.add_argument("--xlabel", default=None, help="the x axis's label (default: the parameter's description and "
                                                    "unit, or the column's name)")
    pl.add_argument("--ylabel", default=None, help="the y axis's label (as --xlabel)")
    pl.add_argument("--logx", action="store_true",
                    help="log x axis: ticks at each power of two when every x is one (queue depths, sizes), "
                         "else at decades")
    pl.add_argument("--logy", action="store_true", help="log y axis, ticks at decades")
    pl.add_argument("--server", default=None,
                    help="vp-server whose parameter descriptions label the axes (default: $FLASHVP_SERVER, "
                         "build/bin, PATH; without one, the columns' names)")
    pl.add_argument("--out", default=None, help="path without suffix (default: beside the table, named after y)")

    rp = sub.add_parser("repro", help="reproduce a paper's evaluation: runs, report.md and figures beside the paper's")
    rp.add_argument("study", choices=["flashshare", "deepflash", "fastdrain", "rwiso", "composed"])
    rp.add_argument("--quick", action="store_true", help="a small scale in a few minutes (directions only)")
    rp.add_argument("--out", default="repro", help="folder; the study's outputs go to OUT/<study>/ (default: repro)")
    rwhere = rp.add_mutually_exclusive_group()
    rwhere.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler (tcp://HOST:PORT)")
    rwhere.add_argument("--cluster", choices=["local", "slurm", "pbs"], default="local",
                        help="where to run (as for sweep)")
    rp.add_argument("--jobs", type=int, default=None, help="runs at once (default: the CPU count)")
    rp.add_argument("--only", default=None, metavar="VARIANT[,VARIANT...]",
                    help="run only these variants (application pairs such as ap+PR, patterns, mixes); "
                         "the report covers what ran")
    rp.add_argument("--server", default=None, help="vp-server binary (default: $FLASHVP_SERVER, build/bin, PATH)")
    rp.add_argument("--update-docs", default=None, metavar="PAGE",
                    help="also write the report's figures into PAGE (a docs/study-*.md) between its "
                         "<!-- quick:begin --> and <!-- quick:end --> lines (full scale: full:begin / full:end)")

    r = sub.add_parser("plot-run", help="the ready plots of one vp-server output folder")
    r.add_argument("dir", help="a vp-server output folder (summary.json, requests.csv, ...)")
    r.add_argument("--out", default=None, help="folder for the plots (default: DIR/plots)")
    return p


def _fail(msg: str) -> int:
    sys.stderr.write(f"flashvp: {msg}\n")
    return 2


# Ctrl-C, kill(1) or a batch system ending the job, a closed terminal.
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_caught: list[int] = []


def _stopped(signum: int, frame: FrameType | None) -> None:
    # The running points' vp-servers (in their own sessions, which no
    # terminal signal reaches) are killed at once; then the sweep unwinds
    # as on Ctrl-C (Dask closed, its scratch folder removed) and exits
    # 128 + the signal. A second signal while unwinding stops at once.
    from flashvp import worker

    worker.kill_all(wait=False)
    if _caught:
        os._exit(128 + signum)
    _caught.append(signum)
    raise KeyboardInterrupt


def _interrupted(what: str, again: str) -> int:
    try:
        sys.stderr.write(f"\nflashvp: interrupted; finished {what} are kept, run {again} again to go on\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # the terminal is gone (SIGHUP)
        pass
    return 128 + (_caught[0] if _caught else signal.SIGINT)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if threading.current_thread() is not threading.main_thread():
        return _main(args)
    from flashvp import worker

    # Any exit Python sees (an uncaught error, sys.exit) ends the children too;
    # kill -9 cannot be caught: the children's PR_SET_PDEATHSIG covers it.
    atexit.unregister(worker.kill_all)
    atexit.register(worker.kill_all)
    _caught.clear()
    before = {s: signal.signal(s, _stopped) for s in _STOP_SIGNALS}
    try:
        return _main(args)
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def _main(args: argparse.Namespace) -> int:
    if args.command == "sweep":
        return _sweep(args)
    if args.command == "repro":
        return _repro(args)
    if args.command == "collect":
        from flashvp.collect import SchemaError, collect, write_table

        try:
            df = collect(args.dir)
        except (FileNotFoundError, SchemaError) as e:
            return _fail(str(e))
        for f in write_table(df, Path(args.out) if args.out else Path(args.dir) / "results"):
            print(f)
        return 0
    if args.command == "plot":
        from flashvp.collect import read_table
        from flashvp.plot import PlotError, plot_table, save
        from flashvp.server import ServerError, find_server, list_params, unit_table
        from flashvp.units import BUILTIN

        try:
            server = find_server(args.server)
            params, units = list_params(server), unit_table(server)
        except ServerError as e:
            if args.server:
                return _fail(str(e))
            params, units = None, BUILTIN  # no binary at hand: the columns' names label the axes
        try:
            df = read_table(args.table)
            fig = plot_table(df, args.x, args.y, hue=args.hue, kind=args.kind, job=args.job, title=args.title,
                             logx=args.logx, logy=args.logy, by=args.by, xlabel=args.xlabel, ylabel=args.ylabel,
                             label=args.label, params=params, units=units)
        except (FileNotFoundError, PlotError) as e:
            return _fail(str(e))
        table = Path(args.table)
        folder = table if table.is_dir() else table.parent
        name = f"{args.kind}-{args.y}" + (f"-by-{args.x}" if args.x else "")
        for f in save(fig, Path(args.out) if args.out else folder / "plots" / name.replace("/", "_")):
            print(f)
        return 0
    from flashvp.collect import SchemaError
    from flashvp.plot_run import plot_run

    try:
        files = plot_run(args.dir, args.out)
    except (FileNotFoundError, SchemaError) as e:
        return _fail(str(e))
    for f in files:
        print(f)
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from flashvp.collect import SchemaError, collect, write_table
    from flashvp.grid import MAX_POINTS, GridError
    from flashvp.server import ServerError, find_server
    from flashvp.sweep import SweepError, print_failures, sweep

    if args.jobs is not None and args.jobs < 1:
        return _fail(f"--jobs {args.jobs}: must be 1 or more")
    if args.max_points is not None and args.max_points < 1:
        return _fail(f"--max-points {args.max_points}: must be 1 or more")
    out = args.out or os.path.join("sweeps", Path(args.grid).stem)
    cluster = None if args.cluster == "local" else args.cluster
    try:
        report = sweep(args.grid, out, find_server(args.server), jobs=args.jobs, scheduler=args.scheduler,
                       cluster=cluster, connect_timeout=args.connect_timeout,
                       max_points=args.max_points or MAX_POINTS)
    except (GridError, SweepError, ServerError) as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return _interrupted("points", "the sweep")
    print_failures(report)
    if not args.no_collect:
        try:
            for f in write_table(collect(out), Path(out) / "results"):
                print(f)
        except (FileNotFoundError, SchemaError) as e:
            return _fail(str(e))
    return 1 if report.failed or report.busy else 0


def _repro(args: argparse.Namespace) -> int:
    from flashvp.grid import GridError
    from flashvp.repro import ReproError, repro
    from flashvp.server import ServerError, find_server
    from flashvp.summary import SchemaError
    from flashvp.sweep import SweepError

    if args.jobs is not None and args.jobs < 1:
        return _fail(f"--jobs {args.jobs}: must be 1 or more")
    cluster = None if args.cluster == "local" else args.cluster
    try:
        report = repro(args.study, args.out, find_server(args.server), quick=args.quick, jobs=args.jobs,
                       scheduler=args.scheduler, cluster=cluster,
                       only=args.only.split(",") if args.only else None, update_docs=args.update_docs)
    except ReproError as e:
        sys.stderr.write(f"flashvp: {e}\n")
        return 1
    except (GridError, SweepError, ServerError, SchemaError) as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return _interrupted("runs", "repro")
    print(report)
    return 0
