// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One fio job (one of its numjobs clones) running on a host core: it decides
// what to issue and when (rw mix, block size, offsets, iodepth, rate and
// think time, stop conditions) and records the latency and stage breakdown of
// every I/O it completes. Direct asynchronous I/O semantics (libaio), or
// buffered ones (direct=0) that the core carries out through the page cache. With
// read_iolog the next I/O and its time come from a block trace instead.
#include <array>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vp/core/Distribution.hpp"
#include "vp/core/Rng.hpp"
#include "vp/host/workload/FioJob.hpp"
#include "vp/host/workload/FioJobStats.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/block/IoRequest.hpp"
#include "vp/host/workload/OnlineClient.hpp"
#include "vp/host/workload/RandomDistribution.hpp"

namespace vp::host {

class BlockDevices;
class VerifyTracker;

constexpr Tick kNever = ~Tick(0);

struct JobResult {
  std::string name;
  unsigned core = 0;
  uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0, errors = 0, fsyncs = 0;
  uint64_t trims = 0, trim_bytes = 0;  // discards (rw=trim, randtrim, trimwrite): neither reads nor writes here
  Tick started = 0, ended = 0;
  Distribution read_lat, write_lat, trim_lat;  // per I/O, ps
  std::array<Tick, kStages> read_stage{}, write_stage{}, trim_stage{};  // summed over I/Os
  // By fio's direction (0 read, 1 write, 2 trim).
  uint64_t ios(unsigned ddir) const { return ddir == 2 ? trims : ddir ? writes : reads; }
  uint64_t bytes(unsigned ddir) const { return ddir == 2 ? trim_bytes : ddir ? write_bytes : read_bytes; }
  const Distribution& lat(unsigned ddir) const { return ddir == 2 ? trim_lat : ddir ? write_lat : read_lat; }
};

class FioJobRunner {
 public:
  // An online job's worker 0 makes the server's client; workers 1..N-1 of
  // the same server are given it (`client`) and their index (`worker`).
  FioJobRunner(const FioJob& spec, std::string name, unsigned core, uint64_t seed,
               std::shared_ptr<OnlineClient> client = nullptr, unsigned worker = 0);

  // Called when the job's group starts, once the devices are up: the job
  // opens its filename (Workload::check made sure it exists). Buffers (one
  // per slot of the job's depth) come from `memory`.
  void start(Tick now, BlockDevices& devs, HostMemoryAllocator& memory, VerifyTracker* verify);
  // The block device it opened (BlockDevices' index).
  unsigned device() const { return dev_; }
  bool started() const { return started_; }
  // Ready to issue at `now`? (Notices, and remembers, when the job has run
  // out of work.)
  bool can_issue(Tick now);
  // When it may issue next if only time holds it back; kNever otherwise.
  Tick next_issue_time(Tick now) const;
  IoRequest& issue(Tick now);
  // CPU the job burns on its core after each issue (thinktime_spin, and
  // thinktime_insts converted by the core); the core calls spun() when done,
  // and the rest of thinktime is slept from there.
  bool spins() const { return !client_ && (spin_ps_ || spec_.thinktime_insts); }
  Tick spin_ps() const { return spin_ps_; }
  uint64_t spin_insts(Tick now) const { return spec_.insts_between_ios(now > start_time_ ? now - start_time_ : 0); }
  void spun(Tick end);
  // Online jobs: the worker's compute for the request it has just taken
  // (instructions; 0 when none is due), run on the core before the request's
  // I/Os; the core calls computed() when done.
  uint64_t request_compute() const { return compute_due_ ? request_insts_ : 0; }
  void computed() { compute_due_ = computing_ = false; }
  const OnlineClient* client() const { return client_.get(); }
  // The job's entry in summary.json's "jobs": what it did, latency
  // distributions and stage breakdown in us, and for an online job's worker
  // 0 the server's response times. `workers`: the runners sharing its
  // client (worker 0 first), empty for a plain job.
  nlohmann::ordered_json summary(const std::vector<const FioJobRunner*>& workers) const;
  const std::shared_ptr<OnlineClient>& shared_client() const { return client_; }
  unsigned worker() const { return worker_; }  // index among the server's workers
  void complete(IoRequest& r, Tick now);
  bool done() const { return started_ && stopped_ && inflight_ == 0 && !sync_due_ && !computing_; }
  // The core runs the job's compute (spin or request) until spun()/computed():
  // the job is not done before it ends.
  void compute_started() { computing_ = true; }
  // Buffered I/O (direct=0): through the page cache.
  bool buffered() const { return spec_.buffered_io(); }
  // The job's region on the device (its file, for the page cache).
  uint64_t region_lba() const { return region_start_; }
  uint64_t region_lbas() const { return region_blocks_ * (spec_.bs / lba_size_); }
  // fsync=N: after N writes the job stops issuing; once its writes have
  // completed the core starts the fsync (sync_started) and the job goes on
  // when it finishes (synced).
  bool wants_sync() const { return started_ && sync_due_ && !syncing_ && inflight_ == 0; }
  void sync_started();
  void synced(Tick now);
  // A direct job's fsync (Linux's blkdev_fsync): the NVMe Flush to send, or
  // nullptr when the device has no volatile write cache (synced at once).
  IoRequest* start_direct_sync(Tick now);
  // exitall: another job ended the run; in-flight I/Os still complete.
  void stop() { stopped_ = true; }
  // fio's reporting group (new_group, stonewall); set by the workload.
  unsigned group_id = 0;
  const JobResult& result() const { return res_; }
  // fio's own figures of the job (clat, slat, samples, logs): fio.json's.
  const FioJobStats& fio_stats() const { return fio_; }
  const FioJob& spec() const { return spec_; }
  // The job's I/Os per submission and whether it has trims, worked out once
  // (the spec's own answers compare its engine's name).
  unsigned submit_batch() const { return submit_batch_; }
  bool has_trims() const { return has_trims_; }
  unsigned core() const { return core_; }
  void move_to(unsigned core) { core_ = core; }  // its thread migrated

