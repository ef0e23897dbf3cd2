// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The blk-mq request queue of the NVMe namespace, between the cores'
// submission path and the NVMe driver (Linux block/blk-mq.c, event driven:
// it acts when a core submits or flushes a plug and when a command
// completes; nothing ticks).
//
// Hardware queues are the driver's I/O queue pairs; each has depth - 1 tags
// (an SQ of N entries holds N - 1 commands) and a request takes one before it
// goes to the driver; a completion frees it and dispatches what waits. A
// request that finds no tag waits in the software queues (`none`: first in,
// first out), or always goes through the I/O scheduler (`deadline`). A new
// I/O merges into a queued request of the same direction that it continues
// or precedes in LBA, within the device's largest transfer and where the
// PRP rule allows (the data before the seam ends on a page boundary, the
// data after it starts at page offset 0, as Linux's virt boundary), so one
// command carries several application I/Os. Plugged batches collect (and
// merge) per core and are flushed at the end of the batch.
//
// FlashShare bypass: a request with a non-zero workload attribute skips the
// plug, merging and the scheduler and goes to the driver (or to the front
// dispatch list of its hardware queue when no tag is free). Same-LBA hazard
// rule: queued requests (plug, software queues, scheduler) that overlap it,
// where one of the two writes, are issued ahead of it, oldest first; a
// queued request of the same direction that it continues or precedes is
// merged into its command. Overlapping reads stay queued. A Flush (no data)
// is queued and dispatched like a write but never merges.
//
// Read/write queue isolation (IMCOM'17): the hardware queues are split into
// a read set (the first round(n * read_queue_ratio), at least one) and a write
// set (the rest, at least one); a core sends reads to read queue core mod
// |read set| and writes to write queue core mod |write set|. Without it a
// core uses hardware queue `core`.
//
// Dispatch (host.blkmq.dispatch). `inline`: a hardware queue is run where
// something makes it runnable (a submission, a plug flush, a completion
// freeing a tag), at no CPU time beyond the submission's. `kblockd`: Linux
// 4.9's costs when applications co-run. One dispatcher at a time per
// hardware queue. With direct_issue, a submission to an idle queue (no run
// in progress or queued, nothing waiting, a tag free) is issued in the
// submitter's context for dispatch_cost, and a request inserted into the
// software queue (or a plug flush) runs the queue there unless another run
// has it; page-cache write-back (not REQ_SYNC) is left to kblockd. Without
// direct_issue every run is kblockd's. kblockd is the block layer's kernel
// worker on the queue's home core (the first core mapped to it): its run is
// kernel work the core takes at its next scheduling point, behind the
// thread running there (until that thread blocks, its slice ends, a timer
// or an interrupt comes), at once on an idle core, and costs two context
// switches (to the worker and back). A run costs run_cost plus
// dispatch_cost per request it hands the driver; it takes the requests at
// its start and hands them over when its CPU time is over. A request
// meeting a run in progress waits for the next one, which the run's end
// asks kblockd for; so does a tag freed while requests wait. The core
// takes its runs with next_run() and reports them done with end_run().
//
// Splitting (Linux's bio split to the queue limits): an I/O larger than the
// device's largest transfer becomes pieces of that size (the last one the
// rest), each starting where the previous ended and each submitted as an
// I/O of its own (own request, own tag). The application I/O completes when
// its last piece does, with the worst status of its pieces.
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "vp/core/ParamScope.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/host/block/BlkMqDriver.hpp"
#include "vp/host/block/BlkRequest.hpp"
#include "vp/host/block/IoScheduler.hpp"
#include "vp/host/block/Plug.hpp"

namespace vp::host {

struct BlkMqCosts {
  Tick insert, merge_search;
};

class BlkMqQueue {
 public:
  static constexpr const char* kScope = "host.blkmq";
  static void declare_params(const ParamScope& p);
  // `hw_queues` I/O queue pairs of `queue_depth` entries, `cores` software queues.
  // `cfg`, `stats`: the queue's scope (host.blkmq on the server).
  BlkMqQueue(const ScopedConfig& cfg, const StatGroup& stats, BlkMqDriver& drv, unsigned cores, unsigned hw_queues);
  ~BlkMqQueue();

  unsigned hw_queues() const { return static_cast<unsigned>(hw_.size()); }
  unsigned hwq_for(unsigned core, bool write) const;
  // The hardware queue `io` from `core` goes to (a polled one: the core's own).
  unsigned hwq_for(const IoRequest& io, unsigned core) const;
  uint32_t free_tags(unsigned hwq) const { return hw_[hwq].free_tags; }
  // Requests of hardware queue `hwq` waiting for a tag (dispatch list and scheduler).
  size_t waiting(unsigned hwq) const;

