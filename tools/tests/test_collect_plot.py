# SPDX-License-Identifier: BSD-3-Clause
"""collect and plot: files written, and figures whose lines, bars and
error bars are read back from the figure object."""
import json
import math
import subprocess

import pandas as pd
import pytest

from flashvp.cli import main
from flashvp.collect import SchemaError, collect, flatten, load_summary
from flashvp.plot import PlotError, interval, plot_table


def known_table() -> pd.DataFrame:
    # Two queue depths x two read times x three seeds; p99 = 10 x qd + t + seed.
    rows = []
    for qd in (1, 4):
        for t in ("3us", "6us"):
            for seed in (1, 2, 3):
                rows.append({"point": f"{qd}{t}", "status": "ok", "seed": seed, "qd": qd, "ssd.flash.t_read": t,
                             "job": "r", "latency_us.read.p99": 10 * qd + int(t[0]) + seed,
                             "latency_us.read.count": 2000 + seed})
    return pd.DataFrame(rows)


def legend_lines(ax):
    return [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]


def series(ax):
    """(label, data line) of each errorbar series."""
    return [(c.get_label(), c.lines[0]) for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]


def test_line_plot_has_one_line_per_hue_with_means_and_t_intervals():
    fig = plot_table(known_table(), "qd", "latency_us.read.p99", hue="ssd.flash.t_read")
    ax = fig.axes[0]
    assert [lbl for lbl, _ in series(ax)] == ["ssd.flash.t_read=3us", "ssd.flash.t_read=6us"]
    lines = [ln for _, ln in series(ax)]
    # Each mean has its error bar: 2 points per series.
    assert [len(c.lines[2][0].get_segments()) for c in ax.containers] == [2, 2]
    # Means over seeds 1-3 (+2): 10 qd + t + 2.
    assert list(lines[0].get_xdata()) == [1, 4] and list(lines[0].get_ydata()) == [15, 45]
    assert list(lines[1].get_ydata()) == [18, 48]
    # Three values 1 apart: sd 1, half-width t(2 df) / sqrt(3) = 4.303 / 1.732.
    m, h, n = interval(pd.Series([14, 15, 16]))
    assert (m, n) == (15, 3) and h == pytest.approx(4.303 / math.sqrt(3), rel=1e-4)
    # Student's t from scipy at any count (the 95% quantile tends to 1.96).
    assert interval(pd.Series([0.0, 1.0] * 50))[1] == pytest.approx(1.984 * 0.5025 / 10, rel=1e-3)
    note = fig.texts[0].get_text()
    assert "mean of 3 runs, 95% interval" in note and "fewest samples per run 2,001" in note


def test_a_load_curve_puts_each_swept_value_at_its_mean_x_and_y():
    df = known_table()
    df["iops"] = 1000 * df["qd"] + df["seed"]  # means 1002 and 4002
    fig = plot_table(df[df["ssd.flash.t_read"] == "3us"], "iops", "latency_us.read.p99", by="qd")
    (label, line), = series(fig.axes[0])
    assert list(line.get_xdata()) == [1002, 4002] and list(line.get_ydata()) == [15, 45]
    assert "mean of 3 runs per qd" in fig.texts[0].get_text()
    # Each point is labelled with its qd.
    assert [t.get_text() for t in fig.axes[0].texts] == ["1", "4"]


def test_bar_cdf_and_box_plots_have_the_expected_artists():
    df = known_table()
    bar = plot_table(df, "qd", "latency_us.read.p99", hue="ssd.flash.t_read", kind="bar").axes[0]
    assert len(bar.containers) >= 2
    bars = [c for c in bar.containers if type(c).__name__ == "BarContainer"]
    assert [len(c) for c in bars] == [2, 2]
    assert [p.get_height() for p in bars[1]] == [18, 48]
    cdf = plot_table(df, None, "latency_us.read.p99", hue="qd", kind="cdf").axes[0]
    steps = legend_lines(cdf)
    assert [ln.get_label() for ln in steps] == ["qd=1 (n=6)", "qd=4 (n=6)"]
    assert list(steps[0].get_ydata())[-1] == 1.0
    box = plot_table(df, "qd", "latency_us.read.p99", kind="box").axes[0]
    assert [t.get_text() for t in box.get_xticklabels()] == ["1", "4"]
    with pytest.raises(PlotError, match="no column 'latency_us.read.p95'"):
        plot_table(df, "qd", "latency_us.read.p95")
    with pytest.raises(PlotError, match="--job 'w'"):
        plot_table(df, "qd", "latency_us.read.p99", job="w")


def test_values_with_units_plot_as_numbers_in_their_unit():
    fig = plot_table(known_table(), "ssd.flash.t_read", "latency_us.read.p99", hue="qd")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "ssd.flash.t_read (us)"
    assert list(series(ax)[0][1].get_xdata()) == [3.0, 6.0]