 private:
  bool out_of_work(Tick now) const;
  // Out of work: stop, or first the end_fsync.
  void finish_if_out(Tick now);
  uint64_t pick_bytes(uint64_t room);  // a block size that fits in `room` bytes
  // Rated mixed jobs pick their direction first, as fio's rate_ddir does:
  // false when neither direction may go yet (next_issue_ is then set).
  bool choose_rated_direction(Tick now);
  bool requests_exhausted() const;  // online: the client sends no more requests
  Tick trace_time(size_t i) const;  // when trace record i is due (timed replay)
  void pick_next(IoRequest& r);     // direction and LBA from rw, rwmix and the region
  void pick_general(IoRequest& r);  // the same with variable sizes or rw=...:N
  FioJob spec_;
  std::vector<TraceRecord> trace_;  // placed in the region by start()
  size_t trace_next_ = 0;
  bool replay_ = false;
  unsigned core_;
  Rng rng_;
  Rng rate_rng_;  // rate_process=poisson's gaps
  std::optional<OffsetSampler> sampler_;  // random_distribution other than uniform (random jobs)
  VerifyTracker* verify_ = nullptr;
  unsigned dev_ = 0;
  bool device_vwc_ = false;  // the device reported a volatile write cache: an fsync sends a Flush
  BlockTrace source_;
  uint32_t lba_size_ = 4096;
  uint64_t region_start_ = 0, region_blocks_ = 0, seq_next_ = 0;
  uint64_t issued_ = 0, issued_bytes_ = 0;
  uint32_t inflight_ = 0;
  Tick start_time_ = 0, next_issue_ = 0, interval_ = 0;
  Tick spin_ps_ = 0, sleep_after_spin_ = 0;
  bool started_ = false, stopped_ = false;
  bool sync_due_ = false, syncing_ = false;
  bool computing_ = false;
  uint64_t writes_since_sync_ = 0;
  // Online: the request being served (one at a time per worker; the
  // server's workers take requests from the shared client in arrival order).
  std::shared_ptr<OnlineClient> client_;
  unsigned worker_ = 0;
  uint64_t request_insts_ = 0, cur_request_ = 0;
  Tick cur_taken_ = 0, cur_io_ = 0, io_since_ = 0;  // the current request: taken, I/O time so far
  bool in_request_ = false, compute_due_ = false;
  unsigned ios_left_ = 0;  // I/Os of the current request not yet issued
  std::vector<IoRequest> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint32_t> held_;  // completed, not yet reaped (iodepth_batch_complete_min)
  uint64_t limit_bytes_ = 0;    // issued bytes that end a size-bound job
  Tick ramp_end_ = 0;           // results count from here (ramp_time)
  // Per direction (read, write): bytes issued and, for rated mixed jobs,
  // when the next I/O of that direction may go.
  uint64_t dir_bytes_[2] = {0, 0};
  Tick rate_next_[2] = {0, 0};
  bool dir_chosen_ = false, chosen_write_ = false;
  unsigned think_count_ = 0;
  // The general offset path (variable sizes, rw=...:N): where the next
  // sequential I/O starts, the last I/O's offset, I/Os left at this offset.
  uint64_t seq_pos_ = 0, last_pos_ = 0;
  unsigned per_offset_left_ = 0;
  bool refill_wait_ = false;  // iodepth_low: at iodepth, waiting to drain
  bool trim_wait_ = false;    // a trim in flight: the thread is in its BLKDISCARD
  // trimwrite: the write of the blocks just trimmed is next.
  bool pair_write_ = false;
  struct {
    uint64_t lba;
    uint32_t bytes, nlb;
  } pair_{};
  static unsigned ddir(const IoRequest& r) { return r.trim ? 2 : r.write ? 1 : 0; }
  bool simple_offsets_ = true;  // one block size, no rw=...:N: pick_next's own path
  bool mixed_rated_ = false;
  unsigned submit_batch_ = 1;
  bool has_trims_ = false;
  uint64_t rate_bps_[2] = {0, 0};  // fio: rate, else rate_iops x bs
  bool end_sync_done_ = false;
  IoRequest flush_req_;
  JobResult res_;
  FioJobStats fio_;
};

}  // namespace vp::host
