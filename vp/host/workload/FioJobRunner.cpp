// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/FioJobRunner.hpp"

#include <algorithm>
#include <cmath>

#include "vp/host/block/BlockDevices.hpp"
#include "vp/host/workload/VerifyTracker.hpp"

namespace vp::host {

FioJobRunner::FioJobRunner(const FioJob& spec, std::string name, unsigned core, uint64_t seed,
                           std::shared_ptr<OnlineClient> client, unsigned worker)
    : spec_(spec), core_(core), rng_(seed), client_(std::move(client)), worker_(worker) {
  res_.name = std::move(name);
  // fio's handle_thinktime: spin thinktime_spin (only with a thinktime), then
  // sleep whatever of thinktime is left.
  if (spec_.thinktime_ps) {
    spin_ps_ = spec_.thinktime_spin_ps;
    sleep_after_spin_ = spec_.thinktime_ps - std::min(spec_.thinktime_ps, spin_ps_);
  }
  res_.core = core;
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
  size = std::min(size, dev_bytes - off);
  region_start_ = off / lba_size_;
  region_blocks_ = std::max<uint64_t>(1, size / spec_.bs);
  // A skewed random_distribution is set up once for the region (zipf and
  // pareto draw their rotation now); the default uniform draw needs nothing.
  if (!replay_ && spec_.is_random() && !spec_.random_distribution.is_random())
    sampler_.emplace(spec_.random_distribution, region_blocks_, spec_.bs, rng_);
  uint64_t buf_bytes = spec_.bs;
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
  res_.started = start_time_;
  if (client_ && !client_->started()) client_->start(start_time_);  // the server's workers start together
  started_ = true;
}

bool FioJobRunner::requests_exhausted() const {
  if (spec_.requests && client_->taken() >= spec_.requests) return true;
  return spec_.runtime_ps && client_->next_send() >= start_time_ + spec_.runtime_ps;
}

bool FioJobRunner::out_of_work(Tick now) const {
  if (spec_.number_ios && issued_ >= spec_.number_ios) return true;
  if (spec_.runtime_ps && now >= start_time_ + spec_.runtime_ps) return true;
  if (replay_) return trace_next_ >= trace_.size();
  if (!spec_.time_based && !spec_.number_ios && issued_bytes_ >= region_blocks_ * spec_.bs) return true;
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
  if (!started_ || stopped_ || sync_due_ || free_slots_.empty() || now < next_issue_) return false;
  if (out_of_work(now)) {
    stopped_ = true;
    return false;
  }
  return true;
}

Tick FioJobRunner::next_issue_time(Tick now) const {
  if (client_) {
    if (!started_ || stopped_) return kNever;
    if (in_request_) return compute_due_ || (ios_left_ > 0 && !free_slots_.empty()) ? now : kNever;
    // can_issue() finds out whether another request comes.
    return std::max(now, client_->next_arrival());
  }
  if (!started_ || stopped_ || sync_due_ || free_slots_.empty()) return kNever;
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
  ++issued_;
  issued_bytes_ += r.bytes;
  if (r.write && spec_.fsync && ++writes_since_sync_ >= spec_.fsync) {  // fio: fsync after every N writes
    writes_since_sync_ = 0;
    sync_due_ = true;
  }
  if (client_ && inflight_ == 0) io_since_ = now;
  ++inflight_;
  if (client_) {
    --ios_left_;  // no think time or rate limit: the request schedule paces an online job
  } else {
    // Rate limit spaces issues evenly; think time follows each issue (a
    // spinning job's think time counts from the end of its spin: spun()).
    Tick think = spins() ? 0 : spec_.thinktime_ps;
    Tick gap = std::max(interval_, think);
    if (gap) next_issue_ = std::max(next_issue_ + interval_, now + think);
    // A timed replay also waits for the next record's time.
    if (replay_ && !spec_.replay_no_stall && trace_next_ < trace_.size())
      next_issue_ = std::max(next_issue_, trace_time(trace_next_));
  }
  if (verify_) {
    if (r.write)
      verify_->write_issued(r);
    else
      verify_->read_issued(r);
  }
  return r;
}

void FioJobRunner::sync_started() {
  syncing_ = true;
  if (verify_) verify_->sync_started(this);
}

void FioJobRunner::synced(Tick now) {
  sync_due_ = syncing_ = false;
  if (verify_) verify_->synced(this, device_vwc_);
  ++res_.fsyncs;
  res_.ended = std::max(res_.ended, now);
  if (out_of_work(now)) stopped_ = true;
}

void FioJobRunner::spun(Tick end) {
  computing_ = false;
  if (spec_.thinktime_ps) next_issue_ = std::max(next_issue_, end + sleep_after_spin_);
}

void FioJobRunner::pick_next(IoRequest& r) {
  bool rd;
  switch (spec_.rw) {
    case RwMode::Read: case RwMode::RandRead: rd = true; break;
    case RwMode::Write: case RwMode::RandWrite: rd = false; break;
    default: rd = rng_.below(100) < spec_.rwmixread; break;
  }
  uint64_t blk;
  if (spec_.is_random()) {
    // fio's should_do_random: one draw per I/O unless fully random; the
    // sequential ones continue from the block after the last I/O.
    bool random = spec_.percentage_random >= 100 || rng_.below(100) < spec_.percentage_random;
    if (!random) blk = seq_next_;
    else blk = sampler_ ? sampler_->next(rng_, !rd) : rng_.below(region_blocks_);
    seq_next_ = (blk + 1) % region_blocks_;
  } else {
    blk = seq_next_;
    seq_next_ = (seq_next_ + 1) % region_blocks_;
  }
  r.write = !rd;
  r.lba = region_start_ + blk * (spec_.bs / lba_size_);
}

void FioJobRunner::complete(IoRequest& r, Tick now) {
  --inflight_;
  free_slots_.push_back(r.slot);
  if (verify_) {
    using D = VerifyTracker::Durability;
    if (r.write)
      verify_->write_completed(r, !spec_.direct ? D::Buffered : device_vwc_ ? D::Volatile : D::Durable);
    else
      verify_->read_completed(r);
  }
  if (r.status != 0) ++res_.errors;
  Tick lat = now - r.issued;
  auto& stages = r.write ? res_.write_stage : res_.read_stage;
  for (size_t i = 0; i < kStages; ++i) stages[i] += r.clock.spent[i];
  if (r.write) {
    ++res_.writes;
    res_.write_bytes += r.bytes;
    res_.write_lat.add(lat);
  } else {
    ++res_.reads;
    res_.read_bytes += r.bytes;
    res_.read_lat.add(lat);
  }
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
  if (out_of_work(now)) stopped_ = true;
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

nlohmann::json breakdown_json(const std::array<Tick, kStages>& sum, uint64_t n) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < kStages; ++i) j[stage_name(static_cast<Stage>(i))] = n ? us(sum[i]) / double(n) : 0.0;
  return j;
}

}  // namespace

