// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host's NVMe driver. It finds the function in PCI configuration space
// as Linux's PCI core and nvme_pci_enable do (class 01:08:02, BAR0 sized and
// assigned, memory decoding and bus mastering on) and picks the interrupt
// the way pci_alloc_irq_vectors does: MSI-X if the function has the
// capability, else MSI, else the INTx pin. Then it brings the controller up through its
// registers and admin queue in the order Linux's nvme driver does (disable, admin queue
// registers, enable, wait for CSTS.RDY, Identify controller, Set Features
// number of queues, Identify namespaces, then per core: MSI-X vector, Create
// I/O CQ, Create I/O SQ), then gives every core one I/O queue pair. Commands
// use PRP1/PRP2 and PRP lists above two pages; completions are reaped in the
// interrupt handler of the queue's vector.
// MSI-X gives every queue its own vector, steered to the queue's core, or
// with host.nvme.irq_affinity a CPU list, to those cores round robin in queue
// order (the admin vector stays on core 0). MSI has one message address, so
// all its vectors go to one core (core 0, or the first listed), and with fewer
// vectors than queues (INTx: one) queues share them round robin; a shared
// handler reaps every CQ on its vector, as Linux's shared IRQ handlers each
// check their own queue. Unlike Linux, which then cuts the I/O queues down
// to the vectors it got, every core keeps its own queue pair.
// With host.nvme.dual_sq on (FlashShare, OSDI'18 section 3.3, as the guest
// patch 0007-nvme-pci-dual-sq does it) and a controller offering vendor
// specific arbitration (CAP.AMS bit 18), the controller is enabled with
// CC.AMS = 111b and queue q (1..N) has two SQs on CQ q: SQ q, QPRIO medium
// (throughput), and SQ N+q, QPRIO high (latency-critical), which takes the
// requests with a non-zero workload attribute. Each SQ has its own memory,
// tail, doorbell and command ids; the CQ handler finds the request by the
// completion's SQ id and command id.
// Completion by polling (host.nvme.completion, FlashShare OSDI'18 section
// 3.4): in poll, hybrid and dedcore modes every I/O CQ is created with
// interrupts disabled (IEN=0) and the cores reap them with poll(); in
// select_isr mode, and in interrupt mode with host.nvme.poll_queues on, each
// core gets a second queue pair whose CQ has no interrupts (a poll queue, as
// Linux's nvme.poll_queues) for the requests marked `polled`, and keeps its
// interrupt-driven pair for the rest.
// The controller's volatile write cache (Identify Controller VWC bit 0) is
// read at bring-up: with one, the page cache ends an fsync with an NVMe
// Flush (IoRequest::flush: opcode 00h, namespace 1, no data), as Linux's
// REQ_PREFLUSH becomes; without one, Linux sends none and neither does it.
#include <deque>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/host/driver/DeviceWrites.hpp"
#include "vp/host/block/HostBlockDriver.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/mm/HostMemoryMap.hpp"
#include "vp/host/driver/InterruptRouting.hpp"
#include "vp/host/block/IoRequest.hpp"
#include "vp/nvme/NvmeSpec.hpp"

namespace vp::host {

class NvmeDriver : public sc_core::sc_module, public HostBlockDriver, public IrqHandler {
 public:
  tlm_utils::simple_initiator_socket<NvmeDriver> bus;  // the CPU complex's port to the host bus

  static constexpr const char* kScope = "host.nvme";
  static void declare_params(const ParamScope& p);
  // `irqs`: the host's vector table, where the driver takes its vectors;
  // `memory`: the host memory its queues and PRP lists come from; `scope`:
  // its keys, `stat_scope` its statistics (the scope too when empty; every
  // controller's driver reads host.nvme, controller k counts in host.nvme<k>).
  NvmeDriver(sc_core::sc_module_name name, Services& svc, InterruptRouting& irqs, HostMemoryAllocator& memory,
             unsigned cores, uint64_t config, uint64_t bar0, const std::string& scope = kScope,
             const std::string& stat_scope = "");
  // Takes from `memory` everything a driver with `cfg` may allocate: queues,
  // the identify buffer and a PRP list page pair per command id of every SQ
  // (the configuration check runs it on a dry allocator).
  static void reserve_memory(const ScopedConfig& cfg, unsigned cores, HostMemoryAllocator& memory);

  uint8_t* host_ptr(uint64_t addr) override {
    land_due();
    return addr < HostMemoryMap::kHighBase ? dram_ + addr : dram_high_ + (addr - HostMemoryMap::kHighBase);
  }
  // Every device write due by now is in host memory (before the host reads
  // what a completion told it of).
  void land_due() const {
    if (writes_) writes_->land_due();
  }