def test_collect_plot_and_plot_run_write_their_files(write, tmp_path, server, capsys):
    grid = write("g.yaml", "base: {preset: quick, trace: [requests]}\n"
                           "axes: {product: {workload.randread.iodepth: [1, 8]}}\nseeds: 2\n")
    out = tmp_path / "s"
    assert main(["sweep", str(grid), "--out", str(out), "--jobs", "2", "--server", server, "--no-collect"]) == 0
    assert main(["collect", str(out)]) == 0
    assert (out / "results.parquet").is_file() and (out / "results.csv").is_file()
    df = pd.read_csv(out / "results.csv")
    assert len(df) == 4 and sorted(df["seed"]) == [1, 1, 2, 2]
    assert main(["plot", str(out / "results.parquet"), "--x", "workload.randread.iodepth",
                 "--y", "latency_us.read.p99", "--out", str(tmp_path / "p" / "qd")]) == 0
    assert (tmp_path / "p" / "qd.png").stat().st_size > 1000 and (tmp_path / "p" / "qd.svg").is_file()
    run = next(out.glob("points/*"))
    assert main(["plot-run", str(run)]) == 0
    assert sorted(p.name for p in (run / "plots").iterdir()) == [
        "breakdown.png", "breakdown.svg", "latency_cdf.png", "latency_cdf.svg"]
    capsys.readouterr()
    assert main(["plot", str(out), "--x", "nothing", "--y", "iops"]) == 2
    assert "no column 'nothing'" in capsys.readouterr().err


def test_plot_run_draws_the_write_buffer_and_cache_epochs_when_present(tmp_path, server):
    run = tmp_path / "fd"
    subprocess.run([server, "--preset", "quick", "--set", "ssd.cache.organisation=fastdrain",
                    "--set", "ssd.cache.size=1MiB", "--set", "workload.randread.rw=randwrite",
                    "--out", str(run)], check=True, capture_output=True)
    assert main(["plot-run", str(run)]) == 0
    assert (run / "plots" / "write_buffer.png").is_file()
    ep = tmp_path / "ep"
    subprocess.run([server, "--preset", "quick", "--set", "ssd.cache.organisation=split", "--set",
                    "workload.randread.workload_attr=1", "--trace", "cache", "--out", str(ep)], check=True,
                   capture_output=True)
    assert main(["plot-run", str(ep)]) == 0
    assert (ep / "plots" / "cache_epochs.png").is_file()


def test_a_summary_of_another_layout_is_refused_naming_the_file(tmp_path, capsys):
    p = tmp_path / "summary.json"
    p.write_text(json.dumps({"schema_version": 99, "jobs": []}))
    with pytest.raises(SchemaError, match=f"{p}: schema_version 99; this flashvp reads 1, 2, 3"):
        load_summary(p)
    assert flatten({"a": {"b": 1, "c": [1, 2]}, "d": [{"e": 2}]}) == {"a.b": 1, "d.0.e": 2}
    with pytest.raises(FileNotFoundError, match="no points"):
        collect(str(tmp_path))


def test_collect_names_the_runs_figures_by_part_whatever_the_summarys_version(tmp_path):
    # One point of a version 1 summary (a sweep from before version 2) and one of
    # version 2: the same columns. The page cache's dirty_ratio is also a swept
    # parameter (swept 20, 40; the runs' ratio in effect 15, 35): the parameter
    # keeps the name, the figure is summary.<name>.
    v1 = {"schema_version": 1, "platform": "server", "sim_time_s": 1.0,
          "jobs": [{"name": "r", "iops": 100.0, "latency_us": {"read": {"p99": 50.0}}}],
          "cpu": [{"core": 0, "user_pct": 10.0}, {"core": 1, "user_pct": 30.0}],
          "pagecache": {"active": True, "dirty_ratio": 15}, "device": {"read_commands": 100},
          "ftl": {"host_page_writes": 7}, "accel": {"merges": 4}, "accel.pcie": {"up": {"bytes": 3}},
          "counters": {"host.polls": 5}, "counter_units": {"host.polls": "polls"}}
    v2 = {"schema_version": 2, "platform": "server", "sim_time_s": 1.0,
          "jobs": [{"name": "r", "iops": 200.0, "latency_us": {"read": {"p99": 60.0}}}],
          "host": {"cpu": [{"core": 0, "user_pct": 11.0}, {"core": 1, "user_pct": 31.0}],
                   "pagecache": {"active": True, "dirty_ratio": 35}},
          "drives": [{"name": "ssd", "path": "/dev/nvme0n1", "device": {"read_commands": 200},
                      "ftl": {"host_page_writes": 8}}],
          "accelerators": [{"name": "accel", "accel": {"merges": 6}, "pcie": {"up": {"bytes": 4}}}],
          "switches": [], "counters": {"host.polls": 6}, "counter_units": {"host.polls": "polls"}}
    for key, ratio, summary in (("a", 20, v1), ("b", 40, v2)):
        folder = tmp_path / "points" / key
        folder.mkdir(parents=True)
        (folder / "point.json").write_text(json.dumps({"key": key, "seed": 1,
                                                       "params": {"host.pagecache.dirty_ratio": ratio}}))
        (folder / "status.json").write_text(json.dumps({"status": "ok"}))
        (folder / "summary.json").write_text(json.dumps(summary))
    df = collect(str(tmp_path))
    figures = ["drives.0.device.read_commands", "drives.0.ftl.host_page_writes", "host.cpu.1.user_pct",
               "accelerators.0.accel.merges", "accelerators.0.pcie.up.bytes", "counters.host.polls",
               "host.pagecache.dirty_ratio", "summary.host.pagecache.dirty_ratio"]
    assert df[["point", "job", *figures]].values.tolist() == [
        ["a", "r", 100, 7, 30.0, 4, 3, 5, 20, 15], ["b", "r", 200, 8, 31.0, 6, 4, 6, 40, 35]]
    assert list(df["drives.0.name"]) == ["ssd", "ssd"] and list(df["drives.0.path"]) == ["/dev/nvme0n1"] * 2
    assert not any(c.startswith(("device.", "cpu.", "accel.", "switches", "schema_version")) for c in df.columns)


