// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The server platform: host cores running fio jobs over the modeled NVMe
// driver, host DRAM and interrupt controller on the host bus, a PCIe link,
// and the SSD (NVMe controller -> firmware -> FTL -> flash array).
//
//   HostCore* --(irq)-- InterruptController
//   HostCore* -> BlkMqQueue -> NvmeDriver (hardware queue k = I/O queue pair k)
//   HostCore* -> PageCache (buffered jobs; its reads and write-backs go back through a core to BlkMqQueue)
//   NvmeDriver -> HostBus -> HostDram | InterruptController | PcieLink.down
//   PcieLink.down -> Drive (config, bar0)      Drive.dma -> PcieLink.up -> HostBus
//   inside the Drive: NvmeController -> Firmware -> CacheLayer -> PageMappingFtl -> FlashArray, SsdDram
//   with accel.enabled: HostBus -> PcieLink(accel.pcie).down -> IoAccelerator (config, bar0: registers, queue
//   windows)   IoAccelerator.dma -> PcieLink.up -> HostBus (segment lists, SSD doorbells peer to peer);
//   xler: HostCore* -> AcceleratorDriver (above blk-mq) -> HostBus
//   platform.drives: drive k > 0 on root port bus 0 device k with its own link (<drive>.pcie), NvmeDriver
//   (host.nvme<k>) and BlkMqQueue (host.blkmq<k>); the cores route an I/O by its block device (/dev/nvme<k>n1,
//   /dev/md0 over all of them with host.md.level), the accelerator's port comes after the drives'
#include <memory>
#include <systemc>
#include <vector>

#include "vp/platform/DriveReport.hpp"
#include "vp/platform/NvmeHost.hpp"
#include "vp/accel/IoAccelerator.hpp"
#include "vp/core/Services.hpp"
#include "vp/host/driver/AcceleratorDriver.hpp"
#include "vp/host/block/BlkMqQueue.hpp"
#include "vp/host/block/BlockDevices.hpp"
#include "vp/host/hw/HostBus.hpp"
#include "vp/host/sched/HostCore.hpp"
#include "vp/host/hw/HostDram.hpp"
#include "vp/host/hw/InterruptController.hpp"
#include "vp/host/driver/NvmeDriver.hpp"
#include "vp/host/mm/PageCache.hpp"
#include "vp/host/workload/Workload.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/pcie/PcieSwitch.hpp"
#include "vp/ssd/Drive.hpp"
#include "vp/ssd/SsdImage.hpp"

namespace vp::platform {

class ServerTop : public NvmeHost {
 public:
  // Every parameter of every component on this platform, plus the run's
  // own, with a scope for each drive of `drives` (and for ssd, the drives'
  // common keys, when no drive has that name).
  static void declare_params(ParamRegistry& reg, const std::vector<std::string>& drives = {"ssd"});
  // The jobs against the platform they run on (device capacity and LBA,
  // cores, completion mode) and the host memory they, the driver and the
  // page cache take; throws ConfigError naming the job option or the keys.
  // Returns notes for the user (what fio would warn about).
  static std::vector<std::string> check_workload(const std::vector<host::FioJob>& jobs, const Config& cfg);
  // `firmware`: what the drive's controller talks to instead of its own
  // (ssd::Drive).
  ServerTop(sc_core::sc_module_name name, Services& svc, ssd::IFirmware* firmware = nullptr);

  unsigned cores() const { return static_cast<unsigned>(cores_.size()); }
  host::HostCore& core(unsigned i) { return *cores_.at(i); }
  // Callbacks the components ran on the calendar, and host core wake-ups.
  uint64_t kernel_events() const;
  // Per-core time by category; each row adds up to elapsed_ps (summary.json's "cpu").
  nlohmann::json cpu_summary();

  host::BlkMqQueue blkmq;  // drive 0's
  host::PageCache pagecache;
  host::Workload workload;
  ssd::Drive drive;  // drive 0 (platform.drives' first)
  host::BlockDevices devices;
  // Drive k (0: `drive`) of platform.drives.
  size_t drives() const { return 1 + more_.size(); }
  ssd::Drive& drive_at(size_t k) { return k ? more_.at(k - 1)->drive : drive; }
  pcie::PcieLink& link_at(size_t k) { return k ? more_.at(k - 1)->port.link : link(); }

 private:
  // A drive after the first: its port, the record of its commands, its
  // driver and blk-mq queue on the host, and its summary.
  struct MoreDrive {
    MoreDrive(ServerTop& top, Services& svc, unsigned k, const std::vector<std::string>& drives);
    RequestTracker tracker;
    Services svc;
    PciePort& port;
    host::NvmeDriver driver;
    host::BlkMqQueue blkmq;
    ssd::Drive drive;
    DriveReport report;
  };
  std::vector<std::unique_ptr<MoreDrive>> more_;
  std::unique_ptr<pcie::PcieSwitch> switch_;  // platform.switched's, when any
  void attach_accelerator(Services& svc);
  std::unique_ptr<accel::IoAccelerator> accel_;
  std::unique_ptr<host::AcceleratorDriver> accel_driver_;
  std::vector<std::unique_ptr<host::HostCore>> cores_;
  std::vector<host::HostCore*> peers_;
  DriveReport report_;  // drive 0's "device"
};

}  // namespace vp::platform
