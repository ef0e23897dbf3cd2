// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/FioJobRunner.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "vp/core/Calendar.hpp"
#include "vp/core/StagePath.hpp"
#include "vp/host/block/BlockDevices.hpp"
#include "vp/host/workload/VerifyTracker.hpp"

namespace vp::host {

FioJobRunner::FioJobRunner(const FioJob& spec, std::string name, unsigned core, uint64_t seed,
                           std::shared_ptr<OnlineClient> client, unsigned worker)
    : spec_(spec), core_(core), rng_(seed), rate_rng_(Rng::derive(seed, 0x72617465)), client_(std::move(client)),
      worker_(worker) {
  res_.name = std::move(name);
  // fio's handle_thinktime: spin thinktime_spin (only with a thinktime), then
  // sleep whatever of thinktime is left.
  if (spec_.thinktime_ps) {
    spin_ps_ = spec_.thinktime_spin_ps;
    sleep_after_spin_ = spec_.thinktime_ps - std::min(spec_.thinktime_ps, spin_ps_);
  }
  res_.core = core;
  submit_batch_ = spec_.submit_batch();
  has_trims_ = spec_.has_trims();
  simple_offsets_ = spec_.fixed_bs() && !spec_.rw_skip && spec_.rw_per_offset == 1 &&
                    (!spec_.blockalign || spec_.blockalign == spec_.bs);
  for (int d = 0; d < 2; ++d) rate_bps_[d] = spec_.rate_bps[d] ? spec_.rate_bps[d] : spec_.rate_iops * spec_.bs;
  mixed_rated_ = (spec_.rw == RwMode::RandRW || spec_.rw == RwMode::SeqRW) && spec_.rated() && !spec_.online &&
                 spec_.read_iolog.empty();
  if (spec_.online) {
    // Its own stream from the job's seed: arrivals do not depend on the I/O picks.
    if (!client_)
      client_ = std::make_shared<OnlineClient>(spec_.request_rate, spec_.rate_poisson, spec_.net_delay_ps,
                                               Rng::derive(seed, 0x6f6e6c));
    request_insts_ = spec_.request_insts ? *spec_.request_insts : spec_.thinktime_insts * spec_.ios_per_request;
  }
  // Loaded while the platform is built (Workload::check has already read it
  // once, so a bad trace stops the run before this).
  if (!spec_.read_iolog.empty()) {
    source_ = BlockTrace::load(spec_.read_iolog, spec_.replay_format);
    replay_ = true;
  }
}

Tick FioJobRunner::trace_time(size_t i) const {
  auto t = (unsigned __int128)trace_[i].time_ps * 100 / spec_.replay_time_scale + start_time_;
  return t >= kNever ? kNever - 1 : static_cast<Tick>(t);
}

void FioJobRunner::start(Tick now, BlockDevices& devs, HostMemoryAllocator& memory, VerifyTracker* verify) {
  verify_ = spec_.verify ? verify : nullptr;
  dev_ = static_cast<unsigned>(std::max(0, devs.find(spec_.filename)));
  const ControllerInfo dev = devs.info(dev_);
  device_vwc_ = dev.volatile_write_cache;
  lba_size_ = dev.lba_size;
  uint64_t dev_bytes = dev.ns_lbas * uint64_t(dev.lba_size);
  uint64_t off = spec_.start_offset(dev_bytes);
  uint64_t size = spec_.size ? spec_.size : static_cast<uint64_t>(double(dev_bytes) * spec_.size_percent / 100.0);
  off = off / (replay_ ? lba_size_ : spec_.bs) * (replay_ ? lba_size_ : spec_.bs);
  if (off >= dev_bytes) off = 0;  // checked before the run; kept safe here
  if (spec_.fill_device) size = dev_bytes - off;  // a block device is full at its end
  size = std::min(size, dev_bytes - off);
  region_start_ = off / lba_size_;
  region_blocks_ = std::max<uint64_t>(1, size / spec_.bs);
  // A skewed random_distribution is set up once for the region (zipf and
  // pareto draw their rotation now); the default uniform draw needs nothing.
  if (!replay_ && spec_.is_random() && !spec_.random_distribution.is_random())
    sampler_.emplace(spec_.random_distribution, region_blocks_, spec_.bs, rng_);
  uint64_t buf_bytes = spec_.max_bs();
  limit_bytes_ = (spec_.io_size ? spec_.io_size : region_blocks_ * spec_.bs) * spec_.loops;
  if (replay_) {
    trace_ = source_.fit(size, lba_size_, spec_.replay_fit);  // Workload::check ran the same fit
    buf_bytes = 0;
    for (const TraceRecord& t : trace_) buf_bytes = std::max(buf_bytes, t.bytes);
  }
  slots_.resize(spec_.depth());
  for (uint32_t i = 0; i < spec_.depth(); ++i) {
    IoRequest& r = slots_[i];
    r.job = this;
    r.slot = i;
    r.fua = spec_.sync && spec_.direct;  // O_SYNC direct writes carry FUA (reads ignore it)
    r.bytes = static_cast<uint32_t>(spec_.bs);
    r.nlb = static_cast<uint32_t>(spec_.bs / lba_size_);
    r.buf_addr = memory.alloc("I/O buffer", buf_bytes);
    r.buf = devs.host_ptr(r.buf_addr);
    r.dev = static_cast<uint16_t>(dev_);
    free_slots_.push_back(spec_.depth() - 1 - i);
  }
  start_time_ = now + spec_.startdelay_ps;
  next_issue_ = start_time_;
  if (replay_ && !spec_.replay_no_stall) next_issue_ = trace_time(0);
  interval_ = spec_.rate_iops ? static_cast<Tick>(1e12 / double(spec_.rate_iops)) : 0;
  ramp_end_ = start_time_ + spec_.ramp_ps;
  res_.started = ramp_end_;
  fio_.start(spec_, ramp_end_);
  if (client_ && !client_->started()) client_->start(start_time_);  // the server's workers start together
  started_ = true;
}

bool FioJobRunner::requests_exhausted() const {
  if (spec_.requests && client_->taken() >= spec_.requests) return true;
  return spec_.runtime_ps && client_->next_send() >= start_time_ + spec_.runtime_ps;
}

bool FioJobRunner::out_of_work(Tick now) const {
  if (spec_.number_ios && issued_ >= spec_.number_ios) return true;
  if (spec_.runtime_ps && now >= ramp_end_ + spec_.runtime_ps) return true;
  if (replay_) return trace_next_ >= trace_.size();
  if (!spec_.time_based && !spec_.number_ios && issued_bytes_ >= limit_bytes_) return true;
  return false;
}

void FioJobRunner::finish_if_out(Tick now) {
  if (stopped_ || !out_of_work(now)) return;
  if (spec_.end_fsync && !end_sync_done_) {
    if (!sync_due_) end_sync_done_ = sync_due_ = true;  // else after the periodic fsync under way
    return;
  }
  stopped_ = true;
}

bool FioJobRunner::choose_rated_direction(Tick now) {
  if (dir_chosen_) return now >= rate_next_[chosen_write_];
  bool w = rng_.below(100) >= spec_.rwmixread;
  // fio's rate_ddir: go if this direction is behind its rate; else switch
  // if the other one is; else wait for whichever is due first.
  bool other_used = w ? spec_.rwmixread > 0 : spec_.rwmixread < 100;
  if (rate_next_[w] > now && other_used && rate_next_[!w] <= now) w = !w;
  else if (rate_next_[w] > now && other_used && rate_next_[!w] < rate_next_[w]) w = !w;
  dir_chosen_ = true, chosen_write_ = w;
  if (rate_next_[w] <= now) return true;
  next_issue_ = std::max(next_issue_, rate_next_[w]);
  return false;
}

bool FioJobRunner::can_issue(Tick now) {
  if (client_) {
    if (!started_ || stopped_) return false;
    if (!in_request_) {  // take the next request once it has reached the server
      if (requests_exhausted()) {
        stopped_ = true;
        return false;
      }
      if (client_->next_arrival() > now) return false;
      cur_request_ = client_->take();
      cur_taken_ = now;
      cur_io_ = 0;
      in_request_ = true;
      compute_due_ = request_insts_ > 0;
      ios_left_ = spec_.ios_per_request;
    }
    return compute_due_ || (ios_left_ > 0 && !free_slots_.empty());
  }
  if (!started_ || stopped_ || sync_due_ || refill_wait_ || trim_wait_ || free_slots_.empty() || now < next_issue_)
    return false;
  if (out_of_work(now)) {
    finish_if_out(now);
    return false;
  }
  if (mixed_rated_ && !choose_rated_direction(now)) return false;
  return true;
}

Tick FioJobRunner::next_issue_time(Tick now) const {
  if (client_) {
    if (!started_ || stopped_) return kNever;
    if (in_request_) return compute_due_ || (ios_left_ > 0 && !free_slots_.empty()) ? now : kNever;
    // can_issue() finds out whether another request comes.
    return std::max(now, client_->next_arrival());
  }
  if (!started_ || stopped_ || sync_due_ || refill_wait_ || trim_wait_ || free_slots_.empty()) return kNever;
  return std::max(now, next_issue_);
}

IoRequest& FioJobRunner::issue(Tick now) {
  uint32_t s = free_slots_.back();
  free_slots_.pop_back();
  IoRequest& r = slots_[s];
  if (replay_) {
    const TraceRecord& t = trace_[trace_next_++];
    r.write = t.write;
    r.lba = region_start_ + t.offset / lba_size_;
    r.bytes = static_cast<uint32_t>(t.bytes);  // blk-mq splits it beyond MDTS
    r.nlb = static_cast<uint32_t>(t.bytes / lba_size_);
  } else {
    pick_next(r);
  }
  r.status = 0;
  r.attr = static_cast<uint8_t>(spec_.attribute());
  r.issued = now;
  r.clock.start(now);
  // trimwrite: the writes count against size and number_ios; each has its trim.
  if (!(r.trim && spec_.trim_write())) {
    ++issued_;
    issued_bytes_ += r.bytes;
  }
  dir_bytes_[r.write] += r.bytes;  // a trim takes the write direction's rate, as fio's without a trim value
  // fio's libaio sends a trim as a BLKDISCARD ioctl: the thread waits in it.
  if (r.trim) trim_wait_ = true;
  // fio: fsync after every N writes; a buffered O_SYNC write is synced by itself.
  unsigned every = spec_.sync && !spec_.direct ? 1 : spec_.sync_every();
  if (r.write && !r.trim && every && ++writes_since_sync_ >= every) {
    writes_since_sync_ = 0;
    sync_due_ = true;
  }
  if (client_ && inflight_ == 0) io_since_ = now;
  ++inflight_;
  fio_.issued(now, inflight_);
  if (spec_.iodepth_low && spec_.iodepth_low < spec_.depth() && inflight_ >= spec_.depth()) refill_wait_ = true;
  if (client_) {
    --ios_left_;  // no think time or rate limit: the request schedule paces an online job
  } else {
    // Rate limit spaces issues evenly; think time follows every
    // thinktime_blocks issues (a spinning job's counts from the end of its
    // spin: spun()). fio's rate (bytes/s) takes precedence over rate_iops.
    bool think_now = ++think_count_ >= spec_.thinktime_blocks;
    if (think_now) think_count_ = 0;
    Tick think = spins() || !think_now ? 0 : spec_.thinktime_ps;
    if (mixed_rated_) {
      dir_chosen_ = false;
      if (uint64_t bps = rate_bps_[r.write])
        rate_next_[r.write] = start_time_ + static_cast<Tick>((unsigned __int128)dir_bytes_[r.write] * 1000000000000ull / bps);
      if (think) next_issue_ = std::max(next_issue_, now + think);
    } else {
      Tick interval = interval_;
      if (uint64_t bps = spec_.rate_bps[r.write]) interval = static_cast<Tick>((unsigned __int128)r.bytes * 1000000000000ull / bps);
      // rate_process=poisson: exponential gaps of that mean, from a stream of their own.
      if (spec_.rate_poisson && interval) interval = static_cast<Tick>(-std::log(1.0 - rate_rng_.unit()) * double(interval));
      Tick gap = std::max(interval, think);
      if (gap) next_issue_ = std::max(next_issue_ + interval, now + think);
    }
    // A timed replay also waits for the next record's time.
    if (replay_ && !spec_.replay_no_stall && trace_next_ < trace_.size())
      next_issue_ = std::max(next_issue_, trace_time(trace_next_));
  }
  if (verify_ && !r.trim) {  // Workload::check refuses verify on a job with trims
    if (r.write)
      verify_->write_issued(r);
    else
      verify_->read_issued(r);
  }
  return r;
}

void FioJobRunner::sync_started() {
  syncing_ = true;
  fio_.sync_started(now_ps());
  if (verify_) verify_->sync_started(this);
}

void FioJobRunner::synced(Tick now) {
  sync_due_ = syncing_ = false;
  fio_.synced(now);
  if (verify_) verify_->synced(this, device_vwc_);
  ++res_.fsyncs;
  res_.ended = std::max(res_.ended, now);
  finish_if_out(now);
}

IoRequest* FioJobRunner::start_direct_sync(Tick now) {
  sync_started();
  if (!device_vwc_) {  // blkdev_issue_flush sends nothing to a device without a volatile cache
    synced(now);
    return nullptr;
  }
  flush_req_ = IoRequest{};
  flush_req_.job = this;
  flush_req_.flush = true;
  flush_req_.dev = static_cast<uint16_t>(dev_);
  flush_req_.attr = static_cast<uint8_t>(spec_.attribute());
  flush_req_.issued = now;
  flush_req_.clock.start(now);
  return &flush_req_;
}

void FioJobRunner::spun(Tick end) {
  computing_ = false;
  if (spec_.thinktime_ps) next_issue_ = std::max(next_issue_, end + sleep_after_spin_);
}

void FioJobRunner::pick_next(IoRequest& r) {
  bool rd = false;
  r.trim = false;
  switch (spec_.rw) {
    case RwMode::Read: case RwMode::RandRead: rd = true; break;
    case RwMode::Write: case RwMode::RandWrite: break;
    case RwMode::Trim: case RwMode::RandTrim: r.trim = true; break;
    case RwMode::TrimWrite: case RwMode::RandTrimWrite:
      // fio's set_rw_ddir: a trim, then a write of the blocks it trimmed.
      if (pair_write_) {
        pair_write_ = false;
        r.write = true;
        r.lba = pair_.lba, r.bytes = pair_.bytes, r.nlb = pair_.nlb;
        return;
      }
      r.trim = true;
      break;
    default: rd = mixed_rated_ ? !chosen_write_ : rng_.below(100) < spec_.rwmixread; break;
  }
  r.write = !rd;
  if (!simple_offsets_) {
    pick_general(r);
  } else {
    uint64_t blk;
    if (spec_.is_random()) {
      // fio's should_do_random: one draw per I/O unless fully random; the
      // sequential ones continue from the block after the last I/O.
      bool random = spec_.percentage_random >= 100 || rng_.below(100) < spec_.percentage_random;
      if (!random) blk = seq_next_;
      else blk = sampler_ ? sampler_->next(rng_, ddir(r)) : rng_.below(region_blocks_);
      seq_next_ = (blk + 1) % region_blocks_;
    } else {
      blk = seq_next_;
      seq_next_ = (seq_next_ + 1) % region_blocks_;
    }
    r.lba = region_start_ + blk * (spec_.bs / lba_size_);
  }
  if (r.trim && spec_.trim_write()) {
    pair_write_ = true;
    pair_ = {r.lba, r.bytes, r.nlb};
  }
}

// Variable block sizes, rw=<mode>:N: offsets in bytes, each I/O cut to the
// region's end as fio's get_next_buflen does.
void FioJobRunner::pick_general(IoRequest& r) {
  const uint64_t end = region_blocks_ * spec_.bs;
  uint64_t pos;
  if (spec_.is_random() && per_offset_left_ == 0) {
    bool random = spec_.percentage_random >= 100 || rng_.below(100) < spec_.percentage_random;
    uint64_t blk = random ? (sampler_ ? sampler_->next(rng_, ddir(r)) : rng_.below(region_blocks_))
                          : seq_pos_ / spec_.bs % region_blocks_;
    const uint64_t unit = spec_.blockalign ? spec_.blockalign : spec_.bs;  // fio's ba
    pos = blk * spec_.bs / unit * unit;
    per_offset_left_ = spec_.rw_per_offset - 1;
  } else if (spec_.is_random()) {
    --per_offset_left_;
    pos = spec_.rw_identical ? last_pos_ : seq_pos_;
  } else {
    pos = seq_pos_;
  }
  if (pos + spec_.bs > end) pos = 0;  // the smallest size no longer fits: back to the start
  uint64_t bytes = pick_bytes(end - pos);
  last_pos_ = pos;
  // fio's get_next_seq_offset: past the end a holed job wraps to the start,
  // a backwards one (rw=read:-8k) to the end.
  const int64_t skip = spec_.is_random() ? 0 : spec_.rw_skip;
  int64_t next = int64_t(pos + bytes) + skip;
  if (next < 0 || uint64_t(next) >= end) next = skip < 0 ? std::max<int64_t>(0, int64_t(end) + skip) : 0;
  seq_pos_ = uint64_t(next);
  r.lba = region_start_ + pos / lba_size_;
  r.bytes = static_cast<uint32_t>(bytes);
  r.nlb = static_cast<uint32_t>(bytes / lba_size_);
}

// fio's get_next_buflen: a size drawn until one fits in `room` (the
// smallest always does). bsrange: bs + bs_max x u, aligned down to bs and
// capped at bs_max; bssplit: the first size whose running share passes the
// draw and that fits.
uint64_t FioJobRunner::pick_bytes(uint64_t room) {
  for (int tries = 0; tries < 1000; ++tries) {
    uint64_t b = 0;
    if (!spec_.bssplit.empty()) {
      unsigned draw = static_cast<unsigned>(rng_.below(100)), sum = 0;
      for (const FioJob::BsShare& s : spec_.bssplit) {
        if (!s.percent) continue;
        sum += s.percent;
        if (draw < sum && s.bytes <= room) {
          b = s.bytes;
          break;
        }
      }
    } else {
      b = spec_.bs + static_cast<uint64_t>(double(spec_.bs_max) * rng_.unit());
      b = std::min(b - b % spec_.bs, spec_.bs_max);
    }
    if (b && b <= room) return b;
  }
  return std::min(spec_.bs, room);  // not reached in practice: bs fits wherever an I/O starts
}

void FioJobRunner::complete(IoRequest& r, Tick now) {
  if (&r == &flush_req_) {  // a direct job's fsync
    if (r.status != 0) ++res_.errors;
    synced(now);
    return;
  }
  --inflight_;
  if (r.trim) trim_wait_ = false;
  held_.push_back(r.slot);
  if (held_.size() >= spec_.iodepth_batch_complete_min || inflight_ == 0) {
    free_slots_.insert(free_slots_.end(), held_.begin(), held_.end());
    held_.clear();
  }
  if (refill_wait_ && inflight_ <= spec_.iodepth_low) refill_wait_ = false;
  if (verify_ && !r.trim) {
    using D = VerifyTracker::Durability;
    if (r.write)
      verify_->write_completed(r, !spec_.direct ? D::Buffered : device_vwc_ && !r.fua ? D::Volatile : D::Durable);
    else
      verify_->read_completed(r);
  }
  if (r.status != 0) ++res_.errors;
  if (now < ramp_end_) {  // ramp_time: done, not counted
    finish_if_out(now);
    return;
  }
  Tick lat = now - r.issued;
  auto& stages = r.trim ? res_.trim_stage : r.write ? res_.write_stage : res_.read_stage;
  for (size_t i = 0; i < kStages; ++i) stages[i] += r.clock.spent[i];
  if (r.trim) {
    ++res_.trims;
    res_.trim_bytes += r.bytes;
    res_.trim_lat.add(lat);
  } else if (r.write) {
    ++res_.writes;
    res_.write_bytes += r.bytes;
    res_.write_lat.add(lat);
  } else {
    ++res_.reads;
    res_.read_bytes += r.bytes;
    res_.read_lat.add(lat);
  }
  fio_.completed(now, ddir(r), r.bytes, r.lba * lba_size_, lat, r.clock.spent[size_t(Stage::HostSubmit)]);
  res_.ended = now;
  if (client_) {
    if (inflight_ == 0) cur_io_ += now - io_since_;
    if (in_request_ && ios_left_ == 0 && inflight_ == 0) {  // the response leaves the server
      client_->respond(cur_request_, cur_taken_, cur_io_, worker_, now);
      in_request_ = false;
      if (requests_exhausted()) stopped_ = true;
    }
    return;
  }
  finish_if_out(now);
}

// ---------------------------------------------------------------- report

namespace {

double us(Tick t) { return double(t) / 1e6; }

// Count, mean, nearest-rank percentiles (exact, no interpolation; p95 is
// FlashShare's figure), min and max, in us.
nlohmann::json latency_json(const Distribution& d) { return d.summary(1e6); }

// An online job's end-to-end response times (client send to client receive).
nlohmann::json response_json(const OnlineClient& c) {
  Distribution d;
  for (const OnlineClient::Response& r : c.responses()) d.add(r.time());
  return latency_json(d);
}

// Mean parts of the responses (us), over all of them and over the slowest
// ones (from the p99 up: where the tail's time went).
nlohmann::json response_parts_json(const OnlineClient& c) {
  const auto& rs = c.responses();
  auto parts = [](const std::vector<const OnlineClient::Response*>& v) {
    double n = double(v.size()), net = 0, queue = 0, io = 0, compute = 0;
    for (const OnlineClient::Response* r : v) {
      net += us(2 * r->net);
      queue += us(r->queued());
      io += us(r->io);
      compute += us(r->compute());
    }
    return nlohmann::json{{"count", v.size()},
                          {"network", n ? net / n : 0.0},
                          {"queue", n ? queue / n : 0.0},
                          {"io", n ? io / n : 0.0},
                          {"compute", n ? compute / n : 0.0}};
  };
  std::vector<const OnlineClient::Response*> all;
  std::vector<Tick> times;
  for (const OnlineClient::Response& r : rs) {
    all.push_back(&r);
    times.push_back(r.time());
  }
  std::vector<const OnlineClient::Response*> tail;
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    Tick p99 = Distribution::nearest_rank(times, 0.99);
    for (const OnlineClient::Response* r : all)
      if (r->time() >= p99) tail.push_back(r);
  }
  return {{"all", parts(all)}, {"p99_and_above", parts(tail)}};
}

// The mean us per I/O in each stage, in the direction's path order.
nlohmann::ordered_json breakdown_json(const std::array<Tick, kStages>& sum, uint64_t n, bool write) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (Stage st : stage_path(write)) j[stage_name(st)] = us(sum[static_cast<size_t>(st)]) / double(n);
  return j;
}

}  // namespace

