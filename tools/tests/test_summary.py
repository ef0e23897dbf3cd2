# SPDX-License-Identifier: BSD-3-Clause
"""flashvp.summary: the typed reader of summary.json, on a hand-written
summary with known numbers, and the studies' figures of merit read through it."""
import json
import math

import pytest

from flashvp.summary import RESPONSE_PARTS, Level, SchemaError, Summary, load_summary

STAGES = ("host_submit", "blk_mq", "driver_queue", "accel", "sq_wait", "fetch", "firmware", "flash", "data_dma",
          "cq_post", "interrupt", "wakeup")


def _stages(**us):
    """A breakdown_us entry: every stage, 0 us unless given."""
    return {st: us.get(st, 0.0) for st in STAGES}


# Two online workers (worker 0 carries the server's responses), an offline
# job with two clones, and a job whose name only starts like theirs.
SUMMARY = {
    "schema_version": 1,
    "sim_time_s": 2.0,
    "jobs": [
        {"name": "online.0", "ios": 300, "reads": 300, "writes": 0, "runtime_s": 2.0,
         "latency_us": {"read": {"count": 300, "mean": 20.0, "p99": 50.0, "max": 80.0},
                        "write": {"count": 0, "mean": 0.0, "p99": 0.0}},
         "breakdown_us": {"read": _stages(host_submit=2.0, blk_mq=1.0, flash=12.0, interrupt=5.0)},
         "online": {"response_us": {"count": 100, "mean": 3000.0, "p99": 9000.0, "max": 12000.0, "p50": 2500.0},
                    "response_parts_us": {
                        "all": {"count": 100, "network": 100.0, "queue": 20.0, "io": 600.0, "compute": 2280.0},
                        "p99_and_above": {"count": 1, "network": 100.0, "queue": 900.0, "io": 8000.0}}}},
        {"name": "online.1", "ios": 100, "reads": 100, "writes": 0, "runtime_s": 2.0,
         "latency_us": {"read": {"count": 100, "mean": 40.0, "p99": 90.0}},
         "breakdown_us": {"read": _stages(host_submit=4.0, flash=30.0, interrupt=6.0)}},
        {"name": "offline", "ios": 1000, "reads": 600, "writes": 400, "runtime_s": 1.5},
        {"name": "offline.1", "ios": 500, "reads": 500, "writes": 0, "runtime_s": 2.0},
        {"name": "offline2", "ios": 7, "reads": 7, "writes": 0, "runtime_s": 2.0},
    ],
    "device": {"read_commands": 1500, "write_commands": 300, "written_blocks": 3200},
    "ftl": {"host_page_writes": 4000},
    "write_buffer": {"capacity_pages": 512, "series": [[10.0, 100, 90], [20.0, 256, 256]]},
    "counters": {"ssd.cache.thr.read_hits": 30, "ssd.cache.thr.read_misses": 10,
                 "host.context_switches": 5000,
                 "ssd.fw.thread.nvmq1.items": 40, "ssd.fw.thread.nvmq1.busy_ps": 7,
                 "ssd.fw.thread.trans0.items": 99, "ssd.fw.thread.trans0.busy_ps": 9,
                 "ssd.fw.thread.nvmq0.items": 0, "ssd.fw.thread.nvmq0.busy_ps": 3},
}


def test_the_run_and_its_jobs():
    s = Summary(SUMMARY)
    assert s.sim_time_s == 2.0 and s.git_revision == "unknown"  # written by every binary; absent here
    assert [j.name for j in s.jobs] == ["online.0", "online.1", "offline", "offline.1", "offline2"]
    # A job and its clones, not another job whose name starts the same.
    assert [j.name for j in s.jobs_named("offline")] == ["offline", "offline.1"]
    j = s.jobs[2]
    assert (j.ios, j.reads, j.writes, j.runtime_s) == (1000, 600, 400, 1.5)
    lat = s.jobs[0].latency("read")
    assert (lat.count, lat.mean, lat.p99, lat.max) == (300, 20.0, 50.0, 80.0)
    assert math.isnan(s.jobs[1].latency("read").max)  # not written: nan
    assert s.jobs[1].breakdown("read")["flash"] == 30.0
    with pytest.raises(KeyError):  # the layout always has it: a missing one is an error, not a default
        s.jobs[2].latency("read")


