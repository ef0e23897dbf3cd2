// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A strict host for NVMe protocol tests: no driver and none of its habits.
// The test thread drives configuration space, BAR0 registers and queues in
// host memory itself, as the specification allows a host to; the rig sees
// every read and write the device makes upstream (a PCIe analyzer's view):
// messages to the interrupt range, command fetches, completion entries.
//
//   test thread -> HostBus -> HostDram | interrupt recorder | PcieLink (BAR0, config)
//   NvmeController.dma -> PcieLink.up -> analyzer -> HostBus
#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "../TestSupport.hpp"
#include "platforms/server/ServerTop.hpp"
#include "vp/core/Payload.hpp"

namespace vp::test {

class NvmeRig : public sc_core::sc_module {
 public:
  struct Access {
    Tick at;  // arrival at host memory
    bool write;
    uint64_t addr;
    uint32_t len, data;  // data: the first four bytes
  };
  struct Queue {
    uint16_t qid = 0;
    uint64_t sq = 0, cq = 0;
    uint32_t size = 0, tail = 0, head = 0;
    bool phase = true;
  };

  tlm_utils::simple_initiator_socket<NvmeRig> cpu;
  tlm_utils::simple_target_socket<NvmeRig> analyzer_in, irq;
  tlm_utils::simple_initiator_socket<NvmeRig> analyzer_out;

  Services& svc;
  host::HostDram dram;
  host::HostBus bus;
  pcie::PcieLink link;
  ssd::NvmeController nvme;
  ssd::Firmware fw;
  ssd::PageMappingFtl ftl;
  flash::FlashArray flash;

  std::vector<Access> upstream;    // every device access to host memory, in arrival order
  std::vector<Access> interrupts;  // every write to the interrupt range
  Queue admin_q;

  static constexpr uint64_t kBar = host::HostBus::kPcieMmioBase, kCfg = host::HostBus::kPcieConfigBase;

  // `other_fw`: firmware to put behind the controller instead of the real one.
  NvmeRig(sc_core::sc_module_name name, Services& s, ssd::IFirmware* other_fw = nullptr)
      : sc_module(name),
        cpu("cpu"),
        analyzer_in("analyzer_in"),
        irq("irq"),
        analyzer_out("analyzer_out"),
        svc(s),
        dram("dram", s),
        bus("bus"),
        link("pcie", s, "pcie"),
        nvme("nvme", s, link.timing(), "ssd.nvme", "ssd.pci"),
        fw("fw", s, ssd::PageMappingFtl::shard_map_from(ScopedConfig(s.cfg, ssd::PageMappingFtl::kScope))),
        ftl("ftl", s, flash::FlashArray::geometry_from(ScopedConfig(s.cfg, flash::FlashArray::kScope))),
        flash("flash", s),
        eq_("eq") {
    cpu.bind(bus.in);
    analyzer_out.bind(bus.in);
    link.up_out.bind(analyzer_in);
    bus.map_dram(dram.socket, host::HostMemoryMap(dram.size()));
    bus.map(irq, host::InterruptController::kBase, host::InterruptController::kSize, "interrupts");
    bus.map(link.down_in, kBar, nvme::BAR0_SIZE, "bar0");
    bus.map(link.cfg_in, kCfg, pcie::PciConfigSpace::kSize, "config");
    link.down_out.bind(nvme.bar0);
    link.cfg_out.bind(nvme.config);
    nvme.dma.bind(link.up_in);
    nvme.set_intx_address(host::InterruptController::intx_address());
    if (other_fw)
      nvme.fw.bind(*other_fw);
    else
      nvme.fw.bind(fw.target);
    fw.ftl.bind(ftl.target);
    ftl.flash.bind(flash.target);
    analyzer_in.register_b_transport(this, &NvmeRig::analyze);
    irq.register_b_transport(this, &NvmeRig::record_irq);
  }

  // ---- host memory
  uint8_t* mem(uint64_t addr) { return dram.data() + addr; }
  uint64_t alloc(uint64_t bytes, uint64_t align = 4096) {
    uint64_t a = (brk_ + align - 1) / align * align;
    brk_ = a + bytes;
    std::memset(mem(a), 0, bytes);
    return a;
  }

  // ---- CPU accesses (a read stalls until its completion returns)
  uint64_t access(bool write, uint64_t addr, uint64_t v, unsigned len, bool* ok = nullptr) {
    tlm::tlm_generic_payload gp;
    prepare(gp, write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, reinterpret_cast<uint8_t*>(&v), len);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    cpu->b_transport(gp, d);
    if (ok) *ok = gp.is_response_ok();
    if (!write || (addr >= kCfg && addr < kCfg + 4096)) sc_core::wait(d);
    return v;
  }
  uint64_t reg(uint32_t off, unsigned len = 4) { return access(false, kBar + off, 0, len); }
  void set_reg(uint32_t off, uint64_t v, unsigned len = 4) { access(true, kBar + off, v, len); }
  uint32_t cfg(uint32_t off, unsigned len = 4) { return static_cast<uint32_t>(access(false, kCfg + off, 0, len)); }
  void set_cfg(uint32_t off, uint32_t v, unsigned len = 4) { access(true, kCfg + off, v, len); }
  void sleep(Tick t) { sc_core::wait(to_sc(t)); }

