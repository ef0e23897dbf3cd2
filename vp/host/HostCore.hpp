#pragma once
// A host CPU core running the workload jobs placed on it and the kernel work
// they cause: the submission path (syscall, blk-mq, NVMe driver) costs
// submit_cost per I/O; an MSI-X interrupt costs isr_cost plus complete_cost
// per completion reaped; waking a thread that was blocked waiting for
// completions costs a context switch. I/Os go through blk-mq (BlkMqQueue),
// which adds its own CPU time (insertion, merge search) to submit_cost; a job
// with iodepth_batch_submit above 2 submits its batch under a plug, as
// Linux's io_submit does. When a completion arrives on another core (read/write
// queue isolation shares queues between cores), that core completes the I/O
// and wakes the job's core. One SystemC thread per core, woken by interrupts
// or by the time a job may issue next; none per request.
#include <deque>
#include <systemc>
#include <vector>

#include "vp/core/Services.hpp"
#include "vp/host/InterruptController.hpp"
#include "vp/host/IoRequest.hpp"

namespace vp::host {

class NvmeDriver;
class BlkMqQueue;
class Workload;
class FioJobRunner;

struct CoreCosts {
  Tick submit, isr, complete, ctx_switch;
};

class HostCore : public sc_core::sc_module, public IrqSink {
 public:
  sc_core::sc_export<IrqSink> irq;

  static void declare_params(ParamRegistry& reg);
  static CoreCosts costs_from(const Config& cfg);
  HostCore(sc_core::sc_module_name name, Services& svc, unsigned id, NvmeDriver& drv, BlkMqQueue& blk,
           Workload& wl);

  void interrupt(uint32_t vector) override;
  // All cores of the platform, indexed by id (to wake a job's core when
  // another core completed its I/O).
  void set_peers(const std::vector<HostCore*>* peers) { peers_ = peers; }
  // Another core completed an I/O of a job on this core.
  void remote_completion();
  uint64_t wakeups() const { return wakeups_; }

 private:
  void run();
  FioJobRunner* pick(Tick now);
  void service_interrupts(bool was_blocked);
  void busy(Tick t);

  Services& svc_;
  unsigned id_;
  NvmeDriver& drv_;
  BlkMqQueue& blk_;
  Workload& wl_;
  const std::vector<HostCore*>* peers_ = nullptr;
  uint64_t remote_ = 0;
  CoreCosts cost_;
  std::deque<uint32_t> pending_;
  sc_core::sc_event wake_;
  size_t rr_ = 0;
  uint64_t wakeups_ = 0;
  bool busy_trace_ = false;
  std::vector<IoRequest*> done_;
  Counter &busy_ps_, &isrs_, &ctx_switches_;
};

}  // namespace vp::host
