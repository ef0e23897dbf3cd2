# SPDX-License-Identifier: BSD-3-Clause
"""fio.json read as a script written for fio reads fio's --output-format=json:
plain json, fio's keys, nothing of flashvp's. A rated job's figures worked out
by hand, and the same run's summary.json agreeing."""
import json
import subprocess
from pathlib import Path


def fio_report(path: Path) -> dict[str, dict[str, float]]:
    """What a typical fio post-processing script takes of each job's reads."""
    with open(path) as f:
        d = json.load(f)
    out = {}
    for job in d["jobs"]:
        r = job["read"]
        out[job["jobname"]] = {
            "iops": r["iops"],
            "bw_kib": r["bw"],
            "io_kib": r["io_kbytes"],
            "runtime_ms": r["runtime"],
            "clat_p99_us": r["clat_ns"]["percentile"]["99.000000"] / 1000,
            "clat_p50_us": r["clat_ns"]["percentile"]["50.000000"] / 1000,
            "lat_mean_us": r["lat_ns"]["mean"] / 1000,
            "slat_mean_us": r["slat_ns"]["mean"] / 1000,
            "clat_mean_us": r["clat_ns"]["mean"] / 1000,
        }
    return out


def test_a_fio_script_reads_fio_json(write, tmp_path, server):
    # One 4 KiB read every 100 us for 20 ms: 200 reads, 10,000 IOPS, 40,000 KiB/s.
    job = write("rated.fio", """\
        [rated]
        direct=1
        rw=randread
        bs=4k
        rate_iops=10000
        runtime=20ms
        time_based
        """)
    out = tmp_path / "out"
    subprocess.run([server, "--preset", "quick", "--job", str(job), "--out", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    rep = fio_report(out / "fio.json")
    assert list(rep) == ["rated"]
    r = rep["rated"]
    assert r["io_kib"] == 200 * 4
    assert r["runtime_ms"] == 20
    assert abs(r["iops"] - 10000) < 100
    assert abs(r["bw_kib"] - 40000) < 400
    assert 0 < r["clat_p50_us"] <= r["clat_p99_us"]
    assert abs(r["slat_mean_us"] + r["clat_mean_us"] - r["lat_mean_us"]) < 1e-6
    with open(out / "summary.json") as f:
        lat = json.load(f)["jobs"][0]["latency_us"]["read"]
    assert abs(r["lat_mean_us"] - lat["mean"]) < 1e-6
