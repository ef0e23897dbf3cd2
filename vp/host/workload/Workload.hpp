// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The run's workload: fio jobs (from the preset or --job files), expanded by
// numjobs (and an online job's workers), placed on cores (cpus_allowed, else
// the least loaded cache domain's least loaded core) and run in groups
// separated by stonewall. It tells cores
// when a group starts and the platform when everything is done.
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/Event.hpp"
#include "vp/core/Services.hpp"
#include "vp/host/workload/FioJob.hpp"
#include "vp/host/workload/FioJobRunner.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/workload/VerifyTracker.hpp"

namespace vp::host {

class BlockDevices;

// What the platform tells the jobs about where they run (as fio learns the
// device's size from the device). Each *_setting names the setting behind
// the value, for the messages.
struct JobTarget {
  uint64_t capacity_bytes = 0;  // the first device's (a job with no filename uses it)
  // The block devices a job's filename may name, with their sizes (none:
  // only the first, and filename is not looked at).
  struct Device {
    std::string path;
    uint64_t capacity_bytes;
  };
  std::vector<Device> devices;
  uint64_t lba_size = 512;
  std::string lba_size_setting;
  unsigned cores = 1;
  std::string cores_setting;
  bool interrupt_queues = true;  // some queue completes by interrupt (buffered I/O needs one)
  std::string completion_setting;
};

// What checked jobs will take of host memory, for the platform to place.
struct JobNeeds {
  struct Buffers {
    std::string what;
    uint64_t count, bytes;
  };
  std::vector<std::string> notes;  // for the user: what fio would warn about
  bool buffered = false;           // the page cache is needed
  std::vector<Buffers> buffers;    // per job: one buffer per in-flight I/O
  std::string largest;             // the job whose buffers take the most, where its options were set
};

class Workload {
 public:
  static void declare_params(ParamRegistry& reg);
  // Checks jobs against themselves and their target (block size vs LBA size,
  // region vs capacity, cpus vs cores); throws ConfigError naming the job.
  static JobNeeds check(const std::vector<FioJob>& jobs, const JobTarget& target);
  static std::vector<FioJob> jobs_from(const Config& cfg);

  // `llc_cores`: cores per last-level cache domain (0: one domain), which
  // placement fills evenly first, as Linux's fork balancing spreads new
  // threads over sockets; `lba_size`: the device's block, the unit verify=1
  // tracks; `memory`: where the jobs' I/O buffers come from.
  Workload(Services& svc, unsigned cores, unsigned llc_cores, uint32_t lba_size, HostMemoryAllocator& memory);

  const std::vector<FioJobRunner*>& runners_on(unsigned core) const { return per_core_[core]; }
  // Starts the first group (called once the devices are up).
  void begin(BlockDevices& devs);
  // A core reports a completion; may start the next group or end the run.
  void job_progress(BlockDevices& devs);
  const Event& group_started() const { return group_ev_; }
  bool finished() const { return finished_; }
  // Some job does buffered I/O (direct=0): the page cache is needed.
  bool buffered() const;
  const std::vector<std::unique_ptr<FioJobRunner>>& runners() const { return runners_; }
  // verify=1's record of /dev/nvme0n1.
  const VerifyTracker* verify() const { return verify_.get(); }
  VerifyTracker* verify() { return verify_.get(); }
  // verify=1's record of block device `dev` (what a power loss of drive
  // `dev` is judged by); nullptr without verify jobs.
  VerifyTracker* verify_of(unsigned dev);

 private:
  void start_group(size_t g, BlockDevices& devs);
  std::vector<std::vector<FioJobRunner*>> groups_;
  std::vector<std::unique_ptr<FioJobRunner>> runners_;
  std::vector<std::vector<FioJobRunner*>> per_core_;
  HostMemoryAllocator& memory_;
  std::unique_ptr<VerifyTracker> verify_;
  std::vector<std::unique_ptr<VerifyTracker>> other_verify_;  // devices 1..: made when a verify job opens one
  uint32_t lba_size_;
  size_t group_ = 0;
  bool finished_ = false;
  bool exiting_ = false;  // an exitall job has ended
  Event group_ev_;
};

}  // namespace vp::host
