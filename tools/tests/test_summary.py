# SPDX-License-Identifier: BSD-3-Clause
"""flashvp.summary: the typed reader of summary.json, on a hand-written
summary with known numbers, and the studies' figures of merit read through it."""
import copy
import json
import math

import pytest

from flashvp.summary import (RESPONSE_PARTS, STAGE_PATH, Level, SchemaError, Summary, load_summary, upgrade_v1,
                             upgrade_v2)

STAGES = STAGE_PATH["read"]


def _stages(**us):
    """A breakdown_us entry: every stage, 0 us unless given."""
    return {st: us.get(st, 0.0) for st in STAGES}


# Two online workers (worker 0 carries the server's responses), an offline
# job with two clones, and a job whose name only starts like theirs.
SUMMARY = {
    "schema_version": 3,
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
    "host": {"verify": {"checked": 7}},
    "drives": [{"name": "ssd", "path": "/dev/nvme0n1",
                "device": {"read_commands": 1500, "write_commands": 300, "written_blocks": 3200},
                "ftl": {"host_page_writes": 4000},
                "write_buffer": {"capacity_pages": 512, "series": [[10.0, 100, 90], [20.0, 256, 256]]}},
               {"name": "ssd1", "path": "/dev/nvme1n1", "device": {"read_commands": 2, "write_commands": 1}}],
    "accelerators": [],
    "switches": [],
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
    assert list(s.jobs[1].breakdown("read")) == list(STAGE_PATH["read"])
    assert s.jobs[1].breakdown("write") == {}  # a read-only job has no write breakdown
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
    with pytest.raises(KeyError):  # every run of vp-server and vp-drive has it
        _ = Summary({}).device
    # Every drive, in probe order; the host's sections as written.
    assert [(d.name, d.path) for d in s.drives] == [("ssd", "/dev/nvme0n1"), ("ssd1", "/dev/nvme1n1")]
    assert s.drives[1].device.read_commands == 2 and s.drives[1].ftl.host_page_writes is None
    assert s.drives[0].write_buffer == s.write_buffer and s.drives[1].write_buffer.series == []
    assert Summary({"drives": [{"name": "ssd", "path": None}]}).drives[0].path is None
    assert s.host == {"verify": {"checked": 7}}
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
    p.write_text(json.dumps({**SUMMARY, "schema_version": 99}))
    with pytest.raises(SchemaError, match="schema_version 99; this flashvp reads 1, 2, 3"):
        Summary.load(p)
    # A version 1 file (a point of a sweep run before version 2) reads as version 3.
    p.write_text(json.dumps(V1_SSD_SERVER))
    assert load_summary(p) == {**V2_SSD_SERVER, "schema_version": 3}
    s = Summary.load(p)
    assert (s.device.read_commands, s.ftl.host_page_writes, s.write_buffer.capacity_pages) == (90, 4000, 512)
    assert s.drives[0].path == "/dev/nvme0n1" and s.host["cpu"][1]["user_pct"] == 30.0


# Version 1 summaries written by hand, one per shape the writers had, and the
# version 2 each must become (docs/outputs.md's v1 -> v2 table).
RUN = {"git_revision": "0830572", "seed": 1, "sim_time_s": 0.1, "wall_time_s": 2.5, "kernel_events": 1000,
       "delta_cycles": 10, "completed": True, "total_ios": 100, "stage_order_violations": 0,
       "kernel_events_per_io": 10.0}
JOBS = [{"name": "randread", "ios": 100, "reads": 100, "writes": 0, "runtime_s": 0.1}]
COUNTERS = {"counters": {"ssd.nvme.io_commands": 100, "host.polls": 3}, "counter_units": {"host.polls": "polls"}}
DEVICE = {"read_commands": 90, "write_commands": 10, "flash_reads": 95}
CPU = [{"core": 0, "user_pct": 10.0, "idle_pct": 90.0}, {"core": 1, "user_pct": 30.0, "idle_pct": 70.0}]
SCHED = {"latency_us": 6000.0, "min_granularity_us": 750.0, "wakeup_granularity_us": 1000.0}
NVME, FW, FTL = {"io_commands": 100, "dma": {"bytes": 4096}}, {"threads": 2}, {"host_page_writes": 4000}
WB = {"capacity_pages": 512, "series": [[10.0, 100, 90]]}
FLASH, DRAM, PCIE = {"starved_program_picks": 0}, {"regions": {"map": 64}}, {"down": {"bytes": 8}, "up": {"bytes": 9}}
IMAGE, POWER_LOSS = {"path": "ssd.img", "loaded": False}, {"at_s": 0.05}

# vp-server, one drive called ssd: plain keys.
V1_SSD_SERVER = {"schema_version": 1, "platform": "server", **RUN, "power_loss": POWER_LOSS, "jobs": JOBS,
                 "cpu": CPU, "sched": SCHED, "pagecache": {"active": True, "dirty_ratio": 20},
                 "verify": {"checked": 50, "mismatches": 0}, "device": DEVICE, "nvme": NVME, "firmware": FW,
                 "write_buffer": WB, "ftl": FTL, "flash": FLASH, "dram": DRAM, "pcie": PCIE, "image": IMAGE,
                 **COUNTERS}
V2_SSD_SERVER = {"schema_version": 2, "platform": "server", **RUN, "power_loss": POWER_LOSS, "jobs": JOBS,
                 "host": {"cpu": CPU, "sched": SCHED, "pagecache": {"active": True, "dirty_ratio": 20},
                          "verify": {"checked": 50, "mismatches": 0}},
                 "drives": [{"name": "ssd", "path": "/dev/nvme0n1", "device": DEVICE, "nvme": NVME,
                             "firmware": FW, "write_buffer": WB, "ftl": FTL, "flash": FLASH, "dram": DRAM,
                             "pcie": PCIE, "image": IMAGE}],
                 "accelerators": [], "switches": [], **COUNTERS}

# vp-server, one drive called fast: its sections under its name, its link still "pcie".
V1_FAST = {"schema_version": 1, "platform": "server", **RUN, "jobs": JOBS, "cpu": CPU, "sched": SCHED,
           "device": DEVICE, "fast.nvme": NVME, "fast.fw": FW, "fast.cache": WB, "fast.ftl": FTL,
           "fast.flash": FLASH, "fast.dram": DRAM, "pcie": PCIE, "counters": {"fast.nvme.io_commands": 100}}
V2_FAST = {"schema_version": 2, "platform": "server", **RUN, "jobs": JOBS, "host": {"cpu": CPU, "sched": SCHED},
           "drives": [{"name": "fast", "path": "/dev/nvme0n1", "device": DEVICE, "nvme": NVME, "firmware": FW,
                       "write_buffer": WB, "ftl": FTL, "flash": FLASH, "dram": DRAM, "pcie": PCIE}],
           "accelerators": [], "switches": [], "counters": {"fast.nvme.io_commands": 100}}

# vp-server, drives ssd and ssd1 (v1's drives list, the first one's device
# repeated as "device"), the I/O accelerator, a PCIe switch, an image.
DEVICE1 = {"read_commands": 40, "write_commands": 0, "flash_reads": 41}
NVME1, FTL1, PCIE1 = {"io_commands": 40}, {"host_page_writes": 0}, {"down": {"bytes": 1}, "up": {"bytes": 2}}
ACCEL, ACCEL_PCIE = {"bios": 10, "merges": 4}, {"down": {"bytes": 3}, "up": {"bytes": 4}}
SWITCH = {"raw_GBps": 7.88, "ports": ["pcie", "ssd1.pcie"], "down": {}, "up": {}}
V1_TWO = {"schema_version": 1, "platform": "server", **RUN, "jobs": JOBS, "cpu": CPU, "sched": SCHED,
          "device": DEVICE,
          "drives": [{"name": "ssd", "path": "/dev/nvme0n1", "device": DEVICE},
                     {"name": "ssd1", "path": "/dev/nvme1n1", "device": DEVICE1}],
          "nvme": NVME, "firmware": FW, "ftl": FTL, "flash": FLASH, "dram": DRAM, "pcie": PCIE,
          "ssd1.nvme": NVME1, "ssd1.fw": FW, "ssd1.ftl": FTL1, "ssd1.flash": FLASH, "ssd1.dram": DRAM,
          "ssd1.pcie": PCIE1, "accel": ACCEL, "accel.pcie": ACCEL_PCIE, "pcie_switch": SWITCH, "image": IMAGE,
          "something_new": {"x": 1}, **COUNTERS}
V2_TWO = {"schema_version": 2, "platform": "server", **RUN, "jobs": JOBS, "host": {"cpu": CPU, "sched": SCHED},
          "drives": [{"name": "ssd", "path": "/dev/nvme0n1", "device": DEVICE, "nvme": NVME, "firmware": FW,
                      "ftl": FTL, "flash": FLASH, "dram": DRAM, "pcie": PCIE, "image": IMAGE},
                     {"name": "ssd1", "path": "/dev/nvme1n1", "device": DEVICE1, "nvme": NVME1, "firmware": FW,
                      "ftl": FTL1, "flash": FLASH, "dram": DRAM, "pcie": PCIE1}],
          "accelerators": [{"name": "accel", "accel": ACCEL, "pcie": ACCEL_PCIE}],
          "switches": [{"name": "pcie_switch", "switch": SWITCH}],
          "something_new": {"x": 1}, **COUNTERS}  # a key with no place stays as it is

# vp-qemu: no host driver (no device, cpu, jobs), the bridge's counts, the
# arbitration the guest chose patched into nvme.
QEMU = {"register_accesses": 12, "irq_round_trips": 3}
V1_QEMU = {"schema_version": 1, "git_revision": "0830572", "platform": "qemu", "seed": 1, "sim_time_s": 1.5,
           "qemu": QEMU, "image": IMAGE, "nvme": {**NVME, "cc_ams": 7}, "firmware": FW, "write_buffer": WB,
           "ftl": FTL, "flash": FLASH, "dram": DRAM, "pcie": PCIE, **COUNTERS}
V2_QEMU = {"schema_version": 2, "git_revision": "0830572", "platform": "qemu", "seed": 1, "sim_time_s": 1.5,
           "qemu": QEMU, "host": {},
           "drives": [{"name": "ssd", "path": None, "nvme": {**NVME, "cc_ams": 7}, "firmware": FW,
                       "write_buffer": WB, "ftl": FTL, "flash": FLASH, "dram": DRAM, "pcie": PCIE,
                       "image": IMAGE}],
           "accelerators": [], "switches": [], **COUNTERS}


@pytest.mark.parametrize("v1, v2", [(V1_SSD_SERVER, V2_SSD_SERVER), (V1_FAST, V2_FAST), (V1_TWO, V2_TWO),
                                    (V1_QEMU, V2_QEMU)], ids=["ssd", "fast", "two-drives", "qemu"])
def test_upgrade_v1_regroups_the_sections_by_part(v1, v2):
    before = copy.deepcopy(v1)
    up = upgrade_v1(v1)
    assert up == v2
    assert v1 == before  # its input left as it was
    up["drives"][0]["pcie"]["down"]["bytes"] = -1  # and sharing nothing with it
    assert v1 == before


def test_upgrade_v1_places_every_drive_and_refuses_other_versions():
    # vp-drive: one drive, no block device; verify is the host's.
    v2 = upgrade_v1({"schema_version": 1, "platform": "drive", "device": DEVICE, "ftl": FTL, "verify": {"checked": 1}})
    assert v2["drives"] == [{"name": "ssd", "path": None, "device": DEVICE, "ftl": FTL}]
    assert (v2["host"], v2["accelerators"], v2["switches"]) == ({"verify": {"checked": 1}}, [], [])
    # Nothing but the run: one drive called ssd all the same, the parts there, empty.
    assert upgrade_v1({"schema_version": 1, "sim_time_s": 1.0}) == {
        "schema_version": 2, "sim_time_s": 1.0, "host": {}, "drives": [{"name": "ssd", "path": None}],
        "accelerators": [], "switches": []}
    # vp-qemu had no list with several drives (here fast, ssd): drive 0 is the
    # one without a link "<name>.pcie", the others follow.
    v2 = upgrade_v1({"schema_version": 1, "platform": "qemu", "fast.nvme": NVME, "fast.ftl": FTL, "pcie": PCIE,
                     "nvme": {**NVME1, "cc_ams": 7}, "ftl": FTL1, "ssd.pcie": PCIE1})
    assert v2["drives"] == [{"name": "fast", "path": None, "nvme": NVME, "ftl": FTL, "pcie": PCIE},
                            {"name": "ssd", "path": None, "nvme": {**NVME1, "cc_ams": 7}, "ftl": FTL1,
                             "pcie": PCIE1}]
    # vp-qemu patched the arbitration into a plain "nvme", one of its own
    # when the drive is not called ssd: it is that drive's.
    v2 = upgrade_v1({"schema_version": 1, "platform": "qemu", "fast.nvme": NVME, "nvme": {"cc_ams": 7},
                     "fast.ftl": FTL, "pcie": PCIE})
    assert v2["drives"] == [{"name": "fast", "path": None, "nvme": {**NVME, "cc_ams": 7}, "ftl": FTL, "pcie": PCIE}]
    # A drive the v1 list does not name still gets its sections, after the listed ones.
    v2 = upgrade_v1({"schema_version": 1, "platform": "server", "drives": [{"name": "ssd", "path": "/dev/nvme0n1"}],
                     "ftl": FTL, "more.ftl": FTL1, "more.pcie": PCIE1})
    assert v2["drives"] == [{"name": "ssd", "path": "/dev/nvme0n1", "ftl": FTL},
                            {"name": "more", "path": "/dev/nvme1n1", "ftl": FTL1, "pcie": PCIE1}]
    with pytest.raises(ValueError, match="schema_version 2, not 1"):
        upgrade_v1(V2_SSD_SERVER)


# Version 2 jobs as version 2 wrote them: both directions' breakdowns, keys
# in alphabetical order, no cache_wait.
def _v2_stages(**us):
    return {st: us.get(st, 0.0) for st in sorted(set(STAGES) - {"cache_wait"})}


V2_JOBS = [
    # Direct reads only: the write breakdown of zeros goes; cache_wait 0 (no page cache).
    {"name": "reader", "ios": 10, "reads": 10, "writes": 0,
     "latency_us": {"read": {"count": 10, "mean": 21.0}, "write": {"count": 0, "mean": 0.0}},
     "breakdown_us": {"read": _v2_stages(host_submit=1.0, flash=12.0, data_dma=3.0, wakeup=5.0),
                      "write": _v2_stages()}},
    # Buffered writes only: its wait in the page cache is in host_submit, cache_wait unknown.
    {"name": "writer", "direct": 0, "ios": 4, "reads": 0, "writes": 4,
     "latency_us": {"read": {"count": 0, "mean": 0.0}, "write": {"count": 4, "mean": 9.0}},
     "breakdown_us": {"read": _v2_stages(), "write": _v2_stages(host_submit=9.0)}},
    # No reads / writes keys: the latency's count says; a stage this reader does not know stays, last.
    {"name": "mixed", "latency_us": {"read": {"count": 2}, "write": {"count": 0}},
     "breakdown_us": {"read": {**_v2_stages(flash=4.0), "a_new_stage": 1.0}, "write": _v2_stages()}},
]


def test_upgrade_v2_keeps_the_directions_a_job_did_with_its_stages_in_path_order(tmp_path):
    v2 = {"schema_version": 2, "platform": "server", **RUN, "jobs": V2_JOBS, "host": {}, "drives": [],
          "accelerators": [], "switches": [], **COUNTERS}
    before = copy.deepcopy(v2)
    v3 = upgrade_v2(v2)
    assert v2 == before  # its input left as it was
    assert v3["schema_version"] == 3
    assert {k: v for k, v in v3.items() if k != "jobs"} == {**{k: v for k, v in v2.items() if k != "jobs"},
                                                           "schema_version": 3}
    reader, writer, mixed = v3["jobs"]
    assert list(reader["breakdown_us"]) == ["read"]
    assert list(reader["breakdown_us"]["read"].items()) == [
        (st, {"host_submit": 1.0, "flash": 12.0, "data_dma": 3.0, "wakeup": 5.0}.get(st, 0.0))
        for st in STAGE_PATH["read"]]
    assert list(writer["breakdown_us"]) == ["write"]
    assert list(writer["breakdown_us"]["write"]) == [st for st in STAGE_PATH["write"] if st != "cache_wait"]
    assert writer["breakdown_us"]["write"]["host_submit"] == 9.0
    assert list(mixed["breakdown_us"]) == ["read"]
    assert list(mixed["breakdown_us"]["read"]) == [*STAGE_PATH["read"], "a_new_stage"]
    # The rest of each job as it was.
    for old, new in zip(V2_JOBS, v3["jobs"], strict=True):
        assert {k: v for k, v in old.items() if k != "breakdown_us"} == \
            {k: v for k, v in new.items() if k != "breakdown_us"}
    # load_summary gives the upgraded file; Job.breakdown reads a missing direction as {}.
    p = tmp_path / "summary.json"
    p.write_text(json.dumps(v2))
    assert load_summary(p) == v3
    s = Summary.load(p)
    assert s.jobs[0].breakdown("write") == {} and s.jobs[1].breakdown("read") == {}
    assert s.jobs[0].breakdown("read")["flash"] == 12.0
    # A version 1 file goes through both.
    v1 = {**V1_FAST, "jobs": V2_JOBS[:1]}
    p.write_text(json.dumps(v1))
    assert load_summary(p)["jobs"] == v3["jobs"][:1]
    with pytest.raises(ValueError, match="schema_version 3, not 2"):
        upgrade_v2(v3)


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
