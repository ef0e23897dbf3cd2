#pragma once
// The server platform's host (cores, page cache, blk-mq, NVMe driver) and
// NVMe controller, wired as ServerTop wires them, in front of firmware the
// test gives (ServerTop's own is fixed: ssd::Firmware, without a volatile
// write cache). For host behaviour that depends on what the firmware
// reports, such as the fsync Flush with Identify VWC = 1.
#include <memory>
#include <systemc>
#include <vector>

#include "tests/TestSupport.hpp"
#include "vp/host/BlkMqQueue.hpp"
#include "vp/host/HostBus.hpp"
#include "vp/host/HostCore.hpp"
#include "vp/host/HostDram.hpp"
#include "vp/host/InterruptController.hpp"
#include "vp/host/NvmeDriver.hpp"
#include "vp/host/PageCache.hpp"
#include "vp/host/Workload.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/ssd/NvmeController.hpp"

namespace vp::test {

class HostOnFirmwareRig : public sc_core::sc_module {
 public:
  HostOnFirmwareRig(sc_core::sc_module_name name, Services& svc, ssd::IFirmware& fw)
      : sc_module(name),
        dram("dram", svc),
        intc("intc", svc),
        bus("bus"),
        driver("driver", svc, cores(svc), host::HostBus::kPcieConfigBase, host::HostBus::kPcieMmioBase),
        blkmq(svc.cfg, svc.stats, driver, cores(svc), cores(svc)),
        pagecache(svc),
        workload(svc, cores(svc)),
        link("pcie", svc),
        nvme("nvme", svc) {
    driver.bus.bind(bus.in);
    driver.watch_memory(dram.written());
    link.up_out.bind(bus.in);
    bus.out.bind(dram.socket);
    bus.map(0, host::HostBus::kDramBase, dram.size(), "dram");
    bus.out.bind(intc.socket);
    bus.map(1, host::InterruptController::kBase, host::InterruptController::kSize, "msi");
    bus.out.bind(link.down_in);
    bus.map(2, host::HostBus::kPcieMmioBase, nvme::BAR0_SIZE, "nvme bar0");
    bus.out.bind(link.cfg_in);
    bus.map(3, host::HostBus::kPcieConfigBase, pcie::PciConfigSpace::kSize, "nvme config space");
    link.down_out.bind(nvme.bar0);
    link.cfg_out.bind(nvme.config);
    nvme.set_intx_address(host::InterruptController::intx_address());
    nvme.dma.bind(link.up_in);
    nvme.fw.bind(fw);
    for (unsigned c = 0; c < cores(svc); ++c) {
      cores_.push_back(std::make_unique<host::HostCore>(fmt::format("core{}", c).c_str(), svc, c, driver, blkmq,
                                                        workload));
      intc.cpu.bind(cores_.back()->irq);
      peers_.push_back(cores_.back().get());
    }
    for (auto& c : cores_) {
      c->set_peers(&peers_);
      c->set_page_cache(&pagecache);
    }
    pagecache.kick = [this] { cores_[0]->kick(); };
  }

  host::HostDram dram;
  host::InterruptController intc;
  host::HostBus bus;
  host::NvmeDriver driver;
  host::BlkMqQueue blkmq;
  host::PageCache pagecache;
  host::Workload workload;
  pcie::PcieLink link;
  ssd::NvmeController nvme;

 private:
  static unsigned cores(const Services& svc) { return static_cast<unsigned>(svc.cfg.get_int("host.cores")); }
  std::vector<std::unique_ptr<host::HostCore>> cores_;
  std::vector<host::HostCore*> peers_;
};

}  // namespace vp::test