nlohmann::ordered_json FioJobRunner::summary(const std::vector<const FioJobRunner*>& workers) const {
  const JobResult& res = result();
  uint64_t ios = res.reads + res.writes + res.trims;
  double secs = double(res.ended > res.started ? res.ended - res.started : 0) / 1e12;
  nlohmann::ordered_json j;
  j["name"] = res.name;
  j["core"] = res.core;
  j["rw"] = spec().rw_name();
  j["bs"] = spec().bs;
  j["iodepth"] = spec().iodepth;
  if (!spec().app.empty()) j["app"] = spec().app;
  if (spec().buffered_io()) j["direct"] = 0;  // a trim-only job sends its ioctls whatever direct says
  if (spec().sync_every() || spec().end_fsync || (spec().sync && !spec().direct)) j["fsyncs"] = res.fsyncs;
  j["ios"] = ios;
  j["reads"] = res.reads;
  j["writes"] = res.writes;
  if (spec().has_trims()) j["trims"] = res.trims;
  j["errors"] = res.errors;
  j["runtime_s"] = secs;
  j["iops"] = secs > 0 ? double(ios) / secs : 0.0;
  j["bandwidth_MBps"] = secs > 0 ? double(res.read_bytes + res.write_bytes + res.trim_bytes) / secs / 1e6 : 0.0;
  j["latency_us"] = {{"read", latency_json(res.read_lat)}, {"write", latency_json(res.write_lat)}};
  if (spec().has_trims()) j["latency_us"]["trim"] = latency_json(res.trim_lat);
  if (!spec().percentile_list.empty())  // fio's percentile_list, keyed as fio.json keys it
    for (auto [dir, d] : {std::pair{"read", &res.read_lat}, {"write", &res.write_lat}, {"trim", &res.trim_lat}}) {
      if (d == &res.trim_lat && !spec().has_trims()) continue;
      nlohmann::json p = nlohmann::json::object();
      for (double q : spec().percentile_list)
        p[fmt::format("{:.6f}", q)] = d->empty() ? 0.0 : us(d->percentile(q / 100.0));
      j["latency_us"][dir]["percentiles"] = p;
    }
  if (group_id) j["groupid"] = group_id;
  if (spec().ramp_ps) j["ramp_time_s"] = double(spec().ramp_ps) / 1e12;
  // fio ends a job that falls below rate_min / rate_iops_min with an error.
  std::string below;
  for (int d = 0; d < 2; ++d) {
    double bytes = double(d ? res.write_bytes : res.read_bytes), n = double(d ? res.writes : res.reads);
    const char* dir = d ? "write" : "read";
    if (spec().rate_min_bps[d] && (secs <= 0 || bytes / secs < double(spec().rate_min_bps[d])))
      below += fmt::format("{}{} bandwidth {:.0f} B/s below rate_min {} B/s", below.empty() ? "" : "; ", dir,
                           secs > 0 ? bytes / secs : 0.0, spec().rate_min_bps[d]);
    if (spec().rate_iops_min[d] && (secs <= 0 || n / secs < double(spec().rate_iops_min[d])))
      below += fmt::format("{}{} IOPS {:.0f} below rate_iops_min {}", below.empty() ? "" : "; ", dir,
                           secs > 0 ? n / secs : 0.0, spec().rate_iops_min[d]);
  }
  if (!below.empty()) j["error"] = below;
  // Only the directions the job did: a read-only job has no write breakdown
  // (latency_us keeps both, its count says 0). A trim passes a write's stages.
  j["breakdown_us"] = nlohmann::ordered_json::object();
  if (res.reads) j["breakdown_us"]["read"] = breakdown_json(res.read_stage, res.reads, false);
  if (res.writes) j["breakdown_us"]["write"] = breakdown_json(res.write_stage, res.writes, true);
  if (res.trims) j["breakdown_us"]["trim"] = breakdown_json(res.trim_stage, res.trims, true);
  // The server is reported once, on its worker 0; each worker's I/Os are
  // its own job entry, as fio reports numjobs clones without group_reporting.
  if (const OnlineClient* c = client(); c && worker() == 0) {
    nlohmann::json names = nlohmann::json::array();
    for (const FioJobRunner* w : workers) names.push_back(w->result().name);
    j["online"] = {{"request_rate", spec().request_rate},
                   {"rate_process", spec().rate_poisson ? "poisson" : "linear"},
                   {"ios_per_request", spec().ios_per_request},
                   {"workers", workers.size()},
                   {"worker_jobs", names},
                   {"requests_sent", c->taken()},
                   {"requests", c->responses().size()},
                   {"response_us", response_json(*c)},
                   {"response_parts_us", response_parts_json(*c)}};
  } else if (c) {
    j["worker_of"] = workers.front()->result().name;
  }
  return j;
}


}  // namespace vp::host