  bool ready() const override { return ready_; }
  const Event& ready_event() const override { return ready_ev_; }
  const ControllerInfo& info() const override { return info_; }

  // Puts `r` in core `core`'s SQ and rings the doorbell, or holds it until a
  // command id frees up. The request's DriverQueue stage ends when it is in the SQ.
  // I/Os chained behind `r` (next_in_cmd, blk-mq merging) ride in the same
  // command: one PRP segment each, and each completes with it.
  void submit(IoRequest& r, unsigned core);
  // blk-mq's view: hardware queue k is core k's queue pair.
  uint32_t max_transfer() const override { return info_.max_transfer; }
  uint32_t queue_tags() const override { return io_depth_ - 1; }  // an SQ of N entries holds N - 1
  void issue(IoRequest& head, unsigned hwq) override { submit(head, hwq); }
  // Interrupt handler body for `vector`: reaps the CQ, rings its head
  // doorbell, refills the SQ from held requests. Completed I/O requests are
  // appended to `done`.
  void handle_irq(uint32_t vector, std::vector<IoRequest*>& done) override;

  enum class IrqMode { MsiX, Msi, Intx };
  IrqMode irq_mode() const { return irq_mode_; }
  uint32_t irq_vectors() const { return irq_vectors_; }  // distinct vectors in use
  // The vector queue `qid` (0: admin) completes on.
  uint32_t vector_of(uint16_t qid) const { return qid % irq_vectors_; }
  // The core taking the interrupts of core k's I/O queue (host.nvme.irq_affinity;
  // with MSI or INTx the one core all of them go to).
  unsigned irq_core(unsigned k) const;
  // host.nvme.irq_affinity as a list of cores (empty: `queue`).
  static std::vector<unsigned> irq_cpus_from(const ScopedConfig& cfg);
  // Whether the two SQs per queue are in use (known once ready()).
  bool dual_sq() const { return dual_; }
  // The I/O queue pair (blk-mq hardware queue) submission queue `sqid` belongs
  // to: SQ q, and with dual SQs also SQ N+q, are queue q-1's.
  unsigned hw_queue_of(uint16_t sqid) const override { return (sqid - 1u) % static_cast<unsigned>(io_.size()); }
  // SQs a platform must track: 1 + N, or 1 + 2N with host.nvme.dual_sq on.
  static unsigned sq_ids(const ScopedConfig& cfg, unsigned cores);

  // How I/O completions reach the host (host.nvme.completion).
  enum class Completion { Interrupt, Poll, Hybrid, SelectIsr, DedCore, Xler };
  static Completion completion_from(const ScopedConfig& cfg);
  Completion completion() const { return mode_; }
  // Whether each core has a separate poll queue pair for `polled` requests.
  static bool separate_poll_queues(const ScopedConfig& cfg);
  bool has_poll_queues() const override { return !pollq_.empty(); }
  // Device writes landing in host memory: seen at every CQ read, and, for
  // a polling core, notified as they land (memory_written) so that it need
  // not re-read the CQ every cycle. The platform must give it when any CQ
  // is polled.
  void watch_memory(DeviceWrites& writes) { writes_ = &writes; }
  const Event& memory_written() const override { return writes_->notify_landings(); }
  // Core `core`'s polled CQ (none: interrupt mode without poll queues):
  // whether its head entry is new (a look, nothing consumed), commands
  // outstanding on it (in the SQ or held), and reaping it as handle_irq does.
  bool poll_ready(unsigned core) const override;
  unsigned polled_in_flight(unsigned core) const;
  void poll(unsigned core, std::vector<IoRequest*>& done) override;

  // A driver stacked on this one that owns I/O queue pairs of its own (the
  // I/O-stack accelerator's, host.nvme.completion = xler): its pairs are
  // counted in Set Features, and it brings them up from this driver's
  // bring-up thread (admin() free to use) with SQ ids from `first_sq` and
  // CQ ids from `first_cq`, one pair per core, before ready().
  struct Stacked {
    virtual ~Stacked() = default;
    virtual void bring_up(NvmeDriver& nvme, uint16_t first_sq, uint16_t first_cq) = 0;
  };
  void stack(Stacked& s) { stacked_ = &s; }
  unsigned cores() const { return cores_; }
  // Bus addresses of queue `qid`'s doorbells, for a device ringing them peer to peer.
  uint64_t sq_doorbell_address(uint16_t qid) const { return bar0_ + nvme::sq_tail_doorbell(qid, dstrd_); }
  uint64_t cq_doorbell_address(uint16_t qid) const { return bar0_ + nvme::cq_head_doorbell(qid, dstrd_); }

