// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/RunWatchdog.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

#include "vp/core/SimControl.hpp"

namespace vp::platform {

RunWatchdog::RunWatchdog(double bound_s, std::string out_dir) : bound_s_(bound_s), out_dir_(std::move(out_dir)) {
  if (bound_s_ > 0) thread_ = std::thread([this] { watch(); });
}

RunWatchdog::~RunWatchdog() {
  {
    std::lock_guard<std::mutex> l(m_);
    done_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RunWatchdog::watch() {
  using Clock = std::chrono::steady_clock;
  const auto bound = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(bound_s_));
  const auto poll = std::min<Clock::duration>(bound / 4, std::chrono::seconds(1));
  uint64_t seen = ended_.load(std::memory_order_relaxed);
  auto since = Clock::now();
  std::unique_lock<std::mutex> l(m_);
  while (!done_) {
    cv_.wait_for(l, poll);
    if (done_) return;
    uint64_t e = ended_.load(std::memory_order_relaxed);
    // Progress: a chunk ended, or none is running (recovery, writing outputs).
    if (e != seen || started_.load(std::memory_order_relaxed) == e) {
      seen = e;
      since = Clock::now();
      continue;
    }
    if (Clock::now() - since < bound) continue;
    if (!fired_.exchange(true)) {
      sim_interrupt(kWatchdog);
      since = Clock::now();  // the second bound: for the calendar to stop it
      continue;
    }
    // The model never came back to the calendar: nothing can end the run
    // in order, so its temporaries go and the process ends here.
    std::fprintf(stderr, "vp: no simulated progress for %g s of wall time, and the model did not return to the "
                         "calendar to stop: exiting without outputs\n", 2 * bound_s_);
    std::error_code ec;
    const std::string tag = fmt::format(".tmp-{}", static_cast<long>(getpid()));
    if (!out_dir_.empty())
      for (const auto& f : std::filesystem::directory_iterator(out_dir_, ec))
        if (f.path().filename().string().find(tag) != std::string::npos) std::filesystem::remove(f.path(), ec);
    std::_Exit(3);
  }
}

}  // namespace vp::platform