def test_the_online_servers_responses():
    o = Summary(SUMMARY).online
    assert (o.response.count, o.response.mean, o.response.p99, o.response.max, o.response.p50) == \
        (100, 3000.0, 9000.0, 12000.0, 2500.0)
    assert RESPONSE_PARTS == ("network", "queue", "io", "compute")
    assert o.parts_all.times() == {"network": 100.0, "queue": 20.0, "io": 600.0, "compute": 2280.0}
    assert o.parts_tail.count == 1 and o.parts_tail.io == 8000.0 and math.isnan(o.parts_tail.compute)
    assert Summary({"jobs": [{"name": "reader"}]}).online is None
    # A summary from before the parts existed: nan parts, no tail responses.
    bare = Summary({"jobs": [{"name": "online.0", "online": {"response_us": {"count": 3, "mean": 1.0, "p99": 2.0}}}]})
    assert bare.online.parts_tail.count == 0 and math.isnan(bare.online.parts_all.network)


def test_device_ftl_write_buffer_and_counters():
    s = Summary(SUMMARY)
    assert (s.device.read_commands, s.device.write_commands) == (1500, 300)
    assert (s.ftl.host_page_writes, s.ftl.wasted_pages) == (4000, None)  # this FTL skips no pages
    assert s.write_buffer.capacity_pages == 512
    assert s.write_buffer.series == [Level(10.0, 100, 90), Level(20.0, 256, 256)]
    assert s.write_buffer.series[1].max_pages == 256
    empty = Summary({}).write_buffer  # no FastDrain buffer
    assert empty.capacity_pages is None and empty.series == []
    assert Summary({}).ftl.host_page_writes is None
    assert s.cache_reads("thr") == (30, 10) and s.cache_reads("thr").hits == 30
    assert s.cache_reads("lat") == (0, 0)  # a cache without that class
    assert s.context_switches == 5000
    # In the counters' order; the kind is a name prefix (nvmq, not trans).
    assert [(t.name, t.items, t.busy_ps) for t in s.fw_threads("nvmq")] == [("nvmq1", 40, 7), ("nvmq0", 0, 3)]
    assert [t.name for t in s.fw_threads("trans")] == ["trans0"]


def test_load_checks_the_schema_version(tmp_path):
    p = tmp_path / "summary.json"
    p.write_text(json.dumps({**SUMMARY, "git_revision": "b1b7563"}))
    s = Summary.load(p)
    assert s.git_revision == "b1b7563" and s.jobs_named("online")[1].reads == 100
    assert load_summary(p)["sim_time_s"] == 2.0
    p.write_text(json.dumps({**SUMMARY, "schema_version": 2}))
    with pytest.raises(SchemaError, match="schema_version 2; this flashvp reads 1"):
        Summary.load(p)


def test_the_studies_figures_of_merit_from_the_summary():
    from flashvp.studies import STUDIES

    s = Summary(SUMMARY)
    fs = STUDIES["flashshare"].figures(s)
    assert (fs["response_mean"], fs["response_p99"], fs["response_max"], fs["responses"]) == (3000.0, 9000.0,
                                                                                           12000.0, 100)
    assert (fs["resp_io"], fs["tail_queue"], fs["tail_responses"]) == (600.0, 900.0, 1)
    assert math.isnan(fs["tail_compute"])
    assert fs["offline_perf"] == (1000 + 500) / 2.0  # offline and its clone, not offline2
    # The online workers' reads, weighted by their counts: (300 * 20 + 100 * 40) / 400.
    assert fs["online_io_us"] == 25.0
    assert fs["read_block layer"] == (300 * 3.0 + 100 * 4.0) / 400
    assert fs["read_SSD"] == (300 * 12.0 + 100 * 30.0) / 400
    assert fs["read_completion"] == (300 * 5.0 + 100 * 6.0) / 400
    assert (fs["hit_thr"], fs["hit_all"]) == (0.75, 0.75) and math.isnan(fs["hit_lat"])
    assert fs["context_switches_per_s"] == 2500.0
    assert fs["commands_per_io"] == 1800 / 1907  # every job's reads and writes
    fd = STUDIES["fastdrain"].figures(s)
    assert (fd["latency_p99"], fd["latency_max"], fd["pages_written"], fd["pages_skipped"]) == (9000.0, 12000.0,
                                                                                              4000, None)
    df = STUDIES["deepflash"].figures(s)
    assert df["iops"] == 1907 / 2.0  # every job's I/Os over the longest runtime
    assert df["active_nvmq"] == (7 + 3) / 2e12 and df["nvmq_iops"] == 1907 / 2.0 and df["nvmq_spread"] == 0.0
    rw = STUDIES["rwiso"].figures(Summary({"sim_time_s": 0.5, "jobs": [
        {"name": "reader.0", "reads": 100, "writes": 0}, {"name": "reader.1", "reads": 300, "writes": 0},
        {"name": "writer", "reads": 0, "writes": 50}]}))
    assert (rw["read_iops"], rw["write_iops"], rw["read_iops_stddev"]) == (800.0, 100.0, 200.0)
    assert (rw["reader0_iops"], rw["reader1_iops"]) == (200.0, 600.0)
