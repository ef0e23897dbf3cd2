#pragma once
// A host CPU core running the workload jobs placed on it and the kernel work
// they cause: the submission path (syscall, blk-mq, NVMe driver) costs
// submit_cost per I/O; an MSI-X interrupt costs isr_cost plus complete_cost
// per completion reaped; waking a thread that was blocked waiting for
// completions costs a context switch. One SystemC thread per core, woken by
// interrupts or by the time a job may issue next; none per request.
#include <deque>
#include <systemc>
#include <vector>

#include "vp/core/Services.hpp"
#include "vp/host/InterruptController.hpp"
#include "vp/host/IoRequest.hpp"

namespace vp::host {

class NvmeDriver;
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
  HostCore(sc_core::sc_module_name name, Services& svc, unsigned id, NvmeDriver& drv, Workload& wl);

  void interrupt(uint32_t vector) override;
  uint64_t wakeups() const { return wakeups_; }

 private:
  void run();
  FioJobRunner* pick(Tick now);
  void service_interrupts(bool was_blocked);
  void busy(Tick t);

  Services& svc_;
  unsigned id_;
  NvmeDriver& drv_;
  Workload& wl_;
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
