// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A block I/O as the host stack sees it, from the application's issue to the
// thread waking up with its completion.
#include <cstdint>
#include <vector>

#include "vp/core/RequestLog.hpp"
#include "vp/core/RequestRecord.hpp"
#include "vp/core/Timeline.hpp"
#include "vp/nvme/NvmeSpec.hpp"

namespace vp::host {

class FioJobRunner;
class PageCache;

struct IoRequest {
  bool write = false;
  bool flush = false;
  bool fua = false;  // force unit access (an O_SYNC write): durable when it completes
  // A discard (BLKDISCARD): an NVMe Dataset Management deallocate of
  // [lba, lba + nlb), no data; `write` is set too, as Linux's block layer
  // counts discards as writes.
  bool trim = false;
  uint64_t lba = 0;
  uint32_t nlb = 0;
  uint32_t bytes = 0;
  uint64_t buf_addr = 0;   // host physical address of the data buffer
  uint8_t* buf = nullptr;  // the same buffer through DMI
  FioJobRunner* job = nullptr;
  uint32_t slot = 0;       // the job's in-flight slot
  uint16_t status = 0;     // NVMe status field of the completion
  uint16_t sqid = 0, cid = 0;
  uint16_t dev = 0;  // the host's block device it is on (BlockDevices' index)
  // The serial number of the command it rode in (RequestTracker::issue);
  // a split I/O, from its fan-in to its delivery, the serials of its pieces.
  uint64_t command = 0;
  std::vector<uint64_t> commands;
  uint8_t attr = 0;     // workload attribute put in CDW2 (and as the device decoded it)
  bool polled = false;  // goes to a poll queue (CQ without interrupts); the submitting core reaps it
  bool offloaded = false;  // handed to the I/O-stack accelerator above blk-mq (xler)
  uint32_t result = 0;  // device-reported completion field (buffer status)
  // Hints the driver puts in the command: ORed into CDW2 above the attribute
  // (FastDrain's page-victimization bit 8), and CDW3 (its dirty pages).
  uint32_t cdw2_hint = 0, cdw3 = 0;
  PageCache* cache = nullptr;  // a page-cache read or write-back: its completion goes there, not to a job
  Tick issued = 0;
  // A buffered I/O: when the page cache handed it back to its thread (the
  // end of its cache_wait, HostCore::take_news).
  Tick cache_ready = 0;
  // blk-mq merging: the further I/Os carried by the same command (set on the
  // command's first I/O), and whether this one rides in another's command.
  IoRequest* next_in_cmd = nullptr;
  bool merged = false;
  StageClock clock;
  // A command built by hand (tests, tools) instead of from the fields above.
  const nvme::Sqe* raw = nullptr;
  nvme::Cqe raw_cqe{};
  bool raw_done = false;
};

// Reaped from its CQ: the device's half of the record (from the fetch to
// the completion posted), kept by the tracker for the command's (SQ id,
// command id), joins the host's, the time in between counted as `gap`; the
// attribute and result the device reported come with it.
void join_device_half(IoRequest& r, RequestTracker& tracker, Stage gap);
// Its row of requests.csv, completed at `end`.
void log_request(RequestLog& log, const IoRequest& r, Tick end);
// The same on the timeline (timeline.json), linked to the host core's
// thread `core_thread` that took the completion (-1: none).
void timeline_request(Timeline& t, const IoRequest& r, Tick end, int core_thread);

}  // namespace vp::host
