// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A flash array alone on the bench: configured from the server parameters
// (a small device unless the test says otherwise), driven by a thread that
// submits transactions and runs actions at given times, and a client that
// records completions in order. One rig per test case (one SystemC
// elaboration per process).
#include <catch2/catch.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <systemc>
#include <vector>

#include "vp/platform/ServerRun.hpp"
#include "tests/TestSupport.hpp"
#include "vp/flash/FlashArray.hpp"

namespace vp::test {

using flash::FlashAddress;
using flash::FlashOp;
using flash::FlashTransaction;

// Times used throughout, from the rig's defaults: command cycles 35 ns, a
// 2 KiB page over an 8-bit 800 MT/s bus is 2048 B / 800 MB/s = 2.56 us.
constexpr Tick kCmd = 35 * NS;
constexpr Tick kXfer2K = 2560 * NS;

inline Config flash_config(const Sets& sets) {
  const Sets base = {{"ssd.flash.channels", "1"},       {"ssd.flash.dies_per_package", "1"},
                     {"ssd.flash.planes_per_die", "1"}, {"ssd.flash.blocks_per_plane", "16"},
                     {"ssd.flash.page_size", "2KiB"},   {"ssd.flash.block_size", "1MiB"},
                     {"ssd.flash.t_cmd", "35ns"},       {"ssd.flash.bus_rate", "800MT/s"},
                     {"ssd.flash.bus_width", "8"}};
  return model_config("", base, sets);
}

class FlashRig : public flash::FlashClient {
 public:
  StatRegistry stats;  // first: the services below refer to it

  explicit FlashRig(const Sets& sets)
      : cfg_(flash_config(sets)), svc_{cfg_, stats, waves_, tracker_, 1}, flash("flash", svc_), driver_("driver") {}

  FlashTransaction& txn(FlashOp op, FlashAddress a, bool background = false) {
    FlashTransaction& t = txns_.emplace_back();
    t.op = op;
    t.addr = a;
    t.background = background;
    t.client = this;
    t.data = data_.emplace_back(flash.geometry().page_size, 0).data();
    return t;
  }
  // Submits at `when` in the order given.
  void submit(Tick when, std::initializer_list<FlashTransaction*> ts) {
    for (FlashTransaction* t : ts) at(when, [this, t] { flash.submit(*t); });
  }
  void at(Tick when, std::function<void()> fn) { driver_.plan.push_back({when, std::move(fn)}); }
  void run() { sc_core::sc_start(); }
  void flash_done(FlashTransaction& t) override { done.push_back(&t); }

 private:
  // Runs the planned actions at their times, from one thread.
  struct Driver : sc_core::sc_module {
    std::vector<std::pair<Tick, std::function<void()>>> plan;
    explicit Driver(sc_core::sc_module_name n) : sc_module(n) {
      SC_HAS_PROCESS(Driver);
      SC_THREAD(drive);
    }
    void drive() {
      // Stable by time: equal times keep the order they were planned in.
      std::stable_sort(plan.begin(), plan.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto& [when, fn] : plan) {
        if (when > now_ps()) sc_core::wait(to_sc(when - now_ps()));
        fn();
      }
    }
  };
  Config cfg_;
  Waves waves_;
  RequestTracker tracker_;
  Services svc_;
  std::deque<FlashTransaction> txns_;
  std::deque<std::vector<uint8_t>> data_;

 public:
  std::vector<FlashTransaction*> done;  // in completion order
  flash::FlashArray flash;

 private:
  Driver driver_;
};

inline FlashAddress addr(uint32_t ch, uint32_t die, uint32_t plane, uint32_t block, uint32_t page) {
  FlashAddress a;
  a.channel = ch;
  a.die = die;
  a.plane = plane;
  a.block = block;
  a.page = page;
  return a;
}

}  // namespace vp::test