  // Commands built by hand, for tests and tools (call from a SystemC
  // thread; they wait for the completion). The command id is filled in.
  nvme::Cqe admin(nvme::Sqe cmd);
  nvme::Cqe io_raw(unsigned core, const nvme::Sqe& cmd);
  uint64_t mmio_read(uint32_t off, unsigned len);
  void mmio_write(uint32_t off, uint64_t v, unsigned len);
  uint32_t config_read(uint32_t off, unsigned len);
  void config_write(uint32_t off, uint32_t v, unsigned len);

 private:
  struct SubQueue {
    uint16_t qid = 0;
    uint64_t addr = 0;
    uint32_t size = 0, tail = 0;
    std::vector<uint16_t> free_cids;  // unique per SQ: the CQE names the SQ
    std::vector<IoRequest*> by_cid;
    std::vector<uint64_t> prp_lists;  // two pages per command id
    std::deque<IoRequest*> held;
    Counter* commands = nullptr;  // its class's counter
  };
  // A CQ and the SQs completing on it: [0] the normal SQ (qid = CQ id),
  // [1] the latency-critical SQ with host.nvme.dual_sq.
  struct QueuePair {
    uint16_t qid = 0;
    uint64_t cq = 0;
    uint32_t size = 0, cq_head = 0;
    bool phase = true;
    bool polled = false;  // created with IEN=0: reaped by poll(), never by an interrupt handler
    std::vector<SubQueue> sqs;
  };
  const QueuePair* polled_queue(unsigned core) const;
  void create_cq(QueuePair& q, uint32_t vector);
  void bring_up();
  // bring_up's steps, in order.
  void enable_controller();
  void wait_ready(bool ready);  // CSTS.RDY reads `ready`, within CAP.TO
  void identify_controller(uint64_t id_buf);
  uint32_t set_queue_count(uint32_t npoll, uint32_t nstacked);
  void set_irq_coalescing();
  void identify_namespace(uint64_t id_buf);
  void create_io_queues();
  void create_poll_queues(uint32_t nsq, uint32_t npoll);
  void check_status(const nvme::Cqe& c, const char* what);
  void pci_enable();
  void set_msix(uint32_t vector, unsigned cpu);
  void route_vector(uint32_t vector, unsigned cpu);
  void reap(QueuePair& q, std::vector<IoRequest*>& done);
  void setup_sq(SubQueue& s, uint16_t qid, Counter& commands);
  void place(SubQueue& s, IoRequest& r);
  void start_of_simulation() override;
  void write_sqe(SubQueue& q, IoRequest& r, uint16_t cid);
  uint64_t build_prps(SubQueue& q, uint16_t cid, const IoRequest& head);
  // The command id's two PRP-list pages (allocated on first use).
  uint64_t cid_pages(SubQueue& q, uint16_t cid);
  void transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* p, unsigned len, bool wait_for_it);
  [[noreturn]] void fail(const std::string& what);

  Services& svc_;
  ScopedConfig cfg_;
  unsigned cores_;
  uint64_t config_, bar0_;
  uint32_t msix_table_ = 0;  // BAR0 offset of the MSI-X table, from its capability
  IrqMode irq_mode_ = IrqMode::MsiX;
  uint32_t irq_vectors_ = 1;
  InterruptRouting& irqs_;
  uint32_t irq_base_ = 0;  // the host vector of this function's vector 0
  uint32_t io_depth_, admin_depth_;
  Tick poll_;
  uint32_t dstrd_ = 0;
  bool dual_wanted_, dual_ = false;
  Completion mode_;
  bool all_polled_, poll_queues_wanted_;
  std::vector<unsigned> irq_cpus_;  // host.nvme.irq_affinity's cores; empty: each queue's own core
  DeviceWrites* writes_ = nullptr;
  Stacked* stacked_ = nullptr;
  uint8_t *dram_ = nullptr, *dram_high_ = nullptr;  // DMI to DRAM below the PCI hole and above 4 GiB
  bool ready_ = false;
  Event ready_ev_, admin_ev_, raw_ev_;
  uint16_t admin_cid_ = 0;
  ControllerInfo info_;
  QueuePair admin_;
  std::vector<QueuePair> io_;  // io_[core]
  std::vector<QueuePair> pollq_;  // pollq_[core]: the poll queue pairs, when separate
  nvme::Cqe admin_cqe_{};
  bool admin_done_ = false;
  tlm::tlm_generic_payload gp_;
  std::vector<uint64_t> pages_;  // scratch: PRP entries after PRP1
  Counter &doorbells_, &commands_, &normal_sq_commands_, &high_sq_commands_, &flushes_;
  HostMemoryAllocator& memory_;
  // From memory_; a host too small fails the run naming host.dram.size.
  uint64_t alloc(const char* what, uint64_t bytes);
};

}  // namespace vp::host
