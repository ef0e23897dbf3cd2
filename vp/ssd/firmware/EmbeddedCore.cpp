// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/firmware/EmbeddedCore.hpp"

#include <fmt/format.h>

#include <memory>

namespace vp::ssd {

void FwWorkQueue::post(FwWork w) {
  items.push(std::move(w), latency_first);
  for (EmbeddedCore* c : cores) c->kick();
}

FirmwareThread::FirmwareThread(int id, std::string name, EmbeddedCore& core, const StatGroup& stats)
    : id_(id),
      name_(std::move(name)),
      core_(core),
      busy_ps_(stats.counter(fmt::format("thread.{}.busy_ps", name_), "ps",
                             fmt::format("time firmware thread {} ran on its core", name_))),
      items_(stats.counter(fmt::format("thread.{}.items", name_), "items",
                           fmt::format("work items (tasks and messages) firmware thread {} ran", name_))) {
  core.add(*this);
}

void FirmwareThread::serve(FwWorkQueue& pool) {
  pool_ = &pool;
  pool.cores.push_back(&core_);
}

void FirmwareThread::post(FwWork w) {
  own_.push(std::move(w), latency_first_);
  core_.kick();
}

void FirmwareThread::post_urgent(FwWork w) {
  urgent_.push_back(std::move(w));
  core_.kick();
}

FwWork FirmwareThread::take() {
  if (urgent_.empty()) return !own_.empty() ? own_.pop() : pool_->items.pop();
  FwWork w = std::move(urgent_.front());
  urgent_.pop_front();
  return w;
}

void FirmwareThread::unblock() {
  blocked_ = false;
  core_.kick();
}

EmbeddedCore::EmbeddedCore(unsigned index, EventQueue& eq, const StatGroup& stats, Waves& waves, Tick switch_time)
    : index_(index),
      eq_(eq),
      switch_time_(switch_time),
      busy_ps_(stats.counter(fmt::format("core{}.busy_ps", index), "ps",
                             fmt::format("time firmware core {} was busy", index))),
      items_(stats.counter(fmt::format("core{}.items", index), "items",
                           fmt::format("work items firmware core {} ran", index))),
      total_ps_(stats.total("busy_ps", "ps", "time the firmware cores were busy, summed over cores")),
      switches_(stats.total("switches", "switches",
                            "times a firmware core went from one thread's work to another's, summed over cores")) {
  busy_.attach(waves, Waves::signal_name(stats.scope(), fmt::format("core{}.busy", index)),
               Waves::group_name(stats.scope()) + " cores");
}

void EmbeddedCore::kick() {
  if (running_) return;
  for (size_t k = 0; k < threads_.size(); ++k) {
    size_t i = (next_ + k) % threads_.size();
    FirmwareThread& t = *threads_[i];
    if (!t.runnable()) continue;
    next_ = i + 1;
    running_ = true;
    current_ = t.take();  // one item at a time: the core keeps it
    FwWork& w = current_;
    if (w.start) w.cost = w.start();
    if (last_ && last_ != &t) {  // the incoming thread's context replaces the last one's
      w.cost += switch_time_;
      ++switches_;
    }
    last_ = &t;
    Tick now = now_ps(), end = now + w.cost;
    busy_ps_ += w.cost;
    total_ps_ += w.cost;
    ++items_;
    t.ran(w.cost);
    busy_.interval(eq_, now, end);
    eq_.at(end, [this, &t] { finish(t); });
    return;
  }
}

void EmbeddedCore::finish(FirmwareThread& t) {
  running_ = false;
  FwWork w = std::move(current_);  // what it does may start the core's next item
  if (w.done) w.done(t);
  kick();
}

}  // namespace vp::ssd
