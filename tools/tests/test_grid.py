# SPDX-License-Identifier: BSD-3-Clause
"""Grid files: expansion against hand-written lists, and errors that name
the file, the line and the key."""
import pytest

from flashvp.grid import Grid, GridError
from flashvp.units import UnitError, expand_list, expand_range

KNOWN = {"host.cores", "ssd.flash.t_read", "ssd.fw.cores", "ssd.fw.organisation", "ssd.cache.size",
         "host.nvme.completion", "accel.enabled"}


def test_ranges_with_units_and_ellipses():
    assert expand_range("3us..9us step 1us") == ["3us", "4us", "5us", "6us", "7us", "8us", "9us"]
    assert expand_range("0.5us..2us step 500ns") == ["0.5us", "1us", "1.5us", "2us"]
    assert expand_range("1..4") == [1, 2, 3, 4]
    assert expand_range("256MiB..1GiB step 256MiB") == ["256MiB", "512MiB", "768MiB", "1024MiB"]
    assert expand_list([1, 2, 4, "...", 256]) == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert expand_list([10, 20, "...", 50]) == [10, 20, 30, 40, 50]
    assert expand_list(["1us", "3us", "...", "9us"]) == ["1us", "3us", "5us", "7us", "9us"]
    assert expand_list(["a", "b"]) == ["a", "b"]
    for bad, why in [("3us..9us", "needs a step"), ("3us..9KiB step 1us", "one kind"),
                     ("3us..10us step 2us", "do not reach"), ("9us..3us step 1us", "below the start"),
                     ("1..3 step 0", "above 0"), ("3xs..9xs step 1xs", "unknown unit")]:
        with pytest.raises(UnitError, match=why):
            expand_range(bad)
    for bad, why in [([1, 2, 4, "...", 100], "does not reach 100"), ([1, "...", 8], "at least two terms"),
                     ([1, 2, 5, "...", 8], "neither one ratio"), ([1, 2, "...", 8, 9], "before the last")]:
        with pytest.raises(UnitError, match=why):
            expand_list(bad)


def test_product_zip_points_and_seeds_expand_in_order(write):
    g = write("g.yaml", """\
        base:
          preset: quick
          set: {host.cores: 2}
          seed: 7
        axes:
          product:
            ssd.flash.t_read: 3us..4us step 1us
            host.nvme.completion: [interrupt, poll]
          zip:
            ssd.fw.cores: [1, 4]
            ssd.fw.organisation: [layered, deepflash]
          points:
            - {ssd.cache.size: 64MiB}
            - {ssd.cache.size: 1GiB, accel.enabled: on}
        seeds: 2
        """)
    pts = Grid(str(g), KNOWN).points()
    # 2 x 2 (product) x 2 (zip) x 2 (points) x 2 seeds, seeds innermost.
    assert len(pts) == 32
    first = pts[0]
    assert first.preset == "quick" and first.seed == 7 and pts[1].seed == 8
    assert first.params == (("ssd.flash.t_read", "3us"), ("host.nvme.completion", "interrupt"), ("ssd.fw.cores", 1),
                            ("ssd.fw.organisation", "layered"), ("ssd.cache.size", "64MiB"))
    assert first.sets[0] == ("host.cores", "2")
    # YAML's on is a boolean: vp-server reads true.
    assert ("accel.enabled", "true") in pts[2].sets and pts[2].seed == 7
    combos = [(dict(p.params)["ssd.flash.t_read"], dict(p.params)["host.nvme.completion"],
               dict(p.params)["ssd.fw.cores"], dict(p.params)["ssd.fw.organisation"]) for p in pts[::4]]
    assert combos == [("3us", "interrupt", 1, "layered"), ("3us", "interrupt", 4, "deepflash"),
                      ("3us", "poll", 1, "layered"), ("3us", "poll", 4, "deepflash"),
                      ("4us", "interrupt", 1, "layered"), ("4us", "interrupt", 4, "deepflash"),
                      ("4us", "poll", 1, "layered"), ("4us", "poll", 4, "deepflash")]
    assert first.args()[:6] == ["--preset", "quick", "--set", "host.cores=2", "--set", "ssd.flash.t_read=3us"]
    assert first.args()[-2:] == ["--seed", "7"]
    assert len({p.key for p in pts}) == 32