def test_series_and_categories_are_in_natural_order():
    # As text, 20us sorts before 3us and 100ns last; by value it is 100ns, 3us, 20us.
    rows = [{"status": "ok", "t": t, "x": x, "y": float(i)} for i, t in enumerate(["20us", "3us", "100ns"])
            for x in ("host10", "host2")]
    df = pd.DataFrame(rows)
    line = plot_table(df, "x", "y", hue="t").axes[0]
    assert [lbl for lbl, _ in series(line)] == ["t=100ns", "t=3us", "t=20us"]
    box = plot_table(df, "t", "y", kind="box").axes[0]
    assert [t.get_text() for t in box.get_xticklabels()] == ["0.1", "3", "20"]  # in us, the first value's unit
    bar = plot_table(df, "x", "y", kind="bar").axes[0]
    assert [t.get_text() for t in bar.get_xticklabels()] == ["host2", "host10"]


def test_axes_are_labelled_from_the_parameters_descriptions_or_as_given(server):
    from flashvp.server import list_params, unit_table

    params = list_params(server)
    fig = plot_table(known_table(), "ssd.flash.t_read", "latency_us.read.p99", hue="qd", params=params,
                     units=unit_table(server))
    # "array read time tR of an LSB page (every page of an SLC)": the remark in parentheses left out.
    assert fig.axes[0].get_xlabel() == "array read time tR of an LSB page (us)\nssd.flash.t_read"
    assert fig.axes[0].get_ylabel() == "latency_us.read.p99"  # a figure, not a parameter
    fig = plot_table(known_table(), "ssd.flash.t_read", "latency_us.read.p99", params=params,
                     xlabel="tR", ylabel="p99 (us)")
    assert (fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()) == ("tR", "p99 (us)")


def test_runs_per_mean_say_one_count_when_all_means_have_it():
    df = known_table()
    df = df[~((df["qd"] == 4) & (df["seed"] == 3))]  # qd 4 has 2 runs per mean, qd 1 has 3
    note = plot_table(df, "qd", "latency_us.read.p99", hue="ssd.flash.t_read").texts[0].get_text()
    assert note.startswith("mean of 2-3 runs, 95% interval")
    # A box holds both read times' rows: 6 at qd 1, 4 at qd 4; 6 each with every seed.
    assert plot_table(df, "qd", "latency_us.read.p99", kind="box").texts[0].get_text().startswith("4-6 runs per box")
    assert plot_table(known_table(), "qd", "latency_us.read.p99", kind="box").texts[0].get_text().startswith(
        "6 runs per box")


def test_log_axes_tick_at_powers_of_two_or_at_decades_with_plain_labels():
    qd = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    df = pd.DataFrame({"status": "ok", "qd": qd, "lat": [10.0 * 1.8 ** i for i in range(9)],
                       "iops": [1000.0 * q for q in qd]})
    fig = plot_table(df, "qd", "lat", logx=True, logy=True, label="iops")
    fig.canvas.draw()
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.xaxis.get_scale() == "log"
    shown = [t.get_text() for t in ax.get_xticklabels() if 1 <= t.get_position()[0] <= 256]
    assert shown == ["1", "2", "4", "8", "16", "32", "64", "128", "256"]
    # 10 to 1,100 us: the decades are the major ticks, labelled as numbers.
    decades = [t.get_text() for t in ax.get_yticklabels() if 10 <= t.get_position()[1] <= 1100]
    assert decades == ["10", "100", "1,000"]
    # Each point carries its IOPS.
    assert [t.get_text() for t in ax.texts] == ["1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k", "256k"]
    # Values that are not powers of two: decades on x too; within two decades the 2s and 5s are labelled.
    fig = plot_table(df.assign(qd=[3 * q for q in qd][:9]), "qd", "lat", logx=True)
    fig.canvas.draw()
    ax = fig.axes[0]
    assert ax.xaxis.get_major_locator()._base == 10
    small = plot_table(df[df["qd"] <= 16], "iops", "lat", logx=True, logy=True)
    small.canvas.draw()
    minor = [t.get_text() for t in small.axes[0].yaxis.get_minorticklabels() if t.get_text()]
    assert "20" in minor and "50" in minor
