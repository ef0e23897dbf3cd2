# SPDX-License-Identifier: BSD-3-Clause
"""Sweeps of the quick preset: points, resumption, failures, and the same
sweep through a Dask cluster given by address."""
import json
import os
import stat
from pathlib import Path

import pandas as pd
import pytest

from flashvp.cli import main
from flashvp.collect import collect

GRID = """\
base:
  preset: quick
  set: {{workload.randread.number_ios: 400}}
axes:
  product:
    workload.randread.iodepth: [1, {qd}]
    ssd.flash.t_read: 3us..6us step 3us
"""


def run_sweep(grid: Path, out: Path, *extra: str) -> int:
    return main(["sweep", str(grid), "--out", str(out), "--jobs", "2", *extra])


def ran(err: str) -> list[str]:
    """The points a sweep ran, from its plain progress lines."""
    return sorted(line.split(" (")[0][len("done "):] for line in err.splitlines() if line.startswith("done "))


def test_a_2x2_sweep_runs_4_points_and_resumes(write, tmp_path, server, capsys):
    grid = write("g.yaml", GRID.format(qd=8))
    out = tmp_path / "out"
    assert run_sweep(grid, out, "--server", server) == 0
    err = capsys.readouterr().err
    assert ran(err) == sorted(f"workload.randread.iodepth={q} ssd.flash.t_read={t} seed=1"
                              for q in (1, 8) for t in ("3us", "6us"))
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == 4 and set(df["job"]) == {"randread"}
    assert sorted(zip(df["workload.randread.iodepth"], df["ssd.flash.t_read"], strict=True)) == [
        (1, "3us"), (1, "6us"), (8, "3us"), (8, "6us")]
    assert (df["status"] == "ok").all()
    # Each row holds its own point's figures, and the point ran what it says.
    for _, row in df.iterrows():
        s = json.loads((out / "points" / row["point"] / "summary.json").read_text())
        job = s["jobs"][0]
        assert row["iops"] == job["iops"] == row["iops_all_jobs"]  # one job
        assert row["latency_us.read.p99"] == job["latency_us"]["read"]["p99"]
        assert row["counters.ssd.nvme.io_commands"] == s["counters"]["ssd.nvme.io_commands"]
        assert job["iodepth"] == row["workload.randread.iodepth"] and job["ios"] == 400
        cfg = (out / "points" / row["point"] / "config.yaml").read_text()
        assert f't_read: "{row["ssd.flash.t_read"]}"' in cfg
    # A longer read time raises the latency at either depth.
    lat = df.set_index(["workload.randread.iodepth", "ssd.flash.t_read"])["latency_us.read.mean"]
    assert lat[(1, "6us")] > lat[(1, "3us")] and lat[(8, "6us")] > lat[(8, "3us")]

    # Again: nothing runs.
    mtimes = {p: p.stat().st_mtime_ns for p in out.glob("points/*/summary.json")}
    assert run_sweep(grid, out, "--server", server) == 0
    err = capsys.readouterr().err
    assert ran(err) == [] and "4 finished before, skipped" in err
    assert mtimes == {p: p.stat().st_mtime_ns for p in out.glob("points/*/summary.json")}

    # One axis value changed (8 -> 16): only its two points run.
    grid.write_text(GRID.format(qd=16))
    assert run_sweep(grid, out, "--server", server) == 0
    err = capsys.readouterr().err
    assert ran(err) == sorted(f"workload.randread.iodepth=16 ssd.flash.t_read={t} seed=1" for t in ("3us", "6us"))
    assert "2 finished before, skipped" in err
    assert len(collect(str(out))) == 6  # the folder holds both sweeps' points