def test_point_keys_are_stable_and_follow_content(write, tmp_path):
    job = write("r.fio", "[r]\nrw=randread\n")
    g = write("g.yaml", "base: {preset: quick, jobs: [r.fio]}\naxes: {product: {host.cores: [1, 2]}}\n")
    a = [p.key for p in Grid(str(g)).points()]
    assert a == [p.key for p in Grid(str(g)).points()]
    job.write_text("[r]\nrw=randwrite\n")  # a changed job file is another run
    b = [p.key for p in Grid(str(g)).points()]
    assert set(a).isdisjoint(b)
    # So is a preset whose configuration changed under the same name: the
    # digest of its --print-config is part of the key, asked once per preset.
    asked = []
    digest = {"quick": "d1"}
    def keys():
        return [p.key for p in Grid(str(g), preset_digest=lambda n: asked.append(n) or digest[n]).points()]

    c = keys()
    assert asked == ["quick"] and c == keys() and set(c).isdisjoint(b)
    digest["quick"] = "d2"
    assert set(keys()).isdisjoint(c)


def test_a_preset_edited_under_its_name_reruns_its_points(server):
    from flashvp.server import preset_digest

    # The real digest: stable, different between presets, and a bad name gives one too (its check reports it).
    assert preset_digest(server, "quick") == preset_digest(server, "quick")
    assert len({preset_digest(server, n) for n in ("quick", "zssd", "flashshare/xler", "flashshare/selectisr")}) == 4
    assert preset_digest(server, "no-such") != preset_digest(server, "quick")


@pytest.mark.parametrize("text, line, words", [
    ("base: {preset: quick}\naxis: {}\n", 2, ["axis", "unknown key", "axes"]),
    ("base:\n  preset: quick\n  sets: {}\n", 3, ["base.sets", "unknown key"]),
    ("axes:\n  zip:\n    host.cores: [1, 2]\n    ssd.fw.cores: [1]\n", 2, ["axes.zip", "one length", "host.cores: 2"]),
    ("axes:\n  product:\n    host.cores: [1, 2]\n    ssd.flash.t_read: 3us..9us step 4us\n", 4,
     ["ssd.flash.t_read", "do not reach"]),
    ("axes:\n  product:\n    host.core: [1, 2]\n", 3, ["host.core", "unknown parameter", "host.cores"]),
    ("axes:\n  product:\n    host.cores: [1, 2]\n  points:\n    - {host.cores: 4}\n", 5, ["host.cores", "swept twice"]),
    ("axes:\n  product:\n    host.cores: [[1], 2]\n", 3, ["host.cores", "number or text"]),
    ("seeds: 0\n", 1, ["seeds", ">= 1"]),
    ("base: {config: nowhere.yaml}\n", 1, ["base.config", "no such file"]),
    ("axes:\n  product:\n    sim.seed: [1, 2]\n", 3, ["sim.seed", "seeds: N"]),
    ("axes: [\n", 2, ["not valid YAML"]),
    # Infinities and NaNs, YAML's .inf and .nan or the bare words (a traceback from Fraction before).
    ("axes:\n  product:\n    host.cores: [1, .inf]\n", 3, ["axes.product.host.cores", "inf is not a finite number"]),
    ("axes:\n  product:\n    host.cores:\n      - 1\n      - .nan\n", 5, ["host.cores", "nan is not a finite"]),
    ("axes:\n  product:\n    ssd.flash.t_read: [1, 2, ..., .inf]\n", 3, ["ssd.flash.t_read", "not a finite number"]),
    ("base:\n  preset: quick\n  timeout: .inf\n", 3, ["base.timeout", "not a time"]),
    ("base:\n  set: {host.cores: inf}\n", 2, ["base.set.host.cores", "'inf' is not a finite number"]),
    ("axes:\n  points:\n    - {host.cores: 1}\n    - {host.cores: -.Inf}\n", 4, ["axes.points.host.cores", "finite"]),
    # A key given twice: YAML keeps the last silently; refused naming both lines.
    ("axes:\n  product:\n    host.cores: [1, 2]\n    ssd.fw.cores: [1]\n    host.cores: [3]\n", 5,
     ["axes.product.host.cores", "given twice (lines 3 and 5)"]),
    ("base: {preset: quick}\nseeds: 2\nbase: {preset: zssd}\n", 3, ["base: given twice (lines 1 and 3)"]),
    ("axes:\n  points:\n    - {host.cores: 1, host.cores: 2}\n", 3, ["axes.points.host.cores", "given twice"]),
])
def test_errors_name_file_line_and_key(write, text, line, words):
    g = write("bad.yaml", text)
    with pytest.raises(GridError) as e:
        Grid(str(g), KNOWN)
    msg = str(e.value)
    assert msg.startswith(f"{g}:{line}: "), msg
    for w in words:
        assert w in msg, msg