  // ---- PCI: BAR0 at its window, memory decoding and bus mastering; MSI-X
  // enabled (all vectors to `kMsiAddr` with data = vector) unless told otherwise.
  static constexpr uint64_t kMsiAddr = host::InterruptController::kBase;
  void pci_enable(bool msix = true) {
    set_cfg(0x10, static_cast<uint32_t>(kBar) | 4);
    set_cfg(0x14, 0);
    set_cfg(0x04, 0x6, 2);
    if (msix) set_cfg(pcie::PciConfigSpace::kMsixCap + 2, 0x8000, 2);
  }
  void program_vector(uint32_t v, bool masked = false) {
    uint32_t e = nvme::MSIX_TABLE + v * nvme::MSIX_ENTRY_SIZE;
    set_reg(e, kMsiAddr, 8);
    set_reg(e + 8, v);
    set_reg(e + 12, masked ? 1 : 0);
  }

  // ---- controller bring-up: admin queues, CC.EN, wait for RDY (or CFS).
  uint32_t enable(uint32_t ams = nvme::AMS_RR, uint32_t admin_entries = 32) {
    admin_q = Queue{};
    admin_q.size = admin_entries;
    admin_q.sq = alloc(admin_entries * 64);
    admin_q.cq = alloc(admin_entries * 16);
    set_reg(nvme::AQA, ((admin_entries - 1) << 16) | (admin_entries - 1));
    set_reg(nvme::ASQ, admin_q.sq, 8);
    set_reg(nvme::ACQ, admin_q.cq, 8);
    set_reg(nvme::CC, nvme::CC_EN | (ams << 11) | (6u << 16) | (4u << 20));
    return wait_csts([](uint32_t c) { return (c & (nvme::CSTS_RDY | nvme::CSTS_CFS)) != 0; });
  }
  uint32_t wait_csts(const std::function<bool(uint32_t)>& done, Tick limit = 100 * MS) {
    Tick end = now_ps() + limit;
    for (;;) {
      auto c = static_cast<uint32_t>(reg(nvme::CSTS));
      if (done(c) || now_ps() >= end) return c;
      sleep(1 * US);
    }
  }

  // ---- queues
  // Puts a command in the SQ; rings the doorbell unless told not to.
  uint16_t push(Queue& q, nvme::Sqe c, bool ring = true) {
    uint16_t cid = next_cid_++;
    c.cdw0 = (c.cdw0 & 0xFFFF) | (uint32_t(cid) << 16);
    std::memcpy(mem(q.sq + uint64_t(q.tail) * 64), &c, 64);
    q.tail = (q.tail + 1) % q.size;
    if (ring) ring_sq(q);
    return cid;
  }
  void ring_sq(const Queue& q) { set_reg(nvme::sq_tail_doorbell(q.qid, 0), q.tail); }
  bool peek(Queue& q, nvme::Cqe& e) {
    std::memcpy(&e, mem(q.cq + uint64_t(q.head) * 16), 16);
    return e.phase() == q.phase;
  }
  // Waits (up to `limit`) for the next entry of the CQ; consumes it and
  // rings the head doorbell unless told not to. False on timeout.
  bool reap(Queue& q, nvme::Cqe& e, Tick limit = 50 * MS, bool ring = true) {
    Tick end = now_ps() + limit;
    while (!peek(q, e)) {
      if (now_ps() >= end) return false;
      sc_core::wait(to_sc(end - now_ps()), written_);
    }
    if (++q.head == q.size) {
      q.head = 0;
      q.phase = !q.phase;
    }
    if (ring) set_reg(nvme::cq_head_doorbell(q.qid, 0), q.head);
    return true;
  }
  nvme::Cqe admin(const nvme::Sqe& c) {
    push(admin_q, c);
    nvme::Cqe e{};
    REQUIRE(reap(admin_q, e));
    return e;
  }
  // I/O queue pair `qid` with `entries` entries, vector `vector`.
  Queue create_pair(uint16_t qid, uint32_t entries, uint16_t vector, uint32_t qprio = 0, bool ien = true) {
    Queue q;
    q.qid = qid;
    q.size = entries;
    q.sq = alloc(entries * 64);
    q.cq = alloc(entries * 16);
    nvme::Sqe c = nvme::Sqe::make(nvme::ADMIN_CREATE_CQ, 0);
    c.prp1 = q.cq;
    c.cdw10 = qid | ((entries - 1) << 16);
    c.cdw11 = 1 | (ien ? 2 : 0) | (uint32_t(vector) << 16);
    REQUIRE(admin(c).status() == 0);
    c = nvme::Sqe::make(nvme::ADMIN_CREATE_SQ, 0);
    c.prp1 = q.sq;
    c.cdw10 = qid | ((entries - 1) << 16);
    c.cdw11 = 1 | (qprio << 1) | (uint32_t(qid) << 16);
    REQUIRE(admin(c).status() == 0);
    return q;
  }
  static nvme::Sqe io(uint8_t op, uint64_t slba, uint32_t nlb, uint64_t prp1, uint64_t prp2 = 0) {
    nvme::Sqe c = nvme::Sqe::make(op, 0);
    c.nsid = 1;
    c.prp1 = prp1;
    c.prp2 = prp2;
    c.cdw10 = static_cast<uint32_t>(slba);
    c.cdw11 = static_cast<uint32_t>(slba >> 32);
    c.cdw12 = nlb - 1;
    return c;
  }
  // Device reads of `count` SQ entries at a time from queue `q`, in order: which SQ each fetch read served.
  std::vector<uint16_t> fetch_order(const std::vector<Queue>& qs) const {
    std::vector<uint16_t> order;
    for (const auto& a : upstream) {
      if (a.write) continue;
      for (const auto& q : qs)
        if (a.addr >= q.sq && a.addr < q.sq + uint64_t(q.size) * 64)
          for (uint32_t i = 0; i < a.len / 64; ++i) order.push_back(q.qid);
    }
    return order;
  }

