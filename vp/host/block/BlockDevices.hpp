// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The block devices the host's jobs open by path, as Linux names them: the
// k-th NVMe drive the driver probes is /dev/nvme<k>n1 (its driver, its
// blk-mq queue and the record of its commands), and a software RAID over
// them is /dev/md0. A job with no filename uses /dev/nvme0n1. Cores route
// an I/O by its device (IoRequest::dev, the index here); the page cache
// sits on /dev/nvme0n1.
#include <memory>
#include <string>
#include <vector>

#include "vp/core/RequestRecord.hpp"
#include "vp/host/block/BlkMqQueue.hpp"
#include "vp/host/block/HostBlockDriver.hpp"
#include "vp/host/block/MdRaid.hpp"

namespace vp::host {

class BlockDevices {
 public:
  struct Nvme {
    std::string path;
    HostBlockDriver* driver;
    BlkMqQueue* blk;
    RequestTracker* tracker;
  };
  static std::string nvme_path(unsigned k);
  // The paths a platform with `drives` NVMe drives (and an array when `md`) offers, in index order.
  static std::vector<std::string> paths(unsigned drives, bool md);

  // The next NVMe namespace (/dev/nvme<k>n1); returns its index. `blk`:
  // its blk-mq queue (none on vp-drive, whose host submits to the driver).
  unsigned add(HostBlockDriver& driver, BlkMqQueue* blk, RequestTracker& tracker);
  // The array over the NVMe devices so far (/dev/md0); returns its index.
  // `memory`: where its stripe cache comes from (RAID-5).
  unsigned add_md(const ScopedConfig& cfg, const StatGroup& stats, HostMemoryAllocator& memory);

  size_t size() const { return nvme_.size() + (md_ ? 1 : 0); }
  size_t nvme_count() const { return nvme_.size(); }
  // The index of the device at `path` ("" is /dev/nvme0n1), -1 when none.
  int find(const std::string& path) const;
  const std::string& path(unsigned d) const { return is_md(d) ? md_path_ : nvme_.at(d).path; }
  bool is_md(unsigned d) const { return d >= nvme_.size(); }
  Nvme& nvme(unsigned d) { return nvme_[d]; }
  const Nvme& nvme(unsigned d) const { return nvme_[d]; }
  MdRaid& md() { return *md_; }
  bool has_md() const { return md_ != nullptr; }
  // The NVMe device an I/O on `d` reaches first (an array's first member):
  // whose driver says whether there are poll queues.
  const Nvme& first_of(unsigned d) const { return is_md(d) ? nvme_[md_->members().front()] : nvme_[d]; }

  // Every driver has brought its device up; the first one still coming up.
  bool ready() const;
  HostBlockDriver& not_ready();
  // What a job on device `d` sees (size, block, write cache), once ready.
  ControllerInfo info(unsigned d) const;
  // Host memory as the devices' DMA reaches it.
  uint8_t* host_ptr(uint64_t addr) { return nvme_.front().driver->host_ptr(addr); }

  // Plugs on the queues an I/O on `d` reaches (every member of an array).
  void start_plug(unsigned d, unsigned core);
  void finish_plug(unsigned d, unsigned core, Tick now);
  // A queue with a hardware-queue run queued on `core`, nullptr when none.
  BlkMqQueue* run_pending(unsigned core);

 private:
  std::vector<Nvme> nvme_;
  std::unique_ptr<MdRaid> md_;
  std::string md_path_ = MdRaid::kPath;
};

}  // namespace vp::host
