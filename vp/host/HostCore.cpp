#include "vp/host/HostCore.hpp"

#include <fmt/format.h>

#include "vp/core/RequestLog.hpp"
#include "vp/host/BlkMqQueue.hpp"
#include "vp/host/FioJobRunner.hpp"
#include "vp/host/NvmeDriver.hpp"
#include "vp/host/Workload.hpp"

namespace vp::host {

void HostCore::declare_params(ParamRegistry& r) {
  // FlashShare (sec. 5.2): ISR plus context switch take more than 6 us.
  r.integer("host.cores", 4, "host CPU cores, each with its own NVMe I/O queue pair").range(1, 256);
  r.time("host.core.submit_cost", "1.5us", "CPU time to submit one I/O (syscall, blk-mq, NVMe driver)");
  r.time("host.core.isr_cost", "2.5us", "CPU time of entering and leaving the MSI-X interrupt handler");
  r.time("host.core.complete_cost", "0.5us", "CPU time per completion reaped in the interrupt handler");
  r.time("host.core.ctx_switch_cost", "3.5us", "context switch to a thread blocked waiting for completions");
}

CoreCosts HostCore::costs_from(const Config& c) {
  return {c.get_time("host.core.submit_cost"), c.get_time("host.core.isr_cost"), c.get_time("host.core.complete_cost"),
          c.get_time("host.core.ctx_switch_cost")};
}

HostCore::HostCore(sc_core::sc_module_name name, Services& svc, unsigned id, NvmeDriver& drv, BlkMqQueue& blk,
                   Workload& wl)
    : sc_module(name),
      irq("irq"),
      svc_(svc),
      id_(id),
      drv_(drv),
      blk_(blk),
      wl_(wl),
      cost_(costs_from(svc.cfg)),
      busy_ps_(svc.stats.counter(fmt::format("host.core{}.busy_ps", id), "ps", "time the core was busy")),
      isrs_(svc.stats.counter("host.isr_runs", "interrupts", "interrupt handler invocations")),
      ctx_switches_(svc.stats.counter("host.context_switches", "switches", "wake-ups of blocked threads")) {
  irq.bind(*this);
  if (svc.waves.enabled()) svc.waves.trace(busy_trace_, fmt::format("host_core{}_busy", id), "host cores");
  SC_HAS_PROCESS(HostCore);
  SC_THREAD(run);
}

void HostCore::interrupt(uint32_t vector) {
  pending_.push_back(vector);
  wake_.notify();
}

void HostCore::remote_completion() {
  ++remote_;
  wake_.notify();
}

void HostCore::busy(Tick t) {
  if (t == 0) return;
  busy_ps_ += t;
  busy_trace_ = true;
  sc_core::wait(to_sc(t));
  busy_trace_ = false;
}

FioJobRunner* HostCore::pick(Tick now) {
  const auto& jobs = wl_.runners_on(id_);
  for (size_t i = 0; i < jobs.size(); ++i) {
    FioJobRunner* j = jobs[(rr_ + i) % jobs.size()];
    if (j->can_issue(now)) {
      rr_ = (rr_ + i + 1) % jobs.size();
      return j;
    }
  }
  return nullptr;
}

void HostCore::service_interrupts(bool was_blocked) {
  Tick now = now_ps(), t = now;
  done_.clear();
  while (!pending_.empty()) {
    uint32_t v = pending_.front();
    pending_.pop_front();
    ++isrs_;
    size_t before = done_.size();
    drv_.handle_irq(v, done_);
    t += cost_.isr;
    for (size_t i = before; i < done_.size(); ++i) {
      IoRequest& r = *done_[i];
      t += cost_.complete;
      DeviceHalf* d = svc_.tracker.device(r.sqid, r.cid);
      if (d && d->valid) {  // every I/O a merged command carried shares its device half
        r.clock.join(d->clock, Stage::SqWait);
        r.attr = d->attr;
        r.result = d->result;
      }
      r.clock.mark(Stage::Interrupt, t);
    }
  }
  for (IoRequest* r : done_) {
    if (DeviceHalf* d = svc_.tracker.device(r->sqid, r->cid)) d->valid = false;
    if (!r->merged) blk_.completed(r->sqid - 1u, now);  // one tag per command
  }
  if (was_blocked && !done_.empty()) {
    t += cost_.ctx_switch;
    ++ctx_switches_;
  }
  busy(t - now);
  Tick end = now_ps();
  for (IoRequest* r : done_) {
    r->clock.mark(Stage::Wakeup, end);
    if (svc_.requests)
      svc_.requests->write({r->job->result().name, r->write, r->lba, r->bytes, r->sqid, r->cid, r->status, r->attr,
                            r->result, r->issued, end, r->clock});
    r->job->complete(*r, end);
    unsigned owner = r->job->core();
    if (owner != id_ && peers_) (*peers_)[owner]->remote_completion();
  }
  if (!done_.empty()) wl_.job_progress(drv_);
}

void HostCore::run() {
  bool blocked = false, begun = false;
  for (;;) {
    ++wakeups_;
    if (!pending_.empty()) {  // admin completions arrive before the driver is ready
      service_interrupts(blocked);
      blocked = false;
      continue;
    }
    if (remote_) {  // woken by another core's completion of our job's I/O
      remote_ = 0;
      if (blocked) {
        busy(cost_.ctx_switch);
        ++ctx_switches_;
      }
      blocked = false;
    }
    if (!drv_.ready()) {
      sc_core::wait(wake_ | drv_.ready_event());
      continue;
    }
    if (!begun && id_ == 0) wl_.begin(drv_);
    begun = true;
    Tick now = now_ps();
    if (FioJobRunner* j = pick(now)) {
      blocked = false;
      // io_submit plugs batches above AIO_PLUG_THRESHOLD (2) requests.
      unsigned batch = std::max(1u, j->spec().iodepth_batch_submit);
      bool plug = batch > 2;
      if (plug) blk_.start_plug(id_);
      unsigned n = 0;
      do {
        IoRequest& r = j->issue(now_ps());
        busy(cost_.submit + blk_.submit_cost(r, id_));
        r.clock.mark(Stage::HostSubmit, now_ps());
        blk_.submit(r, id_, now_ps());
      } while (++n < batch && j->can_issue(now_ps()));
      if (plug) blk_.finish_plug(id_, now_ps());
      continue;
    }
    wl_.job_progress(drv_);
    Tick next = kNever;
    for (FioJobRunner* j : wl_.runners_on(id_)) next = std::min(next, j->next_issue_time(now));
    blocked = true;
    if (next == kNever || next <= now)
      sc_core::wait(wake_ | wl_.group_started());
    else
      sc_core::wait(to_sc(next - now), wake_ | wl_.group_started());
  }
}

}  // namespace vp::host