 private:
  void analyze(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    analyzer_out->b_transport(gp, delay);
    Access a{now_ps() + delay.value(), gp.is_write(), gp.get_address(), gp.get_data_length(), 0};
    std::memcpy(&a.data, gp.get_data_ptr(), std::min(4u, a.len));
    upstream.push_back(a);
    if (gp.is_write()) eq_.at(a.at, [this] { written_.notify(); });
  }
  void record_irq(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    // The bus hands targets addresses relative to their base.
    Access a{now_ps() + delay.value(), true, gp.get_address() + host::InterruptController::kBase,
             gp.get_data_length(), 0};
    std::memcpy(&a.data, gp.get_data_ptr(), std::min(4u, a.len));
    interrupts.push_back(a);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  EventQueue eq_;
  sc_core::sc_event written_;
  uint64_t brk_ = 1 << 20;
  uint16_t next_cid_ = 0;
};

// Runs `body` in a SystemC thread on a fresh rig (quick preset plus `sets`);
// `make_fw` may build other firmware to put behind the controller.
// The rig is built by `make` once the services exist; runs stop after 20
// simulated seconds. With `vcd` (a path without .vcd), the waveform is written there,
// with its GTKWave save file (`vcd`.gtkw).
template <class Rig>
void run_rig(const Sets& sets, const std::function<std::unique_ptr<Rig>(Services&)>& make,
             const std::function<void(Rig&)>& body, const std::string& vcd = "") {
  Config cfg = model_config("quick", {{"workload.fio", "[global]\n"}}, sets);
  StatRegistry stats;
  Waves waves;
  if (!vcd.empty()) waves.open(vcd);
  RequestTracker tracker;
  Services svc{cfg, stats, waves, tracker, 1};
  std::unique_ptr<Rig> rig = make(svc);
  bool ran = false;
  sc_core::sc_spawn([&] {
    body(*rig);
    ran = true;
    sc_core::sc_stop();
  });
  sc_core::sc_start(sc_core::sc_time(20, sc_core::SC_SEC));
  if (!vcd.empty()) {
    waves.close();
    waves.write_gtkw(vcd + ".gtkw", vcd + ".vcd");
  }
  REQUIRE(ran);
}

inline void with_rig(const std::function<void(NvmeRig&)>& body, const Sets& sets = {},
                     const std::function<ssd::IFirmware*(Services&)>& make_fw = {}) {
  run_rig<NvmeRig>(
      sets,
      [&](Services& svc) { return std::make_unique<NvmeRig>("rig", svc, make_fw ? make_fw(svc) : nullptr); },
      body);
}

// Firmware for controller tests: keeps what the controller decoded from each
// command, completes it 1 us later, reports `status` as its buffer status,
// and has a volatile write cache if asked (recording the host's switches).
class RecordingFirmware : public sc_core::sc_module, public ssd::IFirmware {
 public:
  struct Seen {
    ssd::IoOp op;
    bool fua;
    uint8_t attr;
    bool victim;
    uint32_t victim_pages;
  };
  std::vector<Seen> seen;
  std::vector<bool> switches;
  RecordingFirmware(sc_core::sc_module_name n, uint32_t status, bool cache)
      : sc_module(n), status_(status), cache_(cache), eq_("eq") {}
  void submit(ssd::HostCommand& c) override {
    seen.push_back({c.op, c.fua, c.attr, c.victim, c.victim_pages});
    if (c.op == ssd::IoOp::Read) std::memset(c.data, 0, c.bytes);
    c.result = status_;
    eq_.after(1 * US, [&c] {
      c.client->firmware_issued(c);
      c.client->firmware_done(c);
    });
  }
  uint64_t capacity_bytes() const override { return 64ull << 20; }
  uint32_t mapping_unit() const override { return 4096; }
  ssd::MediaHealth health() const override { return {}; }
  bool volatile_write_cache() const override { return cache_; }
  void set_write_cache(bool on) override { switches.push_back(on); }

 private:
  uint32_t status_;
  bool cache_;
  EventQueue eq_;
};

}  // namespace vp::test