nlohmann::json FioJobRunner::summary(const std::vector<const FioJobRunner*>& workers) const {
  const JobResult& res = result();
  uint64_t ios = res.reads + res.writes;
  double secs = double(res.ended > res.started ? res.ended - res.started : 0) / 1e12;
  nlohmann::json j;
  j["name"] = res.name;
  j["core"] = res.core;
  j["rw"] = spec().rw_name();
  j["bs"] = spec().bs;
  j["iodepth"] = spec().iodepth;
  if (!spec().app.empty()) j["app"] = spec().app;
  if (!spec().direct) j["direct"] = 0;
  if (spec().fsync) j["fsyncs"] = res.fsyncs;
  j["ios"] = ios;
  j["reads"] = res.reads;
  j["writes"] = res.writes;
  j["errors"] = res.errors;
  j["runtime_s"] = secs;
  j["iops"] = secs > 0 ? double(ios) / secs : 0.0;
  j["bandwidth_MBps"] = secs > 0 ? double(res.read_bytes + res.write_bytes) / secs / 1e6 : 0.0;
  j["latency_us"] = {{"read", latency_json(res.read_lat)}, {"write", latency_json(res.write_lat)}};
  j["breakdown_us"] = {{"read", breakdown_json(res.read_stage, res.reads)},
                       {"write", breakdown_json(res.write_stage, res.writes)}};
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