def test_a_failing_point_is_reported_and_the_others_finish(write, tmp_path, server, capsys):
    # A vp-server that accepts every configuration but dies running the qd=3 points.
    wrapper = write("vp-server-flaky", f"""\
        #!/bin/sh
        case "$*" in
          *--print-config*) ;;
          *iodepth=3*) echo "simulated crash at 1 ms" >&2; exit 3 ;;
        esac
        exec {server} "$@"
        """)
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    grid = write("g.yaml", "base: {preset: quick}\naxes: {product: {workload.randread.iodepth: [1, 2, 3, 4]}}\n")
    out = tmp_path / "out"
    assert run_sweep(grid, out, "--server", str(wrapper)) == 1
    err = capsys.readouterr().err
    assert "FAILED workload.randread.iodepth=3 seed=1" in err
    assert "FAILED (failed, exit 3) workload.randread.iodepth=3 seed=1" in err and "simulated crash at 1 ms" in err
    assert "3 done, 1 failed" in err
    df = collect(str(out))
    assert sorted(df[df["status"] == "ok"]["workload.randread.iodepth"]) == [1, 2, 4]
    assert list(df[df["status"] == "failed"]["workload.randread.iodepth"]) == [3]
    # The next sweep runs only the failed point again.
    assert run_sweep(grid, out, "--server", server) == 0
    err = capsys.readouterr().err
    assert ran(err) == ["workload.randread.iodepth=3 seed=1"]


def test_a_timeout_stops_the_point_and_leaves_no_process(write, tmp_path, server, capsys):
    grid = write("g.yaml", "base:\n  preset: quick\n  timeout: 0.2\n"
                           "axes: {points: [{workload.randread.number_ios: 50}, "
                           "{workload.randread.number_ios: 0, workload.randread.time_based: 1, "
                           "workload.randread.runtime: 100s}]}\n")
    out = tmp_path / "out"
    assert run_sweep(grid, out, "--server", server) == 1
    err = capsys.readouterr().err
    assert "FAILED (timeout, exit None)" in err and "timeout after 0.2 s" in err
    assert servers_writing_to(out) == []


def servers_writing_to(out: Path) -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if d.name.isdigit() and any(b"vp-server" in c for c in cmd[:1]) and any(str(out).encode() in c for c in cmd):
            pids.append(int(d.name))
    return pids


def test_bad_points_are_refused_before_anything_runs(write, tmp_path, server, capsys):
    grid = write("g.yaml", "base: {preset: quick}\n"
                           "axes: {product: {workload.randread.iodepth: [1, 2], workload.nojob.bs: [4k]}}\n")
    out = tmp_path / "out"
    assert run_sweep(grid, out, "--server", server) == 2
    err = capsys.readouterr().err
    assert "2 of 2 points are refused by vp-server; nothing ran" in err
    assert "workload.nojob.bs" in err and "no job 'nojob'" in err
    assert not list(out.glob("points/*"))
    # Refused at elaboration (no room for the cache in the SSD's DRAM), still before anything runs.
    grid.write_text("base: {preset: zssd, set: {ssd.cache.organisation: uni}}\n"
                    "axes: {product: {ssd.cache.size: [16MiB]}}\n")
    assert run_sweep(grid, out, "--server", server) == 2
    err = capsys.readouterr().err
    assert "1 of 1 points are refused" in err and "no room in the SSD DRAM" in err
    assert not list(out.glob("points/*"))
    grid.write_text("base: {preset: quick}\naxes:\n  product:\n    host.core: [1]\n")
    assert run_sweep(grid, out, "--server", server) == 2
    assert f"{grid}:4: axes.product.host.core: unknown parameter" in capsys.readouterr().err