def test_a_merged_key_overridden_is_no_duplicate(write):
    g = write("g.yaml", """\
        axes:
          points:
            - &one {host.cores: 1, ssd.fw.cores: 2}
            - {<<: *one, host.cores: 4}
        """)
    assert [dict(p.params) for p in Grid(str(g), KNOWN).points()] == [
        {"host.cores": 1, "ssd.fw.cores": 2}, {"host.cores": 4, "ssd.fw.cores": 2}]


def test_a_grid_too_large_is_refused_from_its_axes_lengths(write):
    import tracemalloc

    # 300 x 400 = 120,000 runs: above the default bound of 100,000.
    g = write("g.yaml", """\
        axes:
          product:
            host.cores: 1..300
          zip:
            ssd.fw.cores: 1..400
            ssd.cache.size: 1MiB..400MiB step 1MiB
        """)
    with pytest.raises(GridError) as e:
        Grid(str(g), KNOWN)
    assert str(e.value) == (f"{g}:4: axes.zip: the grid is 120,000 runs (axes.product 300 x axes.zip 400 x "
                            "seeds 1), above the bound of 100,000 runs; --max-points N raises it")
    grid = Grid(str(g), KNOWN, max_points=120_000)  # raised: accepted
    assert grid.size == 120_000
    # Seeds multiply (no axes at all here); points add one run each.
    g = write("s.yaml", "seeds: 10000000\n")
    with pytest.raises(GridError, match=r"s.yaml:1: seeds: the grid is 10,000,000 runs \(seeds 10,000,000\)"):
        Grid(str(g), KNOWN)
    g = write("p.yaml", "axes:\n  points: [{host.cores: 1}, {host.cores: 2}, {host.cores: 3}, {host.cores: 4}]\n"
                        "seeds: 3\n")
    with pytest.raises(GridError, match=r"p.yaml:2: axes.points: the grid is 12 runs \(axes.points 4 x seeds 3\)"
                                        r", above the bound of 10 runs"):
        Grid(str(g), KNOWN, max_points=10)
    assert len(Grid(str(g), KNOWN, max_points=12).points()) == 12
    # 10^12 runs are counted, never listed: the refusal takes no memory to speak of.
    g = write("huge.yaml", """\
        axes:
          product:
            host.cores: 1..1000
            ssd.fw.cores: 1..1000
            ssd.flash.t_read: 1us..1000us step 1us
            ssd.cache.size: 1MiB..1000MiB step 1MiB
        """)
    tracemalloc.start()
    try:
        with pytest.raises(GridError, match="1,000,000,000,000 runs"):
            Grid(str(g), KNOWN)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6, peak


def test_the_units_come_from_vp_servers_parameters_when_it_lists_them(write, server):
    from flashvp.server import list_params, unit_table
    from flashvp.units import BUILTIN, UnitTable

    # A binary whose --list-params --json gives each unit parameter's suffixes and factors.
    table = UnitTable.from_params([{"key": "a.t", "type": "time", "units": {"ps": 1, "ns": 1000, "us": 10**6}},
                                   {"key": "a.b", "type": "bandwidth", "units": {"B/s": 1, "MB/s": 10**6}},
                                   {"key": "a.n", "type": "int"}])
    assert table is not None and table.base_unit("bandwidth") == "B/s"
    assert expand_range("400MB/s..1200MB/s step 400MB/s", table) == ["400MB/s", "800MB/s", "1200MB/s"]
    assert expand_range("0.5us..1500ns step 500ns", table) == ["0.5us", "1us", "1.5us"]
    with pytest.raises(UnitError, match="unknown unit 'ms'"):
        expand_range("1ms..2ms step 1ms", table)
    g = write("g.yaml", "base: {preset: quick}\naxes: {product: {a.t: 1ms..2ms step 1ms}}\n")
    with pytest.raises(GridError, match="unknown unit 'ms'"):
        Grid(str(g), units=table)
    assert [p.params for p in Grid(str(g)).points()] == [(("a.t", "1ms"),), (("a.t", "2ms"),)]  # the built-in table
    # None when no parameter lists units (a binary from before the field); refused when two disagree.
    assert UnitTable.from_params([{"key": "a", "type": "time"}]) is None
    with pytest.raises(UnitError, match="'us'"):
        UnitTable.from_params([{"type": "time", "units": {"us": 10**6}}, {"type": "time", "units": {"us": 1000}}])
    # This build's: every parameter of a unit type is one of the table's kinds.
    units = unit_table(server)
    kinds = {d for d, _ in units.units.values()}
    assert {p.type for p in list_params(server).values() if p.allowed.startswith("a ") and " such as " in p.allowed} \
        <= kinds
    assert units is BUILTIN or units.source == server
