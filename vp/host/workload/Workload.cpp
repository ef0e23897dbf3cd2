// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/Workload.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "vp/core/Quote.hpp"
#include "vp/core/Rng.hpp"
#include "vp/host/block/BlockDevices.hpp"
#include "vp/host/sched/WakePlacement.hpp"
#include "vp/host/workload/FioOptions.hpp"

namespace vp::host {

void Workload::declare_params(ParamRegistry& r) {
  // No job of its own: a preset, --set workload.fio or --job FILE gives them.
  r.string("workload.fio", "",
           "the workload as a fio job file, read as fio reads it (direct=0, buffered, unless a job says direct=1); "
           "replaced by --job FILE");
}

std::vector<FioJob> Workload::jobs_from(const Config& cfg) {
  try {
    return parse_fio(cfg.get_string("workload.fio"), "workload.fio (" + cfg.origin("workload.fio") + ")");
  } catch (const FioError& e) {
    throw ConfigError(e.what());
  }
}

JobNeeds Workload::check(const std::vector<FioJob>& jobs, const JobTarget& target) {
  JobNeeds needs;
  const uint64_t lba = target.lba_size;
  if (jobs.empty()) throw ConfigError("workload.fio: no job defined (add a [job] section or pass --job FILE)");
  uint64_t most = 0;  // the job whose buffers take the most
  for (const auto& j : jobs) {
    auto where_of = [&](const std::string& opt, const std::string& value) {
      auto it = j.where.find(opt);
      return fmt::format("{} = {}{}", opt, value, it == j.where.end() ? "" : " at " + it->second.at);
    };
    auto bad = [&](const std::string& opt, const std::string& why) {
      return ConfigError(j.at(opt) + ": " + why);
    };
    // A second option the problem involves, where it was set.
    auto also = [&](const std::string& opt, const std::string& value) {
      auto it = j.where.find(opt);
      return fmt::format("option '{}' = {} ({})", opt, vp::quoted(value),
                         it == j.where.end() ? std::string("default") : it->second.at);
    };
    // The option that made the job buffered (direct=0, buffered=1 or fio's default) and where.
    const char* direct_opt = j.where.count("buffered") && !j.where.count("direct") ? "buffered" : "direct";
    const std::string buffered_by = also(direct_opt, direct_opt == std::string("direct") ? "0" : "1");
    uint64_t capacity = target.capacity_bytes;
    if (!target.devices.empty()) {  // the device the job opens, as a path on Linux
      auto d = std::find_if(target.devices.begin(), target.devices.end(), [&](const JobTarget::Device& dev) {
        return j.filename.empty() ? &dev == &target.devices.front() : dev.path == j.filename;
      });
      if (d == target.devices.end()) {
        std::string known;
        for (const auto& dev : target.devices) known += (known.empty() ? "" : ", ") + dev.path;
        throw bad("filename", fmt::format("{}: no such block device on this platform (it has {})",
                                          vp::quoted(j.filename), known));
      }
      capacity = d->capacity_bytes;
      if (j.buffered_io() && d != target.devices.begin())
        throw bad(direct_opt, fmt::format("buffered I/O goes through the page cache, which is modeled on {} only, not "
                                        "{}{}",
                                        target.devices.front().path, also("filename", j.filename), j.direct_hint()));
    }
    // The option that set the job's sizes, for the messages.
    const char* bs_opt = !j.bssplit.empty() ? "bssplit" : j.where.count("bsrange") ? "bsrange" : "bs";
    if (j.max_bs() > capacity)
      throw bad(bs_opt, fmt::format("{} bytes is larger than the device's {} bytes", j.max_bs(), capacity));
    std::vector<uint64_t> sizes{j.bs, j.max_bs()};
    for (const auto& b : j.bssplit) sizes.push_back(b.bytes);
    for (uint64_t b : sizes)
      if (b % lba)
        throw bad(bs_opt, fmt::format("{} is not a multiple of the LBA size ({})", b, target.lba_size_setting));
    if (j.blockalign % lba)
      throw bad("blockalign", fmt::format("{} is not a multiple of the LBA size ({})", j.blockalign,
                                          target.lba_size_setting));
    if (j.rw_skip % int64_t(lba))
      throw bad("rw", fmt::format("skips {} bytes after each I/O, not a multiple of the LBA size ({})", j.rw_skip,
                                  target.lba_size_setting));
    const bool md = j.filename.rfind("/dev/md", 0) == 0;
    const bool syncs = j.sync_every() || j.end_fsync || j.sync;
    if (syncs && md)
      throw bad(j.sync ? "sync" : j.end_fsync ? "end_fsync" : j.fsync ? "fsync" : "fdatasync",
                fmt::format("md RAID passes no Flush or FUA to its members in this model ({})",
                            also("filename", j.filename)));
    if (syncs && !target.interrupt_queues)
      throw bad(j.sync ? "sync" : j.end_fsync ? "end_fsync" : j.fsync ? "fsync" : "fdatasync",
                fmt::format("an fsync's Flush completes by interrupt, and {} polls every queue (use interrupt, "
                            "select_isr or dedcore)",
                            target.completion_setting));
    if (j.has_trims()) {
      if (md)
        throw bad("rw", fmt::format("md RAID passes no discards to its members in this model ({})",
                                    also("filename", j.filename)));
      if (j.verify)
        throw bad("verify", fmt::format("checks the blocks the job wrote, and the verifier does not follow trims ({})",
                                        also("rw", j.rw_name())));
      if (!target.interrupt_queues)
        throw bad("rw", fmt::format("a trim (BLKDISCARD) completes by interrupt, and {} polls every queue (use "
                                    "interrupt, select_isr or dedcore)",
                                    target.completion_setting));
      if (j.online) throw bad("rw", "an online job's requests read and write; it issues no trims");
    }
    // An I/O beyond the controller's largest transfer (MDTS) is split by blk-mq.
    uint64_t off = j.start_offset(capacity);
    uint64_t size = j.size ? j.size : static_cast<uint64_t>(double(capacity) * j.size_percent / 100.0);
    if (off + j.max_bs() > capacity) throw bad("offset", fmt::format("{} is beyond the device's {} bytes", off, capacity));
    FioJob last = j;
    last.clone = j.numjobs - 1;
    if (uint64_t o = last.start_offset(capacity); o + j.bs > capacity)
      throw bad("offset_increment", fmt::format("clone {} would start at {}, beyond the device's {} bytes",
                                                last.clone, o, capacity));
    if (off + size > capacity)
      throw bad("size", fmt::format("offset {} + size {} exceeds the device's {} bytes", off, size, capacity));
    if (j.size && j.read_iolog.empty() && j.size % j.bs)  // fio rounds the region down to whole blocks, and says so
      needs.notes.push_back(fmt::format("{}: not a multiple of bs = {}: the job uses {} bytes, as fio does", j.at("size"),
                                  j.bs, j.size / j.bs * j.bs));
    if (!j.random_distribution.is_random()) {
      if (!j.read_iolog.empty() || !j.is_random())  // fio uses it for random offsets only
        needs.notes.push_back(fmt::format("{}: unused: {}", j.at("random_distribution"),
                                          j.read_iolog.empty() ? also("rw", j.rw_name()) + " is sequential"
                                                               : "the job replays a block trace"));
      // fio stops a job whose zoned_abs zones reach past its region ("sizes
      // exceed file size"); here that is found before the run.
      else if (uint64_t abs = j.random_distribution.zoned_abs_bytes(); abs / j.bs > size / j.bs)
        throw bad("random_distribution",
                  fmt::format("the zones cover {} bytes ({} blocks of bs = {}), more than the job's region of {} "
                              "bytes ({} blocks; {})",
                              abs, abs / j.bs, j.bs, size, size / j.bs,
                              j.size ? also("size", std::to_string(j.size))
                                     : also("size", fmt::format("{}%", j.size_percent))));
    }
    if (j.rate_poisson && !j.online && j.rated() && (j.rw == RwMode::RandRW || j.rw == RwMode::SeqRW))
      throw bad("rate_process", "poisson spacing is modelled for a single-direction rated job or an online one; a "
                                "mixed job's per-direction rates are linear");
    // A log without a prefix takes the job's name, which must not leave the run folder either.
    for (const auto& [opt, log] : {std::pair{"write_lat_log", &j.lat_log}, {"write_bw_log", &j.bw_log},
                                   {"write_iops_log", &j.iops_log}}) {
      if (!*log || !(*log)->empty()) continue;
      const std::string& n = j.name;
      bool out = n[0] == '/' || n == ".." || n.rfind("../", 0) == 0 || n.find("/../") != std::string::npos ||
                 (n.size() > 2 && n.compare(n.size() - 3, 3, "/..") == 0);
      if (out)
        throw bad(opt, fmt::format("names no file, so the log takes the job's name {}, which leaves the run folder: "
                                   "give the log a name",
                                   vp::quoted(n)));
    }
    if (j.log_issue_time && !(j.lat_log && j.log_offset))  // as fio's add_job says
      throw bad("log_issue_time", fmt::format("needs write_lat_log and log_offset=1, as in fio ({})",
                                              j.lat_log ? also("log_offset", "0") : std::string("no write_lat_log")));
    for (const auto& [opt, value] : j.accepted)  // fio options that cannot change a simulated result
      if (const FioOptionInfo* info = find_fio_option(opt))
        needs.notes.push_back(fmt::format("{}: job {}: option '{}' accepted, not modelled: {}", j.origin,
                                          vp::quoted(j.name), opt, info->why));
    for (unsigned c : j.cpus_allowed)
      if (c >= target.cores)
        throw bad("cpus_allowed", fmt::format("cpu {} does not exist ({})", c, target.cores_setting));
    if (!j.number_ios && !j.runtime_ps && j.time_based && j.read_iolog.empty())
      throw bad("time_based", "needs runtime or number_ios to end");
    if (j.workers && !j.online)
      throw bad("workers", "only an online job (online=1) has worker threads; use numjobs for independent clones");
    if (j.online) {  // the request schedule paces and ends an online job
      if (!j.requests && !j.runtime_ps) throw bad("online", "needs requests or runtime to end");
      if (j.number_ios) throw bad("number_ios", "an online job ends by requests or runtime");
      if (j.thinktime_ps || j.rated())
        throw bad(j.thinktime_ps ? "thinktime" : j.rate_iops ? "rate_iops" : "rate",
                  "not used by an online job (request_rate paces it)");
      for (const char* o : {"ramp_time", "io_size", "loops", "rate_min", "rate_iops_min", "end_fsync", "fsync",
                            "fdatasync", "sync", "iodepth_low", "iodepth_batch_complete_min", "thinktime_blocks"})
        if (j.where.count(o)) throw bad(o, "not modelled for an online job (its request schedule paces and ends it)");
      if (!j.read_iolog.empty()) throw bad("read_iolog", "an online job generates its I/Os");
      if (!j.direct) throw bad(direct_opt, "an online job's I/Os are direct (direct=1), not buffered" + j.direct_hint());
    }
    if (!j.phases.empty()) {
      if (j.online && j.where.count("phases")) throw bad("phases", "not used by an online job (request_rate paces it)");
      if (j.online)
        throw bad("app", fmt::format("brings phases {} (an offline app's bursts), which an online job cannot use "
                                     "(request_rate paces it): add phases=none",
                                     j.phases_text()));
      if (!j.thinktime_insts)
        throw bad("phases", "scales the compute between I/Os, and the job has none (set app= or thinktime_insts)");
    }
    if (j.hipri && j.ioengine != "io_uring" && j.ioengine != "pvsync2")
      throw bad("hipri", fmt::format("is an option of the io_uring and pvsync2 engines, not of {}", also("ioengine", j.ioengine)));
    if (j.buffered_io()) {
      needs.buffered = true;
      if (lba > 4096)
        throw bad(direct_opt, fmt::format("buffered I/O needs an LBA of at most the 4 KiB page ({}){}",
                                        target.lba_size_setting, j.direct_hint()));
      for (uint64_t b : sizes)
        if (b % 4096)
          throw bad(bs_opt, fmt::format("{} is not a multiple of the 4 KiB page, as buffered I/O needs ({}){}", b,
                                        buffered_by, j.direct_hint()));
      if (j.rw_skip % 4096 || j.blockalign % 4096)
        throw bad(j.rw_skip % 4096 ? "rw" : "blockalign",
                  fmt::format("{} bytes, not a multiple of the 4 KiB page, as buffered I/O needs ({}){}",
                              j.rw_skip % 4096 ? fmt::format("skips {}", j.rw_skip) : std::to_string(j.blockalign),
                              buffered_by, j.direct_hint()));
      if (j.offset % 4096)
        throw bad("offset", fmt::format("{} is not a multiple of the 4 KiB page, as buffered I/O needs ({}){}",
                                        j.offset, buffered_by, j.direct_hint()));
      if (!j.read_iolog.empty())
        throw bad("read_iolog", fmt::format("block-trace replay needs direct=1, not {}{}", buffered_by,
                                            j.direct_hint()));
      // The page cache's reads and write-back complete by interrupt, as in
      // Linux; these modes leave no interrupt-driven queue to carry them.
      if (!target.interrupt_queues)
        throw bad(direct_opt, fmt::format("buffered I/O needs interrupt-driven queues ({} polls every queue; use "
                                        "interrupt, select_isr or dedcore){}",
                                        target.completion_setting, j.direct_hint()));
    }
    uint64_t buf = j.max_bs();
    if (!j.read_iolog.empty()) {
      // The same load and fit the runner does, so a bad trace or an I/O
      // outside the region stops the run here, naming the trace line.
      std::vector<TraceRecord> recs;
      try {
        recs = BlockTrace::load(j.read_iolog, j.replay_format).fit(size, static_cast<uint32_t>(lba), j.replay_fit);
      } catch (const TraceError& e) {
        throw bad("read_iolog", e.what());
      }
      buf = 0;
      for (const TraceRecord& r : recs) buf = std::max(buf, r.bytes);
    }
    uint64_t count = uint64_t(j.numjobs) * j.worker_count() * j.depth();
    needs.buffers.push_back({"I/O buffers of job " + vp::quoted(j.name), count, buf});
    uint64_t bufs = count * ((buf + 4095) / 4096 * 4096);
    if (bufs > most) {
      most = bufs;
      needs.largest = fmt::format("job {} ({}) takes {:.1f} GiB for its buffers: {}, {}, {}", vp::quoted(j.name), j.origin,
                            double(bufs) / double(1ull << 30),
                            where_of("numjobs", std::to_string(j.numjobs)), where_of("iodepth", std::to_string(j.depth())),
                            where_of("bs", std::to_string(buf)));
    }
  }
  // A trim bypasses the page cache, and the model does not drop the cached
  // copies of the blocks it discards (Linux's BLKDISCARD truncates them):
  // buffered reads would find stale pages, write-back would undo the trim.
  auto device_of = [&](const FioJob& j) {
    return j.filename.empty() && !target.devices.empty() ? target.devices.front().path : j.filename;
  };
  for (const auto& t : jobs)
    if (t.has_trims())
      for (const auto& b : jobs)
        if (b.buffered_io() && device_of(b) == device_of(t))
          throw ConfigError(fmt::format(
              "{}: trims {} (rw={}), and job {} reads or writes it through the page cache ({}), whose copies of "
              "trimmed blocks the model does not drop: set direct=1 on job {}",
              t.at("rw"), device_of(t), t.rw_name(), vp::quoted(b.name),
              b.where.count("direct") ? "direct=0 at " + b.where.at("direct").at : std::string("direct=0"),
              vp::quoted(b.name)));
  return needs;
}

Workload::Workload(Services& svc, unsigned cores, unsigned llc_cores, uint32_t lba_size, HostMemoryAllocator& memory)
    : per_core_(cores), memory_(memory), lba_size_(lba_size) {
  // The host's (its part of the platform); jobs stay at the top of summary.json.
  svc.stats.section("host", "verify", "verify=1 jobs: blocks read back and checked, mismatches", [this]() -> nlohmann::json {
    if (!verify_) return nullptr;
    uint64_t checked = verify_->blocks_checked(), mismatches = verify_->mismatches();
    for (const auto& v : other_verify_)
      if (v) checked += v->blocks_checked(), mismatches += v->mismatches();
    return {{"blocks_checked", checked}, {"mismatches", mismatches}};
  });
  svc.stats.section("", "jobs", "one entry per fio job: I/Os, IOPS, bandwidth, latency percentiles, the per-stage breakdown", [this] {
    nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
    for (const auto& r : runners_) {
      std::vector<const FioJobRunner*> workers;  // an online job's: the runners sharing its client
      if (r->client())
        for (const auto& w : runners_)
          if (w->client() == r->client()) workers.push_back(w.get());
      jobs.push_back(r->summary(workers));
    }
    return jobs;
  });
  std::vector<FioJob> jobs = jobs_from(svc.cfg);
  std::vector<unsigned> load(cores, 0);
  const WakePlacement caches(cores, llc_cores);
  std::vector<unsigned> domain_load(caches.domains(), 0);
  uint64_t index = 0;
  unsigned group_id = 0;  // fio's reporting groups: new_group and stonewall start one
  for (const auto& j : jobs) {
    if ((j.new_group || j.stonewall) && index) ++group_id;
    if (j.stonewall && !groups_.empty() && !groups_.back().empty()) groups_.emplace_back();
    if (groups_.empty()) groups_.emplace_back();
    for (unsigned k = 0; k < j.numjobs; ++k, ++index) {
      uint64_t seed = j.randseed ? j.randseed + k : Rng::derive(svc.seed, index);
      std::string name = j.numjobs > 1 ? fmt::format("{}.{}", j.name, k) : j.name;
      // An online clone is one server: its workers share worker 0's client.
      std::shared_ptr<OnlineClient> client;
      for (unsigned w = 0; w < j.worker_count(); ++w) {
        FioJob jk = j;
        jk.clone = k;
        // split: each thread its own CPU of the set, wrapping when there are more threads.
        if (j.cpus_split && !j.cpus_allowed.empty())
          jk.cpus_allowed = {j.cpus_allowed[(k * j.worker_count() + w) % j.cpus_allowed.size()]};
        // Fork balancing: the least loaded last-level cache domain, then its
        // least loaded allowed core, lowest index first (deterministic).
        unsigned core = 0;
        uint64_t best = ~uint64_t(0);
        for (unsigned c = 0; c < cores; ++c) {
          bool allowed = jk.cpus_allowed.empty() ||
                         std::find(jk.cpus_allowed.begin(), jk.cpus_allowed.end(), c) != jk.cpus_allowed.end();
          uint64_t key = uint64_t(domain_load[caches.domain(c)]) << 32 | load[c];
          if (allowed && key < best) {
            best = key;
            core = c;
          }
        }
        ++load[core];
        ++domain_load[caches.domain(core)];
        // Worker 0 keeps the clone's seed (and name, with one worker), so
        // workers=1 runs exactly as before; the others pick their own I/Os.
        uint64_t wseed = w ? Rng::derive(seed, 0x776f726b00ull + w) : seed;
        std::string wname = j.workers > 1 ? fmt::format("{}.w{}", name, w) : name;
        runners_.push_back(std::make_unique<FioJobRunner>(jk, wname, core, wseed, client, w));
        runners_.back()->group_id = group_id;
        client = runners_.back()->shared_client();
        groups_.back().push_back(runners_.back().get());
        per_core_[core].push_back(runners_.back().get());
      }
    }
  }
  for (const auto& j : jobs)
    if (j.verify) verify_ = std::make_unique<VerifyTracker>(lba_size);
}

bool Workload::buffered() const {
  for (const auto& r : runners_)
    if (r->buffered()) return true;
  return false;
}

VerifyTracker* Workload::verify_of(unsigned dev) {
  if (!verify_ || dev == 0) return verify_.get();
  if (other_verify_.size() < dev) other_verify_.resize(dev);
  auto& v = other_verify_[dev - 1];
  if (!v) v = std::make_unique<VerifyTracker>(lba_size_);
  return v.get();
}

void Workload::start_group(size_t g, BlockDevices& devs) {
  group_ = g;
  for (FioJobRunner* r : groups_[g]) {
    const int dev = devs.find(r->spec().filename);
    r->start(now_ps(), devs, memory_, verify_of(static_cast<unsigned>(std::max(0, dev))));
  }
  Calendar::get().notify(group_ev_);
}

void Workload::begin(BlockDevices& devs) {
  if (groups_.empty())
    finished_ = true;  // nothing to run (a test driving the device itself)
  else
    start_group(0, devs);
}

void Workload::job_progress(BlockDevices& devs) {
  if (finished_ || groups_.empty()) return;
  // exitall: the first such job to end stops every other job of its group.
  for (FioJobRunner* r : groups_[group_])
    if (r->done() && r->spec().exitall && !exiting_) {
      exiting_ = true;
      for (FioJobRunner* o : groups_[group_]) o->stop();
    }
  for (FioJobRunner* r : groups_[group_])
    if (!r->done()) return;
  if (group_ + 1 < groups_.size()) {  // exitall ends its own group only (fio's exit_what=group)
    exiting_ = false;
    start_group(group_ + 1, devs);
    return;
  }
  finished_ = true;
  Calendar::get().pause();  // the platform decides whether time goes on (an idle drive until a power loss)
}

}  // namespace vp::host
