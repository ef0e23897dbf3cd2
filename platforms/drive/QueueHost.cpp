// SPDX-License-Identifier: BSD-3-Clause
#include "platforms/drive/QueueHost.hpp"

#include <fmt/format.h>

#include "vp/core/Quote.hpp"
#include "vp/core/SimControl.hpp"

namespace vp::platform {

QueueHost::QueueHost(sc_core::sc_module_name name, Services& svc, host::NvmeDriver& driver,
                     host::InterruptRouting& irqs, host::Workload& workload, unsigned queues)
    : sc_module(name), svc_(svc), driver_(driver), irqs_(irqs), workload_(workload), queues_(queues),
      timers_("timers") {
  devices_.add(driver, nullptr, svc.tracker);
  for (unsigned q = 0; q < queues; ++q) sinks_.push_back(std::make_unique<Sink>(this));
  SC_HAS_PROCESS(QueueHost);
  SC_METHOD(begin);
  sensitive << driver.ready_event().kernel_event();
  dont_initialize();
  SC_METHOD(issue_all);  // a stonewall group has started
  sensitive << workload.group_started().kernel_event();
  dont_initialize();
}

void QueueHost::begin() {
  if (begun_) return;
  begun_ = true;
  ++runs_;
  // Polled CQs are reaped when the device's writes land (a polling thread
  // with nothing else to do sees the entry as soon as it is there).
  if (driver_.completion() == host::NvmeDriver::Completion::Poll || driver_.has_poll_queues()) {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.set_sensitivity(&driver_.memory_written().kernel_event());
    o.dont_initialize();
    sc_core::sc_spawn([this] { memory_written(); }, "poller", &o);
  }
  workload_.begin(devices_);
  issue_all();
}

void QueueHost::interrupted(uint32_t vector) {  // inside the interrupt controller's event
  done_.clear();
  irqs_.dispatch(vector, done_);  // admin completions during bring-up too
  complete();
}

void QueueHost::memory_written() {
  ++runs_;
  done_.clear();
  for (unsigned q = 0; q < queues_; ++q)
    if (driver_.poll_ready(q)) driver_.poll(q, done_);
  complete();
}

void QueueHost::complete() {
  if (done_.empty()) return;
  Tick now = now_ps();
  for (host::IoRequest* r : done_) {
    host::join_device_half(*r, svc_.tracker, Stage::SqWait);
    r->clock.mark(Stage::Interrupt, now);
    r->clock.mark(Stage::Wakeup, now);
    if (DeviceHalf* d = svc_.tracker.device(r->sqid, r->cid)) d->valid = false;
  }
  for (host::IoRequest* r : done_) {
    if (svc_.requests) host::log_request(*svc_.requests, *r, now);
    if (Timeline* t = svc_.waves.timeline()) host::timeline_request(*t, *r, now, -1);  // no host cores here
    host::FioJobRunner& j = *r->job;
    j.complete(*r, now);
    issue(j, now);
  }
  workload_.job_progress(devices_);
}

void QueueHost::issue_all() {
  if (!begun_) return;
  ++runs_;
  Tick now = now_ps();
  for (const auto& j : workload_.runners())
    if (j->started()) issue(*j, now);
  workload_.job_progress(devices_);  // jobs with nothing to do end at once
}

void QueueHost::issue(host::FioJobRunner& j, Tick now) {
  if (j.wants_sync()) {  // fsync: a Flush when the drive reports a volatile write cache
    if (host::IoRequest* f = j.start_direct_sync(now)) {
      f->clock.mark(Stage::HostSubmit, now);
      driver_.submit(*f, j.core());
    }
    return;
  }
  while (j.can_issue(now)) {
    host::IoRequest& r = j.issue(now);
    if (uint32_t max = driver_.max_transfer(); max && r.bytes > max && !r.trim) {  // a trace record (bs is checked before)
      sim_abort(fmt::format("job {}: a {}-byte I/O is over the drive's largest transfer ({} bytes) and vp-drive has "
                            "no blk-mq to split it",
                            vp::quoted(j.result().name), r.bytes, max));
      return;
    }
    r.polled = !r.trim && j.spec().hipri && driver_.has_poll_queues();
    r.clock.mark(Stage::HostSubmit, now);
    driver_.submit(r, j.core());
  }
  Tick next = j.next_issue_time(now);
  if (next != host::kNever && next > now) arm(now, next);
}

void QueueHost::arm(Tick now, Tick next) {
  if (armed_ > now && armed_ <= next) return;  // an earlier timer pending looks again then
  armed_ = next;
  timers_.at(next, [this] {
    armed_ = ~Tick(0);
    issue_all();
  });
}

}  // namespace vp::platform
