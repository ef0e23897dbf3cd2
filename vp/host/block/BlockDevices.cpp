// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/block/BlockDevices.hpp"

#include <fmt/format.h>

namespace vp::host {

std::string BlockDevices::nvme_path(unsigned k) { return fmt::format("/dev/nvme{}n1", k); }

std::vector<std::string> BlockDevices::paths(unsigned drives, bool md) {
  std::vector<std::string> p;
  for (unsigned k = 0; k < drives; ++k) p.push_back(nvme_path(k));
  if (md) p.push_back(MdRaid::kPath);
  return p;
}

unsigned BlockDevices::add(HostBlockDriver& driver, BlkMqQueue* blk, RequestTracker& tracker) {
  nvme_.push_back({nvme_path(static_cast<unsigned>(nvme_.size())), &driver, blk, &tracker});
  return static_cast<unsigned>(nvme_.size() - 1);
}

unsigned BlockDevices::add_md(const ScopedConfig& cfg, const StatGroup& stats, HostMemoryAllocator& memory) {
  std::vector<unsigned> members;
  for (unsigned k = 0; k < nvme_.size(); ++k) members.push_back(k);
  md_ = std::make_unique<MdRaid>(cfg, stats, std::move(members), memory,
                                 [this](uint64_t addr) { return host_ptr(addr); });
  return static_cast<unsigned>(nvme_.size());
}

int BlockDevices::find(const std::string& path) const {
  if (path.empty()) return nvme_.empty() ? -1 : 0;
  for (unsigned d = 0; d < size(); ++d)
    if (this->path(d) == path) return static_cast<int>(d);
  return -1;
}

bool BlockDevices::ready() const {
  for (const Nvme& n : nvme_)
    if (!n.driver->ready()) return false;
  return true;
}

HostBlockDriver& BlockDevices::not_ready() {
  for (Nvme& n : nvme_)
    if (!n.driver->ready()) return *n.driver;
  return *nvme_.front().driver;
}

ControllerInfo BlockDevices::info(unsigned d) const {
  if (!is_md(d)) return nvme_[d].driver->info();
  std::vector<const ControllerInfo*> m;
  for (unsigned k : md_->members()) m.push_back(&nvme_[k].driver->info());
  return md_->info(m);
}

void BlockDevices::start_plug(unsigned d, unsigned core) {
  if (!is_md(d)) return nvme_[d].blk->start_plug(core);
  for (unsigned k : md_->members()) nvme_[k].blk->start_plug(core);
}

void BlockDevices::finish_plug(unsigned d, unsigned core, Tick now) {
  if (!is_md(d)) return nvme_[d].blk->finish_plug(core, now);
  for (unsigned k : md_->members()) nvme_[k].blk->finish_plug(core, now);
}

BlkMqQueue* BlockDevices::run_pending(unsigned core) {
  for (Nvme& n : nvme_)
    if (n.blk && n.blk->run_pending(core)) return n.blk;
  return nullptr;
}

}  // namespace vp::host