  // CPU time blk-mq adds to the submission of `io` by `core` (host.core.submit_cost
  // covers the rest): insert_cost when it becomes a new queued request,
  // merge_search_cost per queued request examined for a merge or a hazard.
  // Worked out from the queues as they are when the core starts submitting.
  Tick submit_cost(const IoRequest& io, unsigned core) const;
  void submit(IoRequest& io, unsigned core, Tick now);
  // A batch (fio iodepth_batch_submit) starts / ends on `core`.
  void start_plug(unsigned core);
  void finish_plug(unsigned core, Tick now);
  // A command of hardware queue `hwq` completed: its tag is free again.
  // Callers pass the command's SQ id - 1; with the driver's dual SQs the
  // latency-critical SQ N+1+k belongs to hardware queue k, so ids past the
  // hardware queues fold back onto them (both SQs share the queue's tags).
  void completed(unsigned hwq, Tick now);
  // Dispatch by kblockd (see the file comment). `on_run_queued(core)`: a
  // run was queued for `core` (the platform wakes the core if it idles).
  bool kblockd() const { return kblockd_; }
  std::function<void(unsigned core)> on_run_queued;
  struct Run {
    unsigned hwq = 0;
    bool kblockd = false;              // by the worker (two context switches), or in the submitter's context
    Tick cpu = 0;                      // run_cost + dispatch_cost per request taken
    std::vector<BlkRequest*> taken;    // handed to the driver when the run ends
  };
  bool run_pending(unsigned core) const { return !runs_[core].empty(); }
  // The core starts its oldest queued run: takes the requests it will dispatch.
  Run next_run(unsigned core, Tick now);
  // The run's CPU time is over: its requests go to the driver.
  void end_run(Run& r, Tick now);
  // A completed I/O as the completion path sees it: `r` itself when it was
  // not split off anything; for a piece of a split I/O, nullptr until the
  // last piece, then the application I/O (status, device fields and stage
  // clock of the last piece; the pieces are recycled).
  IoRequest* fan_in(IoRequest& r);

 private:
  struct Split {
    IoRequest* parent = nullptr;
    std::vector<IoRequest*> pieces;
    unsigned left = 0;     // pieces not yet completed
    uint16_t status = 0;   // worst status so far (non-zero beats zero)
  };
  struct HwQueue {
    uint32_t free_tags = 0;
    unsigned home = 0;         // the core kblockd runs it on
    bool running = false;      // a run is dispatching (kblockd dispatch)
    bool queued = false;       // a run is queued on a core
    std::deque<BlkRequest*> dispatch;  // served before the scheduler
    std::unique_ptr<IoScheduler> sched;
  };
  struct Merge {
    BlkRequest* rq = nullptr;
    bool front = false;
    unsigned examined = 0;
  };
  bool bypasses(const IoRequest& io) const { return bypass_ && io.attr != 0; }
  bool can_join(const BlkRequest& a, const IoRequest& first_of_b, uint32_t b_bytes, uint32_t b_segs) const;
  bool can_merge(const BlkRequest& rq, const IoRequest& io, bool& front) const;
  Merge find_merge(const IoRequest& io, unsigned core) const;
  void merge(BlkRequest* rq, IoRequest& io, bool front);
  BlkRequest* make(IoRequest& io, unsigned core);
  void release(BlkRequest* rq);
  void insert(BlkRequest* rq, Tick now, unsigned core);
  void issue(BlkRequest* rq, Tick now);
  void run(unsigned hwq, Tick now);
  // The next request a run hands the driver (dispatch list first), nullptr without a free tag.
  BlkRequest* next_to_dispatch(HwQueue& q, Tick now);
  void send_or_hold(BlkRequest* rq, Tick now);
  bool idle(const HwQueue& q) const {
    return !q.running && !q.queued && q.dispatch.empty() && q.sched->empty() && q.free_tags > 0;
  }
  // A new request for `q` goes to the driver at once: nothing waits before
  // it and a tag is free (with kblockd dispatch, no run has the queue and
  // direct issue is on); mq-deadline always takes it in.
  bool goes_straight(const HwQueue& q) const {
    if (deadline_) return false;
    if (kblockd_) return direct_ && idle(q);
    return q.sched->empty() && q.dispatch.empty() && q.free_tags > 0;
  }
  // Asks for a run of `hwq`: in `core`'s context (a plug flush) or by kblockd on its home core.
  void request_run(unsigned hwq, unsigned core, bool by_kblockd);
  void bypass(IoRequest& io, unsigned core, Tick now);
  uint32_t max_bytes() const;
  // Size of every piece but the last when `io` is split: the largest
  // transfer rounded down to whole blocks of `io`.
  uint32_t piece_bytes(const IoRequest& io) const;
  bool splits(const IoRequest& io) const { return !io.flush && !io.trim && !io.raw && io.bytes > max_bytes(); }
  void split(IoRequest& io, unsigned core, Tick now);

  BlkMqDriver& drv_;
  BlkMqCosts cost_;
  bool deadline_, bypass_, isolate_, kblockd_, direct_;
  Tick run_cost_, dispatch_cost_;
  std::vector<std::deque<Run>> runs_;  // per core, oldest first
  unsigned read_queues_ = 0;
  uint32_t max_segments_;
  std::vector<HwQueue> hw_;
  std::vector<Plug> plugs_;  // per core
  std::deque<BlkRequest> pool_;
  std::vector<BlkRequest*> free_;
  uint64_t seq_ = 0;
  std::deque<IoRequest> piece_pool_;  // stable addresses
  std::vector<IoRequest*> free_pieces_;
  std::deque<Split> split_pool_;
  std::vector<Split*> free_splits_;
  std::unordered_map<const IoRequest*, Split*> split_of_;  // piece -> its split
  // The statistics it registers, named in its scope (a group, as gem5's).
  struct Stats {
    explicit Stats(const StatGroup& s);
    Counter &back_merges, &front_merges, &plug_merges, &plug_flushes, &dispatches, &tag_waits, &bypassed,
        &hazard_ordered, &hazard_merged, &splits, &split_pieces, &kblockd_runs, &sync_runs;
  };
  Stats st_;
};

}  // namespace vp::host