def test_the_same_sweep_through_a_dask_cluster_given_by_address(write, tmp_path, server, capsys):
    import dask
    from dask.distributed import LocalCluster

    grid = write("g.yaml", GRID.format(qd=8))
    local, remote = tmp_path / "local", tmp_path / "remote"
    assert run_sweep(grid, local, "--server", server) == 0
    # Workers that cannot import flashvp: they get the point's code with the task.
    blocker = write("no_flashvp.py", "import sys\nsys.modules['flashvp'] = None\n")
    # Dask's scratch space (lock files) in the test's folder, not /tmp/dask-scratch-space.
    with dask.config.set({"temporary-directory": str(tmp_path / "dask")}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                         preload=[str(blocker)]) as cluster:
        assert run_sweep(grid, remote, "--server", server, "--scheduler", cluster.scheduler_address) == 0
    capsys.readouterr()
    a, b = collect(str(local)), collect(str(remote))
    # Same points, same figures, bit for bit (wall time aside).
    cols = [c for c in a.columns if "wall" not in c]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert main(["sweep", str(grid), "--out", str(tmp_path / "x"), "--server", server,
                 "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "1"]) == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


@pytest.mark.parametrize("sig, code", [("SIGTERM", 143), ("SIGINT", 130), ("SIGHUP", 129), ("SIGKILL", -9)])
def test_a_stopped_sweep_kills_its_points_and_leaves_no_scratch(write, tmp_path, server, sig, code):
    import signal
    import subprocess
    import sys
    import time

    grid = write("g.yaml", "base:\n  preset: quick\n"
                           "axes: {points: [{workload.randread.number_ios: 0, workload.randread.time_based: 1, "
                           "workload.randread.runtime: 100s}]}\n")
    out, scratch = tmp_path / "out", tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    p = subprocess.Popen([sys.executable, "-m", "flashvp", "sweep", str(grid), "--out", str(out), "--jobs", "1",
                          "--server", server], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not servers_writing_to(out) and time.time() < deadline:
        time.sleep(0.1)
    assert servers_writing_to(out), "the point never started"
    p.send_signal(getattr(signal, sig))
    _, err = p.communicate(timeout=60)
    assert p.returncode == code, err
    # kill -9 cannot be caught: the kernel kills the children (PR_SET_PDEATHSIG), not at once.
    deadline = time.time() + 10
    while servers_writing_to(out) and time.time() < deadline:
        time.sleep(0.1)
    assert servers_writing_to(out) == []
    if sig != "SIGKILL":
        assert "interrupted" in err
        assert list(scratch.glob("flashvp-dask-*")) == []


@pytest.fixture
def read_only(tmp_path):
    """A folder no one may write into, root included (chattr +i when the mode bits do not stop root)."""
    import subprocess

    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o555)
    immutable = False
    if os.access(d, os.W_OK):
        immutable = subprocess.run(["chattr", "+i", str(d)], capture_output=True).returncode == 0
        if not immutable:
            pytest.skip("cannot make a folder read-only here")
    yield d
    if immutable:
        subprocess.run(["chattr", "-i", str(d)], check=True)
    d.chmod(0o755)


def test_a_read_only_out_is_one_line_before_anything_runs(write, read_only, server, capsys):
    grid = write("g.yaml", "base: {preset: quick}\naxes: {product: {host.cores: [1]}}\n")
    for out in (read_only, read_only / "sub", Path(grid) / "sub"):  # the last: a file in the way
        assert run_sweep(grid, out, "--server", server) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"flashvp: --out {out}: cannot write there (") and err.count("\n") == 1, err
        assert "Traceback" not in err
    assert main(["repro", "rwiso", "--quick", "--out", str(read_only), "--server", server]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"flashvp: --out {read_only / 'rwiso'}: cannot write there (") and err.count("\n") == 1
    assert list(read_only.iterdir()) == []


def test_a_point_locked_by_another_flashvp_is_not_run_twice(write, tmp_path, server, capsys):
    import fcntl

    from flashvp.grid import Grid
    from flashvp.server import preset_digest

    grid = write("g.yaml", "base: {preset: quick, set: {workload.randread.number_ios: 200}}\n"
                           "axes: {product: {workload.randread.iodepth: [1, 2]}}\n")
    out = tmp_path / "out"
    keys = [p.key for p in Grid(str(grid), preset_digest=lambda n: preset_digest(server, n)).points()]
    held = out / "points" / keys[0]
    held.mkdir(parents=True)
    with open(held / ".flashvp.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as another sweep running that point would
        assert run_sweep(grid, out, "--server", server) == 1
        err = capsys.readouterr().err
        assert ran(err) == ["workload.randread.iodepth=2 seed=1"]
        assert "running elsewhere workload.randread.iodepth=1 seed=1" in err and "1 running elsewhere" in err
        assert f"RUNNING ELSEWHERE workload.randread.iodepth=1 seed=1 [points/{keys[0]}]" in err
        assert "FAILED" not in err
        assert sorted(q.name for q in held.iterdir()) == [".flashvp.lock"]  # not started, not touched
    # Released: the next sweep runs it alone. Its folder then holds the lock files (flashvp's and, from
    # vp-server, its own): dotfiles that do not stop it counting as finished.
    assert run_sweep(grid, out, "--server", server) == 0
    assert ran(capsys.readouterr().err) == ["workload.randread.iodepth=1 seed=1"]
    (held / ".vp-server.lock").touch()
    assert run_sweep(grid, out, "--server", server) == 0
    assert "2 finished before, skipped" in capsys.readouterr().err
    assert sorted(collect(str(out))["status"]) == ["ok", "ok"]


def test_two_sweeps_of_one_grid_into_one_folder_run_each_point_once(write, tmp_path, server):
    import subprocess
    import sys

    log = tmp_path / "runs.log"
    # A vp-server that logs each run (not the --print-config checks) and takes a second longer.
    wrapper = write("vp-server-logged", f"""\
        #!/bin/sh
        case "$*" in
          *--print-config*|*--list-params*) ;;
          *) echo "$$ $*" >> {log}; sleep 1 ;;
        esac
        exec {server} "$@"
        """)
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    grid = write("g.yaml", "base: {preset: quick, set: {workload.randread.number_ios: 200}}\n"
                           "axes: {product: {workload.randread.iodepth: [1, 2, 3, 4]}}\n")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "flashvp", "sweep", str(grid), "--out", str(out), "--jobs", "2",
           "--server", str(wrapper), "--no-collect"]
    sweeps = [subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    errs = [p.communicate(timeout=300)[1] for p in sweeps]
    for p, err in zip(sweeps, errs, strict=True):
        assert p.returncode in (0, 1) and "FAILED" not in err and "Traceback" not in err, err
    runs = [line.split("--out ")[1].split()[0] for line in log.read_text().splitlines()]
    assert len(runs) == 4 and len(set(runs)) == 4, (runs, errs)
    df = collect(str(out))
    assert sorted(df["workload.randread.iodepth"]) == [1, 2, 3, 4] and (df["status"] == "ok").all()


def test_a_cluster_going_down_noisily_leaves_a_clean_exit(write, tmp_path, server, capfd, monkeypatch):
    import logging

    from distributed import LocalCluster
    from distributed.comm.core import CommClosedError

    # Dask, closing a finished sweep's cluster, may log a CommClosedError traceback (a comm closed under
    # a report loop or a heartbeat) or raise one, timing-dependent: here it does both, every time.
    close = LocalCluster.close

    def noisy_close(self, *a, **k):
        close(self, *a, **k)
        try:
            raise CommClosedError("in <TCP (closed) ConnectionPool.heartbeat_worker>: Stream is closed")
        except CommClosedError:
            logging.getLogger("distributed.core").exception("Exception while closing")
            raise

    monkeypatch.setattr(LocalCluster, "close", noisy_close)
    grid = write("g.yaml", "base: {preset: quick, set: {workload.randread.number_ios: 100}}\n"
                           "axes: {product: {workload.randread.iodepth: [1, 2]}}\n")
    assert run_sweep(grid, tmp_path / "out", "--server", server) == 0
    err = capfd.readouterr().err
    assert "CommClosedError" not in err and "Traceback" not in err, err
    assert "2 done, 0 failed" in err


def test_a_vp_server_that_cannot_start_is_a_failed_point_not_a_worker_error(tmp_path):
    from flashvp.worker import run_point

    # As while the binary is being relinked: exec fails.
    st = run_point(str(tmp_path / "no-vp-server"), ["--preset", "quick"], str(tmp_path / "p"), None, {"key": "p"})
    assert st["status"] == "failed" and "cannot start" in st["stderr_tail"], st
    assert json.loads((tmp_path / "p" / "status.json").read_text())["status"] == "failed"


def test_resuming_a_finished_100_point_sweep_starts_no_vp_server(write, tmp_path, server, capsys, monkeypatch):
    import subprocess

    from flashvp import server as vp
    from flashvp.grid import Grid
    from flashvp.worker import finished

    grid = write("g.yaml", "base: {preset: quick}\naxes: {product: {workload.randread.iodepth: 1..100}}\n")
    out = tmp_path / "out"
    # 100 finished points, as a sweep leaves them: point.json, status.json ok naming the point's key, summary.json.
    points = Grid(str(grid), vp.known_params(server), preset_digest=lambda n: vp.preset_digest(server, n),
                  units=vp.unit_table(server)).points()
    assert len(points) == 100
    for p in points:
        folder = out / "points" / p.key
        folder.mkdir(parents=True)
        (folder / "point.json").write_text(json.dumps(p.record()))
        (folder / "status.json").write_text(json.dumps({"status": "ok", "key": p.key}))
        (folder / "summary.json").write_text(json.dumps({"schema_version": 2, "jobs": []}))

    started: list[list[str]] = []

    class Recorded(subprocess.Popen):
        def __init__(self, args, *a, **k):
            started.append([str(x) for x in args])
            super().__init__(args, *a, **k)

    monkeypatch.setattr(subprocess, "Popen", Recorded)
    assert run_sweep(grid, out, "--server", server, "--no-collect") == 0
    assert "100 finished before, skipped" in capsys.readouterr().err
    # The binary's parameters and the preset's digest were asked above, once per binary: nothing is started.
    assert started == []
    # In a new process (the caches empty): the two questions per binary, none per point.
    vp._list_params.cache_clear()
    vp._preset_digest.cache_clear()
    assert run_sweep(grid, out, "--server", server, "--no-collect") == 0
    assert sorted(c[1:] for c in started) == [["--list-params", "--json"], ["--preset", "quick", "--print-config"]]
    capsys.readouterr()

    # What makes a folder finished: status ok naming this point's key (or, written before the key was
    # recorded, point.json's), and a summary.
    folder = out / "points" / points[0].key
    assert finished(folder, points[0].key) and not finished(folder, points[1].key)
    (folder / "status.json").write_text(json.dumps({"status": "ok"}))
    assert finished(folder, points[0].key)
    (folder / "status.json").write_text(json.dumps({"status": "ok", "key": points[1].key}))
    assert not finished(folder, points[0].key)
    (folder / "status.json").write_text(json.dumps({"status": "failed", "key": points[0].key}))
    assert not finished(folder, points[0].key)


def test_progress_is_a_tqdm_bar_on_a_terminal_and_plain_lines_elsewhere():
    import io

    from flashvp.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    plain = io.StringIO()
    p = Progress(3, 2, skipped=1, stream=plain)
    p.begin()
    p.finished(True, "a=1 seed=1", 1.25)
    p.finished(False, "a=2 seed=1", 0.5)
    p.end()
    lines = plain.getvalue().splitlines()
    assert lines[0] == "sweep: 3 points to run on 2 slots (1 finished before, skipped)"
    # One line per point, with tqdm's count, elapsed time, ETA and rate, then the counts: no control characters.
    assert lines[1].startswith("done a=1 seed=1 (1.2 s); 1/3 points [00:00<") and "points/s]" in lines[1]
    assert lines[1].endswith(": 1 done, 0 failed, 2 running")
    assert lines[2].startswith("FAILED a=2 seed=1 (0.5 s); 2/3 points [")
    assert lines[3].startswith("sweep: 1 done, 1 failed, 1 skipped in 00:0")
    assert "\r" not in plain.getvalue() and "\x1b" not in plain.getvalue()

    tty = Terminal()
    p = Progress(2, 2, stream=tty, desc="rwiso/mix")
    p.begin()
    p.finished(False, "a=2 seed=1", 0.5)
    p.finished(True, "a=1 seed=1", 0.5)
    p.end()
    text = tty.getvalue()
    # A redrawn bar (tqdm's) with the counts and the ETA; a failure printed above it.
    assert "\r" in text and "rwiso/mix: 100%" in text and "2/2" in text and "<00:00" in text
    assert "failed: a=2 seed=1\n" in text and "1 done, 1 failed, 0 running" in text
    assert text.endswith("rwiso/mix: 1 done, 1 failed, 0 skipped in 00:00\n")
