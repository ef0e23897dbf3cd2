// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The NVMe rig (host DRAM, bus, the SSD on its link, a CPU socket) with the
// I/O-stack accelerator on a link of its own: its BAR at kAccelBar, its
// configuration space in the next ECAM slot (bus 0, device 1). The SSD
// reaches the accelerator's queue windows peer to peer through the bus.
#include "tests/ssd/NvmeRig.hpp"
#include "vp/accel/IoAccelerator.hpp"

namespace vp::test {

struct AccelRig : NvmeRig {
  static constexpr uint64_t kAccelBar = host::HostBus::kPcieMmioBase + 0x8000000;
  static constexpr uint64_t kAccelCfg = host::HostMemoryMap::config_address(0, 1, 0);
  pcie::PcieLink alink;
  accel::IoAccelerator accel;

  AccelRig(sc_core::sc_module_name name, Services& s)
      : NvmeRig(name, s), alink("accel_pcie", s, "accel.pcie"), accel("accel", s, alink.timing()) {
    bus.map(alink.down_in, kAccelBar, accel::regs::BAR0_SIZE, "accel bar0");
    bus.map(alink.cfg_in, kAccelCfg, pcie::PciConfigSpace::kSize, "accel config");
    alink.down_out.bind(accel.bar0);
    alink.cfg_out.bind(accel.config);
    accel.dma.bind(alink.up_in);
    alink.up_out.bind(bus.in);
    accel.set_intx_address(host::InterruptController::intx_address());
  }

  uint64_t areg(uint32_t off) { return access(false, kAccelBar + off, 0, 8); }
  void set_areg(uint32_t off, uint64_t v) { access(true, kAccelBar + off, v, 8); }

  // Memory decoding, bus mastering and MSI-X on; vector v to kMsiAddr with data 100 + v.
  void accel_enable() {
    access(true, kAccelCfg + 0x10, static_cast<uint32_t>(kAccelBar) | 4, 4);
    access(true, kAccelCfg + 0x14, 0, 4);
    access(true, kAccelCfg + 0x04, 0x6, 2);
    access(true, kAccelCfg + pcie::PciConfigSpace::kMsixCap + 2, 0x8000, 2);
    for (uint32_t v = 0; v < accel::regs::kMaxQueues; ++v) {
      uint32_t e = 0x2000 + v * 16;
      access(true, kAccelBar + e, kMsiAddr, 8);
      access(true, kAccelBar + e + 8, 100 + v, 4);
      access(true, kAccelBar + e + 12, 0, 4);
    }
    set_areg(accel::regs::LBA_SHIFT, 12);
    set_areg(accel::regs::MAX_TRANSFER, 4096u << 5);  // the quick preset's MDTS 5
    set_areg(accel::regs::NSID, 1);
  }

  // The SSD's I/O queue pair `qid` (no interrupts) in accelerator queue
  // `aq`'s window, `entries` deep, handed to the accelerator.
  void accel_queue(uint16_t qid, uint32_t aq, uint32_t entries) {
    uint64_t win = kAccelBar + accel::regs::queue_window(aq);
    nvme::Sqe c = nvme::Sqe::make(nvme::ADMIN_CREATE_CQ, 0);
    c.prp1 = win + accel::regs::CQ_OFFSET;
    c.cdw10 = qid | ((entries - 1) << 16);
    c.cdw11 = 1;  // physically contiguous, no interrupts: the accelerator sees each entry land
    REQUIRE(admin(c).status() == 0);
    c = nvme::Sqe::make(nvme::ADMIN_CREATE_SQ, 0);
    c.prp1 = win;
    c.cdw10 = qid | ((entries - 1) << 16);
    c.cdw11 = 1 | (uint32_t(qid) << 16);
    REQUIRE(admin(c).status() == 0);
    set_areg(accel::regs::QSEL, aq);
    set_areg(accel::regs::Q_SQ_DOORBELL, kBar + nvme::sq_tail_doorbell(qid, 0));
    set_areg(accel::regs::Q_CQ_DOORBELL, kBar + nvme::cq_head_doorbell(qid, 0));
    set_areg(accel::regs::Q_ENTRIES, entries);
    set_areg(accel::regs::Q_VECTOR, aq);
    set_areg(accel::regs::Q_ENABLE, 1);
  }

  // A bio of `segs` (address, length) at `slba`: its segment list written to
  // host memory, its registers and the go write.
  void bio(bool write, uint64_t slba, const std::vector<std::pair<uint64_t, uint32_t>>& segs, uint32_t tag,
           uint32_t aq = 0) {
    uint64_t list = alloc(segs.size() * 16, 16);
    uint32_t bytes = 0;
    for (size_t i = 0; i < segs.size(); ++i) {
      std::memcpy(mem(list + i * 16), &segs[i].first, 8);
      std::memcpy(mem(list + i * 16 + 8), &segs[i].second, 4);
      bytes += segs[i].second;
    }
    using namespace accel::regs;
    set_areg(BIO_OP, write ? 1 : 0);
    set_areg(BIO_SLBA, slba);
    set_areg(BIO_BYTES, bytes);
    set_areg(BIO_SEGS, list);
    set_areg(BIO_NSEG, segs.size());
    set_areg(BIO_TAG, tag);
    set_areg(BIO_QUEUE, aq);
    set_areg(BIO_GO, 1);
  }

  // The next completed bio (DONE register), waiting up to `limit`; 0 on timeout.
  uint64_t done(Tick limit = 10 * MS) {
    Tick end = now_ps() + limit;
    for (;;) {
      uint64_t v = areg(accel::regs::DONE);
      if (v || now_ps() >= end) return v;
      sleep(1 * US);
    }
  }
  uint64_t stat(const std::string& name) const { return svc.stats.value("accel." + name); }
};

inline void with_accel_rig(const std::function<void(AccelRig&)>& body, const Sets& sets = {},
                           const std::string& vcd = "") {
  run_rig<AccelRig>(sets, [](Services& svc) { return std::make_unique<AccelRig>("rig", svc); }, body, vcd);
}

}  // namespace vp::test
