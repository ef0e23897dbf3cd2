// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The kernel driver of FlashShare's I/O-stack accelerator (OSDI'18 sec. 4.3,
// Figures 7b and 10), loaded as an upper layer of blk-mq: with
// host.nvme.completion = xler, a bio with a non-zero workload attribute
// skips blk-mq and the NVMe driver. The CPU writes its segment list
// (bi_io_vec: one entry per page, as Linux pins an O_DIRECT buffer) to host
// memory and its fields to the accelerator's BAR registers (operation,
// LBA, size, segment list, segment count, the driver's tag, the core's
// queue, then "go": posted writes), and returns. The accelerator composes
// or merges the NVMe command in an SQ of its own BAR; its MSI-X vector for
// the core's queue brings the driver's handler, which reads the queue's
// completion register (one non-posted read per bio; the value says whether
// more wait) and completes the bios. With host.accel.completion = poll the
// queues send no interrupt: the submitting thread spins on the register
// (checks of host.accel.poll_check_cost each) and reaps what it finds.
//
// Bring-up runs inside the NVMe driver's (NvmeDriver::Stacked): the driver
// finds the accelerator in configuration space (class 12h), sizes and
// places its BAR, turns MSI-X on with vector k routed to core k, writes the
// namespace geometry, and for each core has the NVMe driver's admin queue
// create an I/O CQ (no interrupts: the accelerator sees its entries land)
// and SQ in the accelerator's window for queue k, then hands the queue the
// SSD's doorbell addresses. A bio the accelerator cannot carry in one
// command (above the drive's largest transfer or its PRP list slot) takes
// the normal path, as does a flush.
#include <deque>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/driver/InterruptRouting.hpp"
#include "vp/host/block/IoRequest.hpp"
#include "vp/host/driver/NvmeDriver.hpp"

namespace vp::host {

class AcceleratorDriver : public sc_core::sc_module, public NvmeDriver::Stacked, public IrqHandler {
 public:
  tlm_utils::simple_initiator_socket<AcceleratorDriver> bus;  // the CPU complex's port to the host bus

  static constexpr const char* kScope = "host.accel";
  static void declare_params(const ParamScope& p);
  // `config`, `bar0`: where the accelerator's configuration space answers
  // and where its BAR goes; `nvme`: the driver it stacks on.
  AcceleratorDriver(sc_core::sc_module_name name, Services& svc, InterruptRouting& irqs, HostMemoryAllocator& memory,
                    NvmeDriver& nvme, uint64_t config, uint64_t bar0, const std::string& scope = kScope);
  // Host memory the driver takes (segment lists), for the configuration check.
  static void reserve_memory(const ScopedConfig& nvme_cfg, unsigned cores, HostMemoryAllocator& memory);

  // Whether `r` goes to the accelerator (xler: a non-zero workload attribute,
  // one command's worth of data, not a flush); asked once per submission
  // (the latency-critical ones it leaves are counted).
  bool takes(const IoRequest& r);
  // CPU time of handing it over (host.accel.submit_cost).
  Tick submit_cost() const { return submit_cost_; }
  // Hands `r`, submitted on core `core`, to the accelerator's queue `core`,
  // or holds it until one of the queue's tags is free. Its DriverQueue
  // stage ends at the go write.
  void submit(IoRequest& r, unsigned core);
  // The handler of queue `vector`'s MSI-X message.
  void handle_irq(uint32_t vector, std::vector<IoRequest*>& done) override;

  // Polled completion (host.accel.completion = poll): whether bios handed
  // over are reaped by their thread spinning on its queue's register, the
  // time of one check, whether the next check of core `core`'s queue would
  // find a completed bio (a look, nothing read), reaping it (reads of the
  // register: the core stalls for each), and the event of a bio completing.
  bool polled() const { return polled_; }
  Tick poll_check_cost() const { return poll_check_; }
  bool poll_ready(unsigned core) const { return waiting_ && core < q_.size() && waiting_(core); }
  void poll(unsigned core, std::vector<IoRequest*>& done) { reap(core, done); }
  const Event& status_changed() const { return *changed_; }
  // The platform's view of the accelerator's completion registers, for
  // polling (see IoAccelerator::done_waiting).
  void watch_status(const Event& changed, std::function<bool(unsigned)> waiting) {
    changed_ = &changed;
    waiting_ = std::move(waiting);
  }
  void bring_up(NvmeDriver& nvme, uint16_t first_sq, uint16_t first_cq) override;

 private:
  struct Queue {
    uint16_t sqid = 0;
    uint64_t segs = 0;  // segment lists, one per tag
    std::vector<IoRequest*> by_tag;
    std::vector<uint32_t> free_tags;
    std::deque<IoRequest*> held;
  };
  void pci_enable();
  void send(IoRequest& r, unsigned core, uint32_t tag);
  void reap(unsigned q, std::vector<IoRequest*>& done);  // reads queue q's DONE register until no more
  uint64_t read(uint64_t addr, unsigned len);   // non-posted: the CPU waits
  void write(uint64_t addr, uint64_t v, unsigned len, bool non_posted = false);  // posted unless told
  [[noreturn]] void fail(const std::string& what);
  static uint32_t entries_from(const ScopedConfig& nvme_cfg);

  Services& svc_;
  InterruptRouting& irqs_;
  HostMemoryAllocator& memory_;
  NvmeDriver& nvme_;
  uint64_t config_, bar0_;
  Tick submit_cost_, poll_check_;
  bool polled_;
  const Event* changed_ = nullptr;
  std::function<bool(unsigned)> waiting_;
  uint32_t entries_, max_segs_ = 0, max_bytes_ = 0, lba_size_ = 0;
  uint32_t irq_base_ = 0;
  bool ready_ = false;
  std::vector<Queue> q_;  // q_[core]
  tlm::tlm_generic_payload gp_;
  Counter &bios_, &normal_path_, &held_, &done_reads_;
};

}  // namespace vp::host
