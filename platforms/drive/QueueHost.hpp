// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The drive platform's host: the NVMe driver's queues and nothing above
// them (no cores, scheduler, page cache or blk-mq), as a user-space driver
// with free CPU time would drive the device. Each fio job issues into the
// I/O queue pair of the core it is placed on (cpus_allowed, else the least
// loaded), the instant fio would let it; its completions are taken the
// instant they reach the host: by the queue's interrupt (MSI-X, MSI or
// INTx, handled in no time) or, with host.nvme.completion = poll, when the
// completion entry lands in host memory. What is left of an I/O's latency
// is the queues', the link's and the drive's. Event driven: it runs at the
// interrupts, the CQ writes it polls, and the times rate-limited jobs may
// issue again.
#include <memory>
#include <systemc>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Services.hpp"
#include "vp/host/block/BlockDevices.hpp"
#include "vp/host/hw/InterruptController.hpp"
#include "vp/host/driver/InterruptRouting.hpp"
#include "vp/host/driver/NvmeDriver.hpp"
#include "vp/host/workload/Workload.hpp"

namespace vp::platform {

class QueueHost : public sc_core::sc_module {
 public:
  // `queues`: the I/O queue pairs the driver brings up (one per host core).
  QueueHost(sc_core::sc_module_name name, Services& svc, host::NvmeDriver& driver, host::InterruptRouting& irqs,
            host::Workload& workload, unsigned queues);
  // Where the interrupt controller delivers core `q`'s interrupts.
  host::IrqSink& irq(unsigned q) { return *sinks_.at(q); }
  // Times it ran of its own (polled CQ writes, issue timers, group starts);
  // the interrupts are the interrupt controller's events.
  uint64_t events() const { return runs_ + timers_.fired(); }

 private:
  struct Sink : host::IrqSink {
    QueueHost* host;
    explicit Sink(QueueHost* h) : host(h) {}
    void interrupt(uint32_t vector) override { host->interrupted(vector); }
  };
  void begin();  // the driver is ready
  void interrupted(uint32_t vector);
  void memory_written();  // a polled CQ may have a new entry
  void complete();        // what done_ holds
  void issue_all();       // every job of the running group issues what it may
  void issue(host::FioJobRunner& j, Tick now);
  void arm(Tick now, Tick next);  // a timer for a job held back by time

  Services& svc_;
  host::NvmeDriver& driver_;
  host::InterruptRouting& irqs_;
  host::Workload& workload_;
  host::BlockDevices devices_;  // the drive's namespace, /dev/nvme0n1, what the jobs open
  unsigned queues_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  EventQueue timers_;
  Tick armed_ = ~Tick(0);  // the earliest timer pending
  std::vector<host::IoRequest*> done_;
  uint64_t runs_ = 0;
  bool begun_ = false;
};

}  // namespace vp::platform
